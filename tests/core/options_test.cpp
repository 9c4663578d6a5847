// The options binder (dualgap/options.hpp): one line per field gives the schema entry and the
// reader; validate() rules reach the plugin description; accepts/interfaces are data.
#include <doctest/doctest.h>

#include "dualgap/plugin.hpp"
#include "experiment/schema.hpp"

using namespace dualgap;

namespace {

enum class Order { permutation, uniform, cyclic };

struct Inner {
  double eps = 0.1;
  bool large_c = false;
};

struct Opts {
  bool multiplane = false;
  int M = 1000;
  long big = 7;
  double step = 0.5;
  std::string file = "a.txt";
  std::string master = "fcd";
  Order order = Order::permutation;
  std::vector<int> powers = {1, 2};
  std::vector<double> weights;
  std::optional<int> limit;
  json nested = json::object();
  Inner inner;

  static void bind(Binder<Opts>& b) {
    b.field(&Opts::multiplane, "multiplane", "keep working sets");
    b.field(&Opts::M, "M", "max approximate passes").min(0);
    b.field(&Opts::big, "big", "a long").range(1, 9);
    b.field(&Opts::step, "step", "a step").min(0).max(1);
    b.field(&Opts::file, "file", "a file").path();
    b.choice(&Opts::master, "master", {"fcd", "lbfgsb"}, "master solver");
    b.choice(&Opts::order, "order",
             {{"permutation", Order::permutation}, {"uniform", Order::uniform}, {"cyclic", Order::cyclic}},
             "block order");
    b.field(&Opts::powers, "powers", "powers").range(1, 9);
    b.field(&Opts::weights, "weights", "weights");
    b.field(&Opts::limit, "limit", "optional limit");
    b.field(&Opts::nested, "nested", "free-form");
    b.field([](Opts& o) -> double& { return o.inner.eps; }, "eps", "nested tolerance").min(0);
    b.choice([](Opts& o) -> bool& { return o.inner.large_c; }, "update", {{"exact", false}, {"large_c", true}},
             "update rule");
  }
  bool validate(std::string* error) const {
    if (order == Order::cyclic && M > 10) {
      *error = "order: cyclic needs M <= 10";
      return false;
    }
    return true;
  }
};

template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "(no exception)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const ParamSpec& spec(const std::vector<ParamSpec>& s, const std::string& name) {
  for (auto& p : s)
    if (p.name == name) return p;
  FAIL("no parameter " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("binder: the schema comes from the fields, defaults from the member initializers") {
  const auto s = binder_of<Opts>().schema();
  std::vector<std::string> names;
  for (auto& p : s) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"multiplane", "M", "big", "step", "file", "master", "order", "powers",
                                          "weights", "limit", "nested", "eps", "update"});
  CHECK(spec(s, "multiplane").type == ParamType::boolean);
  CHECK(spec(s, "multiplane").default_value == json(false));
  CHECK(spec(s, "M").type == ParamType::integer);
  CHECK(spec(s, "M").default_value.dump() == "1000");
  CHECK(spec(s, "M").min == 0.0);
  CHECK_FALSE(spec(s, "M").max.has_value());
  CHECK(spec(s, "M").doc == "max approximate passes");
  CHECK(spec(s, "big").type == ParamType::integer);
  CHECK((spec(s, "big").min == 1.0 && spec(s, "big").max == 9.0));
  CHECK(spec(s, "step").type == ParamType::real);
  CHECK(spec(s, "step").default_value.dump() == "0.5");
  CHECK(spec(s, "file").type == ParamType::path);
  CHECK(spec(s, "master").type == ParamType::choice);
  CHECK(spec(s, "master").choices == std::vector<std::string>{"fcd", "lbfgsb"});
  CHECK(spec(s, "master").default_value == json("fcd"));
  CHECK(spec(s, "order").choices == std::vector<std::string>{"permutation", "uniform", "cyclic"});
  CHECK(spec(s, "order").default_value == json("permutation"));
  CHECK(spec(s, "powers").type == ParamType::int_list);
  CHECK(spec(s, "powers").default_value == json::array({1, 2}));
  CHECK(spec(s, "weights").type == ParamType::real_list);
  CHECK(spec(s, "limit").type == ParamType::integer);
  CHECK(spec(s, "limit").optional);
  CHECK(spec(s, "limit").default_value.is_null());
  CHECK(spec(s, "nested").type == ParamType::object);
  CHECK(spec(s, "eps").default_value.dump() == "0.1");
  CHECK(spec(s, "update").default_value == json("exact"));
}

