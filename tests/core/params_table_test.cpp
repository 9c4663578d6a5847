// The parameter table of `dualgap describe --markdown` and its place in a plugin README
// (cli/params_table.hpp), and the dataset route of the binder (describe_dataset: a plugin's
// own keys beside the core's data: keys).
#include <doctest/doctest.h>

#include "cli/params_table.hpp"
#include "data/options.hpp"
#include "dualgap/parse.hpp"
#include "experiment/schema.hpp"

using namespace dualgap;

namespace {

enum class Base { automatic, one };

class TinyDataset final : public DatasetPlugin {
 public:
  struct Options {
    std::string train;
    std::string name;
    Base base = Base::automatic;
    double noise = 0.5;
    std::vector<int> folds = {0};
    int threads = 1;
    std::optional<std::string> test;

    static void bind(Binder<Options>& b) {
      b.field(&Options::train, "train", "training file").path().required();
      b.field(&Options::name, "name", "name | with a bar");
      b.choice(&Options::base, "base", {{"auto", Base::automatic}, {"1", Base::one}}, "index base");
      b.field(&Options::noise, "noise", "noise").min(0);
      b.field(&Options::folds, "folds", "folds").range(0, 9);
      b.field(&Options::threads, "threads", "threads").max(8).named("auto", 3);
      test_file_field(b, &Options::test);
    }
    bool validate(std::string* error) const {
      if (noise > 1 && base == Base::one) *error = "noise > 1 needs base: auto";
      return error->empty();
    }
  };
  explicit TinyDataset(const Options& o) : o_(o) {}
  Data load(const DatasetContext&) override { return {}; }
  Options o_;
};

const std::string kTable =
    "| name | type | default | range or choices | meaning |\n"
    "|---|---|---|---|---|\n"
    "| `train` | path | required |  | training file |\n"
    "| `name` | string | `\"\"` |  | name \\| with a bar |\n"
    "| `base` | choice | `auto` | `auto`, `1` | index base |\n"
    "| `noise` | real | `0.5` | >= 0 | noise |\n"
    "| `folds` | list of int | `[0]` | each [0, 9] | folds |\n"
    "| `threads` | int | `1` | <= 8 or `auto` | threads |\n"
    "| `test` | path | optional |  | test file (same format as train); absent: no test set, or a split of train "
    "(test_fraction) |\n"
    "\nThe core `data:` keys apply beside these (docs/data.md): `test_fraction`, `stratified`, `split_by_group`, "
    "`per_class`, `per_class_test`, `max_examples`, `max_test_examples`, `scale`, `seed_offset`, `cache`, "
    "`validation`.\n";

}  // namespace

TEST_CASE("describe --markdown: one row per parameter, in declaration order, cells escaped") {
  const PluginDescription d = describe_dataset<TinyDataset>("tiny", "1.0.0", "a test dataset");
  CHECK(d.kind == Kind::dataset);
  CHECK(params_markdown(d) == kTable);
  PluginDescription none;
  none.kind = Kind::solver;
  CHECK(params_markdown(none) == "No parameters.\n");
}

TEST_CASE("the README's table: written between the markers, compared line by line") {
  const std::string before = "# tiny\n\nintro\n<!-- params:begin -->\n", after = "<!-- params:end -->\n\nmore text\n";
  const std::string table = "| a |\n|---|\n| `x` |\n";
  const std::string current = before + table + after;
  // Written: everything outside the markers kept as it was.
  CHECK(with_params_table(before + after, table, "R.md") == current);
  CHECK(with_params_table(before + "| stale |\n" + after, table, "R.md") == current);
  CHECK(with_params_table(current, table, "R.md") == current);
  CHECK(with_params_table(before + "<!-- params:end -->", table, "R.md") == before + table + "<!-- params:end -->");
  // Compared: nothing when equal; else the first README line that differs, with both lines.
  CHECK_FALSE(params_table_mismatch(current, table, "R.md").has_value());
  auto m = params_table_mismatch(before + "| a |\n|---|\n| `y` |\n" + after, table, "R.md");
  REQUIRE(m);
  CHECK(m->line == 7);
  CHECK(m->readme == "| `y` |");
  CHECK(m->expected == "| `x` |");
  m = params_table_mismatch(before + "| a |\n" + after, table, "R.md");  // the README's table ends early
  REQUIRE(m);
  CHECK(m->line == 6);
  CHECK(m->readme == "<!-- params:end -->");
  CHECK(m->expected == "|---|");
  m = params_table_mismatch(before + table + "| extra |\n" + after, table, "R.md");  // one line too many
  REQUIRE(m);
  CHECK(m->line == 8);
  CHECK(m->readme == "| extra |");
  CHECK(m->expected == "<!-- params:end -->");
  // No marker pair, two of them, or the end before the begin: an error naming the file.
  for (const std::string bad : {std::string("# tiny\n| a |\n"), before + table, table + after,
                                after + before, current + current}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(with_params_table(bad, table, "R.md"), doctest::Contains("R.md: expected one line"),
                         std::runtime_error);
    CHECK_THROWS_WITH_AS(params_table_mismatch(bad, table, "R.md"), doctest::Contains("R.md: expected one line"),
                         std::runtime_error);
  }
}

