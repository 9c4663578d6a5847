// The data pipeline of the core: what every dataset plugin's data goes through (pipeline.hpp).
#include "data/pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "data/cache.hpp"
#include "data/scale.hpp"
#include "data/split.hpp"
#include "dualgap/dataset.hpp"
#include "dualgap/parse.hpp"
#include "dualgap/random.hpp"
#include "base/util.hpp"

namespace dualgap {

namespace {
// The seed of a step of the pipeline: seed_offset picks another independent draw.
std::uint64_t step_seed(std::uint64_t seed, std::int64_t offset, const char* step) {
  return derive_seed(seed, step, static_cast<std::uint64_t>(offset));
}
std::vector<std::size_t> first_n(std::size_t n, std::int64_t limit) {
  std::vector<std::size_t> v(std::min<std::size_t>(n, static_cast<std::size_t>(limit)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}
}  // namespace

Data finish_dataset(Data data, const DatasetOptions& opt, std::uint64_t seed) {
  json src = data.source.is_object() ? data.source
            : data.source.is_null()   ? json::object()
                                      : json{{"description", data.source}};
  json done = json::object();
  if (opt.max_examples > 0 && data.train.num_examples() > static_cast<std::size_t>(opt.max_examples)) {
    data.train = data.train.select(first_n(data.train.num_examples(), opt.max_examples));
    done["max_examples"] = opt.max_examples;
  }
  if (opt.max_test_examples > 0 && data.test.num_examples() > static_cast<std::size_t>(opt.max_test_examples)) {
    data.test = data.test.select(first_n(data.test.num_examples(), opt.max_test_examples));
    done["max_test_examples"] = opt.max_test_examples;
  }
  if (opt.test_fraction > 0) {
    if (data.test.num_examples() > 0)
      throw DataError(data.name + ": test_fraction = " + std::to_string(opt.test_fraction) +
                      " asks for a split of train, but the data set already has a test set; give one or the other");
    auto [tr, te] = split_indices(data.train, opt.test_fraction, step_seed(seed, opt.seed_offset, "split"),
                                  opt.stratified, opt.split_by_group);
    data.test = data.train.select(te);
    data.train = data.train.select(tr);
    done["split"] = {{"test_fraction", opt.test_fraction}, {"stratified", opt.stratified},
                     {"by_group", opt.split_by_group}};
  }
  if (opt.per_class > 0) {
    data.train = data.train.select(per_class_indices(data.train, opt.per_class, step_seed(seed, opt.seed_offset, "per_class")));
    done["per_class"] = opt.per_class;
  }
  if (opt.per_class_test > 0 && data.test.num_examples() > 0) {
    data.test = data.test.select(per_class_indices(data.test, opt.per_class_test, step_seed(seed, opt.seed_offset, "per_class_test")));
    done["per_class_test"] = opt.per_class_test;
  }
  if (opt.scale != Scaling::none) {
    apply_scaling(data.train, data.test, opt.scale);
    done["scale"] = to_string(opt.scale);
  }
  if (data.test.num_examples() > 0 && data.test.num_features() != data.train.num_features())
    throw DataError(data.name + ": train has " + std::to_string(data.train.num_features()) +
                    " features but test has " + std::to_string(data.test.num_features()));
  data.train.check(data.name + " (train)");
  if (data.test.num_examples() > 0 || data.test.X.rows() > 0) data.test.check(data.name + " (test)");
  const auto train_counts = class_counts(data.train);
  const auto seen = std::count_if(train_counts.begin(), train_counts.end(), [](std::int64_t c) { return c > 0; });
  if (data.train.num_examples() > 0 && seen < 2)
    throw DataError(data.name + ": the training set has " + std::to_string(seen) +
                    " class: a classifier needs at least two (with one, w = 0 is optimal and every run ends at gap 0)");
  if (data.test.num_examples() > 0) {
    // Documented behaviour, not an error: such test examples are always misclassified.
    // Named by the labels of the file (the plugin's label_map: class k is label_map[k]), which
    // is what the user can look up; the internal index only where a plugin gives no names.
    const auto test_counts = class_counts(data.test);
    const auto map = src.find("label_map");
    const bool named = map != src.end() && map->is_array() && map->size() == static_cast<std::size_t>(data.train.num_classes) &&
                       std::all_of(map->begin(), map->end(), [](const json& n) { return n.is_string(); });
    std::vector<std::string> unseen, labels;
    for (std::size_t k = 0; k < test_counts.size() && k < train_counts.size(); ++k)
      if (test_counts[k] > 0 && train_counts[k] == 0) {
        unseen.push_back(std::to_string(k));
        if (named) labels.push_back((*map)[k].get<std::string>());
      }
    if (!unseen.empty()) {
      std::string list;
      for (std::size_t i = 0; i < unseen.size(); ++i) {
        const auto count = test_counts[std::stoul(unseen[i])];
        list += fmt::format("{}{} ({} example{})", i ? ", " : "", named ? "'" + printable(labels[i]) + "'" : unseen[i],
                            count, count == 1 ? "" : "s");
      }
      const bool one = unseen.size() == 1;
      std::fprintf(stderr, "warning: %s: test %s %s %s no training example (always misclassified)%s\n",
                   printable(data.name).c_str(), named ? (one ? "label" : "labels") : (one ? "class" : "classes"),
                   list.c_str(), one ? "has" : "have", named ? "" : " (0-based class indices: the plugin names no labels)");
      src["unseen_test_classes"] = unseen;
      if (named) src["unseen_test_labels"] = labels;
    }
  }
  if (!done.empty()) {
    done["seed"] = seed;
    done["seed_offset"] = opt.seed_offset;
  }
  src["applied"] = done;
  src["train_examples"] = data.train.num_examples();
  src["test_examples"] = data.test.num_examples();
  src["num_features"] = data.train.num_features();
  src["num_classes"] = data.train.num_classes;
  src["train_class_counts"] = class_counts(data.train);
  if (data.test.num_examples() > 0) src["test_class_counts"] = class_counts(data.test);
  data.source = std::move(src);
  return data;
}

void hold_out_validation(Data& data, double fraction, std::uint64_t seed, json& info) {
  // Hold out a stratified part of train as the evaluation set; the test set is never seen.
  auto [tr, va] = split_indices(data.train, fraction, derive_seed(seed, "validation", 0), true, false);
  if (tr.empty() || va.empty())
    throw DataError(fmt::format("data.validation = {}: the training set of {} examples leaves an empty {} side",
                                fraction, data.train.num_examples(), tr.empty() ? "training" : "validation"));
  info["validation"] = {{"fraction", fraction}, {"train_examples", tr.size()}, {"validation_examples", va.size()},
                        {"test_examples_dropped", data.test.num_examples()}};
  data.test = data.train.select(va);
  data.train = data.train.select(tr);
}

Data load_data(const LoadedPlugin& plugin, const json& params, const DatasetContext& context, double validation,
               json* info) {
  const auto& own_schema = plugin.description->params;
  const DatasetOptions opt = DatasetOptions::from(params, own_schema);
  // The plugin receives its own keys; of the core's, only seed_offset concerns it (a generator's
  // other draw), through the context.
  DatasetContext ctx = context;
  ctx.seed_offset = static_cast<std::uint64_t>(opt.seed_offset);
  auto ds = create_object<DatasetPlugin>(plugin, Params(plugin_own_params(params, own_schema)));
  // Only data read from files are cached (a generator is as fast as the cache); the key holds
  // the seed unless the plugin says its data do not depend on it (every parser here does; the
  // default keeps a third-party plugin that draws at random from being served another seed's data).
  const bool reads_files = std::any_of(own_schema.begin(), own_schema.end(),
                                       [](const ParamSpec& s) { return s.type == ParamType::path; });
  Data data;
  if (reads_files) {
    const std::string dir = opt.cache ? ctx.cache_dir : "";
    const bool seeded = ds->depends_on_seed();
    // A plugin whose data depend on the seed sees seed_offset too: both are in the key (the
    // offset only when it is set, so that the keys of offset 0 stay those of the seed alone).
    const std::uint64_t seed_key = ctx.seed_offset ? derive_seed(ctx.seed, "seed_offset", ctx.seed_offset) : ctx.seed;
    const std::uint64_t key = dir.empty() ? 0
                              : data_cache_key(plugin.description->name, plugin.path,
                                               plugin_own_params(params, own_schema), seeded ? &seed_key : nullptr);
    data = load_with_cache(dir, plugin.description->name, key, [&] { return ds->load(ctx); });
  } else {
    data = ds->load(ctx);
  }
  data = finish_dataset(std::move(data), opt, ctx.seed);
  if (validation > 0) {
    json scratch;
    hold_out_validation(data, validation, ctx.seed, info ? *info : scratch);
  }
#ifdef __GLIBC__
  // The parse's blocks, the file pieces and the intermediate copies are freed by now, but glibc
  // keeps freed memory inside its heap resident (it only trims the heap's top): give those pages
  // back before the solver allocates its state, so that they do not add to the run's peak.
  malloc_trim(0);
#endif
  return data;
}

}  // namespace dualgap