TEST_CASE("binder: the reader fills the struct from schema-checked values") {
  const auto& b = binder_of<Opts>();
  SUBCASE("defaults") {
    const Opts o = b.read(make_params(b.schema(), json::object({{"file", "x"}})));
    CHECK_FALSE(o.multiplane);
    CHECK(o.M == 1000);
    CHECK(o.order == Order::permutation);
    CHECK(o.powers == std::vector<int>{1, 2});
    CHECK_FALSE(o.limit.has_value());
    CHECK(o.inner.eps == 0.1);
    CHECK_FALSE(o.inner.large_c);
  }
  SUBCASE("given values, choices mapped to their values, nested members") {
    const Opts o = b.read(make_params(b.schema(), {{"multiplane", true}, {"M", 3}, {"big", 9}, {"step", "1/K"},
                                                   {"master", "lbfgsb"}, {"order", "cyclic"}, {"powers", {4}},
                                                   {"weights", {0.5, 1.5}}, {"limit", 12}, {"nested", {{"a", 1}}},
                                                   {"eps", 0.25}, {"update", "large_c"}}));
    CHECK(o.multiplane);
    CHECK(o.M == 3);
    CHECK(o.big == 9);
    CHECK(o.step == 0.5);  // "1/K" with make_params' K = 2
    CHECK(o.master == "lbfgsb");
    CHECK(o.order == Order::cyclic);
    CHECK(o.powers == std::vector<int>{4});
    CHECK(o.weights == std::vector<double>{0.5, 1.5});
    CHECK(o.limit == 12);
    CHECK(o.nested == json{{"a", 1}});
    CHECK(o.inner.eps == 0.25);
    CHECK(o.inner.large_c);
  }
  SUBCASE("the schema rejects what the struct cannot hold, with the usual messages") {
    CHECK(contains(message_of<ConfigError>([&] { make_params(b.schema(), {{"M", -1}}); }),
                   "parameter 'M' = -1 is out of range [0, inf]"));
    CHECK(contains(message_of<ConfigError>([&] { make_params(b.schema(), {{"order", "random"}}); }),
                   "parameter 'order' = 'random' is not one of: permutation, uniform, cyclic"));
    CHECK(contains(message_of<ConfigError>([&] { make_params(b.schema(), {{"big", 10}}); }), "out of range [1, 9]"));
  }
  SUBCASE("an expression not yet evaluated is reported, not guessed") {
    const Params p(json{{"step", "1/n"}});
    std::vector<std::string> unresolved;
    const Opts o = b.read(p, &unresolved);
    CHECK(unresolved == std::vector<std::string>{"step"});
    CHECK(o.step == 0.5);
    CHECK_THROWS_AS(b.read(p), ParamError);
  }
}

TEST_CASE("binder: validate() holds the rules across parameters") {
  const auto& b = binder_of<Opts>();
  CHECK(validation_error(b.read(make_params(b.schema(), {{"order", "cyclic"}, {"M", 10}}))).empty());
  CHECK(validation_error(b.read(make_params(b.schema(), {{"order", "cyclic"}, {"M", 11}}))) ==
        "order: cyclic needs M <= 10");
  CHECK_THROWS_WITH_AS(read_options<Opts>(make_params(b.schema(), {{"order", "cyclic"}})),
                       "order: cyclic needs M <= 10", ParamError);
}

namespace {

struct Threads {
  int threads = 1;
  static void bind(Binder<Threads>& b) { b.field(&Threads::threads, "threads", "threads").range(1, 64).named("auto", 12); }
};

}  // namespace