TEST_CASE("describe_dataset: the plugin's Options, its rules, and the core keys beside it") {
  const PluginDescription d = describe_dataset<TinyDataset>("tiny", "1.0.0", "a test dataset");
  const auto schema = data_schema(d.params);
  // A data: section is checked against the plugin's keys and the core's together.
  const json section = make_params(schema, {{"train", "a.txt"}, {"base", "1"}, {"scale", "maxabs"}}).raw();
  CHECK(d.validate(Params(section)).empty());
  json noisy = section;
  noisy["noise"] = 2.0;
  CHECK(d.validate(Params(noisy)) == "noise > 1 needs base: auto");
  // The plugin receives its own keys (the core keeps scale, ...); the core reads its options.
  const json own = plugin_own_params(section, d.params);
  CHECK_FALSE(own.contains("scale"));
  auto obj = d.create(Params(own));
  auto* ds = dynamic_cast<TinyDataset*>(obj.get());
  REQUIRE(ds);
  CHECK(ds->o_.train == "a.txt");
  CHECK(ds->o_.base == Base::one);
  CHECK_FALSE(ds->o_.test.has_value());
  const DatasetOptions core = DatasetOptions::from(section, d.params);
  CHECK(core.scale == Scaling::maxabs);
  CHECK(core.cache);
  CHECK(core.test_fraction == 0.0);
  CHECK_THROWS_WITH_AS(d.create(Params(noisy)), "tiny: noise > 1 needs base: auto", ParamError);
  // Bad values of the plugin's keys are the core's located configuration errors.
  CHECK_THROWS_WITH_AS(make_params(schema, {{"train", "a"}, {"base", "2"}}),
                       doctest::Contains("parameter 'base' = '2' is not one of: auto, 1"), ConfigError);
  CHECK_THROWS_WITH_AS(make_params(schema, {{"train", "a"}, {"threads", 1.5}}),
                       doctest::Contains("parameter 'threads' expects an integer or auto, got 1.5"), ConfigError);
  CHECK_THROWS_WITH_AS(make_params(schema, {{"train", "a"}, {"folds", {3, 10}}}),
                       doctest::Contains("parameter 'folds' = 10 is out of range [0, 9]"), ConfigError);
  CHECK_THROWS_WITH_AS(make_params(schema, {{"train", "a"}, {"bogus", 1}}), doctest::Contains("unknown key 'bogus'"),
                       ConfigError);
}

TEST_CASE("the core data: keys: declared once, a plugin's own key of the same name wins") {
  std::vector<std::string> names;
  for (auto& s : core_data_params()) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"test_fraction", "stratified", "split_by_group", "per_class", "per_class_test",
                                          "max_examples", "max_test_examples", "scale", "seed_offset", "cache"});
  const json given = {{"test_fraction", 0.25}, {"per_class", 3}, {"seed_offset", 2}, {"cache", false}};
  const DatasetOptions o = DatasetOptions::from(given, {});
  CHECK(o.test_fraction == 0.25);
  CHECK(o.per_class == 3);
  CHECK(o.seed_offset == 2);
  CHECK_FALSE(o.cache);
  // A plugin that declares test_fraction keeps it: the core's split stays off.
  ParamSpec own;
  own.name = "test_fraction";
  const DatasetOptions p = DatasetOptions::from(given, {own});
  CHECK(p.test_fraction == 0.0);
  CHECK(p.per_class == 3);
}