TEST_CASE("binder: an integer that also accepts a name (threads: auto)") {
  const auto& b = binder_of<Threads>();
  const auto s = b.schema();
  CHECK(spec(s, "threads").type == ParamType::integer);
  CHECK(spec(s, "threads").named == json{{"auto", 12}});
  CHECK(spec(s, "threads").default_value == json(1));
  // The configuration keeps the name; the reader and resolve_expressions give its number.
  const Params given = make_params(s, {{"threads", "auto"}});
  CHECK(given.raw()["threads"] == json("auto"));
  CHECK(b.read(given).threads == 12);
  CHECK(resolve_expressions(s, given.raw(), json{{"n", 1}, {"d", 1}, {"K", 2}, {"N", 1}})["threads"] == json(12));
  CHECK(b.read(make_params(s, {{"threads", 3}})).threads == 3);
  // The range bounds numbers; other text is an error that names the accepted forms.
  CHECK(contains(message_of<ConfigError>([&] { make_params(s, {{"threads", 65}}); }), "out of range [1, 64]"));
  CHECK(contains(message_of<ConfigError>([&] { make_params(s, {{"threads", "many"}}); }),
                 "parameter 'threads' expects an integer or auto, got \"many\""));
  CHECK(contains(message_of<ConfigError>([&] { make_params(s, {{"threads", "3 or 4"}}); }), "expects an integer or auto"));
  // The text of an integer is that integer, in the schema and in the reader (a run.json recorded
  // when the parameter was a string is read back by evaluate without the schema).
  CHECK(make_params(s, {{"threads", "3"}}).raw()["threads"] == json(3));
  CHECK(b.read(Params(json{{"threads", "5"}})).threads == 5);
  CHECK_THROWS_AS(b.read(Params(json{{"threads", "5x"}})), ParamError);
  CHECK_THROWS_AS(b.read(Params(json{{"threads", "99999999999"}})), ParamError);
}

namespace {

class OptsSolver final : public Solver {
 public:
  using Options = Opts;
  explicit OptsSolver(const Options& o) : o_(o) {}
  void solve(const Problem&, SolverContext&) override {}
  Options o_;
};

class PlainOracle final : public Oracle {
 public:
  static std::vector<std::string> interfaces() { return {"plain"}; }
};

}  // namespace

TEST_CASE("plugin description: schema, rules, accepts and interfaces are data") {
  const PluginDescription d = describe_solver<OptsSolver>("opts", "1.0.0", "test", {"structured"});
  CHECK(d.kind == Kind::solver);
  CHECK(d.accepts == std::vector<std::string>{"structured"});
  CHECK(d.params.size() == binder_of<Opts>().schema().size());
  CHECK(d.validate(make_params(d.params, {{"order", "cyclic"}})) == "order: cyclic needs M <= 10");
  CHECK(d.validate(make_params(d.params, {{"order", "uniform"}})).empty());
  // With an expression left, the rules wait for the evaluated values (checked at creation).
  json unevaluated = make_params(d.params, {{"order", "cyclic"}}).raw();
  unevaluated["step"] = "1/n";
  CHECK(d.validate(Params(unevaluated)).empty());
  CHECK_THROWS_WITH_AS(d.create(make_params(d.params, {{"order", "cyclic"}})), "opts: order: cyclic needs M <= 10",
                       ParamError);
  auto obj = d.create(make_params(d.params, {{"M", 4}}));
  auto* s = dynamic_cast<OptsSolver*>(obj.get());
  REQUIRE(s);
  CHECK(s->o_.M == 4);

  const PluginDescription o = describe_oracle<PlainOracle>("plain", "1.0.0", "test");
  CHECK(o.kind == Kind::oracle);
  CHECK(o.interfaces == std::vector<std::string>{"plain"});
  CHECK(o.params.empty());
  CHECK(o.validate(Params()).empty());
  CHECK(dynamic_cast<PlainOracle*>(o.create(Params()).get()));
}
