// Experiment files: error messages with file:line:column, sweep expansion, --set, seeds.
#include <sys/stat.h>

#include <chrono>
#include <set>

#include "cli_support.hpp"
#include "experiment/config.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace {
const char* kGood = R"(name: t
data:     {plugin: synthetic_multiclass, n: 50, d: 5, K: 3}
oracle:   {plugin: multiclass}
problem:  {lambda: 1/n}
solvers:
  - {name: A, plugin: bcfw}
  - {name: B, plugin: bcfw, params: {averaging: true}}
stop:     {max_passes: 3}
repeats:  2
seed:     7
)";

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  TempDir dir;
  auto path = dir.path / "exp.yaml";
  write_text(path, yaml);
  try {
    expand_experiment(path.string(), ExpandOptions{sets}, plugins());
  } catch (const ConfigError& e) {
    std::string msg = e.what();
    // make the message independent of the temp folder
    auto pos = msg.find(path.string());
    if (pos != std::string::npos) msg.replace(pos, path.string().size(), "exp.yaml");
    return msg;
  }
  return "";
}

std::vector<RunSpec> expand_text(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  TempDir dir;
  auto path = dir.path / "exp.yaml";
  write_text(path, yaml);
  return expand_experiment(path.string(), ExpandOptions{sets}, plugins());
}
}  // namespace

TEST_CASE("a valid experiment expands into solvers x repeats runs") {
  auto runs = expand_text(kGood);
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].run_id == "A__r0");
  CHECK(runs[3].run_id == "B__r1");
  CHECK(runs[1].config["solver"]["params"]["averaging"] == false);
  CHECK(runs[3].config["solver"]["params"]["averaging"] == true);
  CHECK(runs[0].config["problem"]["lambda"] == "1/n");  // evaluated at run time, with n
  CHECK(runs[0].config["stop"]["max_passes"] == 3.0);
}

TEST_CASE("unknown key in plugin parameters: file:line:column and the valid keys") {
  std::string yaml = kGood;
  yaml.replace(yaml.find("averaging: true"), 15, "averagin: true");
  auto msg = error_of(yaml);
  CHECK(msg.rfind("exp.yaml:7:38: solver 'B' (plugin bcfw): unknown key 'averagin' (valid keys: multiplane, averaging,", 0) == 0);
}

TEST_CASE("wrong type, out of range, unknown plugin, unknown top-level key") {
  std::string yaml = kGood;
  yaml.replace(yaml.find("n: 50"), 5, "n: many");
  CHECK(error_of(yaml) ==
        "exp.yaml:2:42: data (plugin synthetic_multiclass): parameter 'n' expects an integer, got \"many\"");

  yaml = kGood;
  yaml.replace(yaml.find("K: 3"), 4, "K: 1");
  CHECK(error_of(yaml) == "exp.yaml:2:55: data (plugin synthetic_multiclass): parameter 'K' = 1 is out of range [2, inf]");

  yaml = kGood;
  yaml.replace(yaml.find("plugin: multiclass"), 18, "plugin: multiclas");
  auto msg = error_of(yaml);
  CHECK(msg.rfind("exp.yaml:3:20: unknown oracle plugin 'multiclas' (available: ", 0) == 0);
  CHECK(msg.find("multiclass") != std::string::npos);

  CHECK(error_of(std::string(kGood) + "stopp: {}\n") ==
        "exp.yaml:11:1: unknown key 'stopp' (valid keys: data, description, executor, features, name, oracle, problem, record, "
        "repeats, seed, solvers, stop, sweep)");
  CHECK(error_of(std::string(kGood).replace(std::string(kGood).find("max_passes: 3"), 13, "max_pases: 3"))
            .rfind("exp.yaml:8:12: stop: unknown key 'max_pases' (valid keys: max_passes,", 0) == 0);
}

TEST_CASE("expression errors and YAML syntax errors are located") {
  std::string yaml = kGood;
  yaml.replace(yaml.find("1/n"), 3, "1/m");
  CHECK(error_of(yaml).find("exp.yaml:4:12: problem: parameter 'lambda': in expression '1/m' at position 3: unknown variable 'm'") == 0);
  CHECK(error_of("name: [unclosed\n").rfind("exp.yaml:2:1: YAML syntax error", 0) == 0);
}

TEST_CASE("a solver paired with an oracle it cannot use is refused before anything runs") {
  std::string yaml = kGood;
  yaml.replace(yaml.find("oracle:   {plugin: multiclass}\n"), 31, "");
  auto msg = error_of(yaml);
  CHECK(msg.find("solver 'A' (plugin bcfw) needs an oracle offering one of [structured], but the experiment (no oracle) offers []") !=
        std::string::npos);
}

TEST_CASE("sweep expands to the cross product over dotted keys, --set overrides") {
  std::string yaml = std::string(kGood) + "sweep: {problem.lambda: [1/n, 0.1/n], solvers.B.params.N: [5, 6, 7]}\n";
  auto runs = expand_text(yaml);
  // lambdas x repeats for A, lambdas x N values x repeats for B: a sweep key under solvers.B
  // varies B only (A is not duplicated once per N).
  CHECK(runs.size() == 2 * 2 + 2 * 3 * 2);
  std::set<std::string> ids;
  for (auto& r : runs) ids.insert(r.run_id);
  CHECK(ids.size() == runs.size());
  CHECK(ids.count("B__lambda=0.1_n__N=7__r1") == 1);
  for (auto& r : runs) {
    if (r.solver_name == "B") CHECK(r.config["solver"]["params"]["N"] == r.sweep_point["solvers.B.params.N"]);
    if (r.solver_name == "B") CHECK(r.label == "B[N=" + r.sweep_point["solvers.B.params.N"].dump() + "]");
    if (r.solver_name == "A") CHECK((r.label == "A" && !r.sweep_point.contains("solvers.B.params.N")));
  }

  auto over = expand_text(kGood, {"stop.max_passes=9", "solvers.0.params.M=3", "repeats=1"});
  REQUIRE(over.size() == 2);
  CHECK(over[0].config["stop"]["max_passes"] == 9.0);
  CHECK(over[0].config["solver"]["params"]["M"] == 3);
  CHECK(error_of(kGood, {"solvers.C.params.M=3"}) == "--set 'solvers.C.params.M=3': no list item named 'C' in 'solvers.C.params.M'");
  CHECK(error_of(kGood, {"stop.max_passes"}).rfind("--set 'stop.max_passes': expected key=value", 0) == 0);

  // A sweep key is a dotted path: --set sweep.<key>=[...] replaces (or adds) that key.
  auto narrowed = expand_text(yaml, {"sweep.problem.lambda=[1/n]"});
  CHECK(narrowed.size() == 1 * 2 + 1 * 3 * 2);
  for (auto& r : narrowed) CHECK(r.sweep_point["problem.lambda"] == "1/n");
  auto added = expand_text(kGood, {"sweep.stop.max_passes=[1, 2, 3]"});
  CHECK(added.size() == 3 * 2 * 2);
  CHECK(error_of(yaml, {"sweep.problem.lambda=[]"}).find("must be a non-empty list") != std::string::npos);
}

TEST_CASE("seeds: one data and feature seed per repeat for every solver, own solver streams") {
  auto runs = expand_text(kGood);
  REQUIRE(runs.size() == 4);
  // runs: A r0, A r1, B r0, B r1
  CHECK(runs[0].config["seeds"]["data"] == runs[2].config["seeds"]["data"]);
  CHECK(runs[0].config["seeds"]["features"] == runs[2].config["seeds"]["features"]);
  CHECK(runs[0].config["seeds"]["data"] != runs[1].config["seeds"]["data"]);
  CHECK(runs[0].config["seeds"]["solver"] != runs[2].config["seeds"]["solver"]);
  CHECK(runs[0].problem_key == runs[2].problem_key);
  CHECK(runs[0].problem_key != runs[1].problem_key);
  CHECK(runs[0].group_key == runs[1].group_key);
  // deterministic
  auto again = expand_text(kGood);
  CHECK(again[3].config["seeds"] == runs[3].config["seeds"]);
  auto other = expand_text(std::string(kGood).replace(std::string(kGood).find("seed:     7"), 11, "seed:     8"));
  CHECK(other[0].config["seeds"]["data"] != runs[0].config["seeds"]["data"]);
}

TEST_CASE("environment variables expand; a missing DUALGAP_DATA says what to set") {
  ::setenv("DUALGAP_TEST_N", "40", 1);
  std::string yaml = kGood;
  yaml.replace(yaml.find("n: 50"), 5, "n: ${DUALGAP_TEST_N}");
  auto runs = expand_text(yaml);
  CHECK(runs[0].config["data"]["params"]["n"] == 40);
  ::unsetenv("DUALGAP_DATA_NOT_SET_X");
  yaml = "name: t\ndata: {plugin: libsvm, train: \"${DUALGAP_DATA_NOT_SET_X}/a\"}\nsolvers: []\n";
  CHECK(error_of(yaml).rfind("exp.yaml:2:31: environment variable DUALGAP_DATA_NOT_SET_X is not set", 0) == 0);
}

TEST_CASE("expressions") {
  json vars = {{"n", 200.0}, {"d", 10.0}, {"K", 4.0}, {"N", 300.0}};
  CHECK(evaluate_expression("1/n", vars) == doctest::Approx(0.005));
  CHECK(evaluate_expression("0.1 / n", vars) == doctest::Approx(0.0005));
  CHECK(evaluate_expression("(n-1)*K", vars) == doctest::Approx(796));
  CHECK(evaluate_expression("2^10", vars) == doctest::Approx(1024));
  CHECK(evaluate_expression("1e-3", vars) == doctest::Approx(0.001));
  CHECK(evaluate_expression("-2*-3", vars) == doctest::Approx(6));
  CHECK_THROWS_WITH_AS(evaluate_expression("1/", vars),
                       doctest::Contains("at position 3: expected a number or a variable"), ParamError);
  CHECK_THROWS_AS(evaluate_expression("1/0", vars), ParamError);
}

TEST_CASE("a missing data file is reported at validation, naming the file and DUALGAP_DATA") {
  std::string yaml = "name: t\ndata: {plugin: libsvm, train: /nonexistent/dualgap/sector.scale.bz2}\n"
                     "oracle: {plugin: multiclass}\nsolvers: [{name: A, plugin: bcfw}]\n";
  auto msg = error_of(yaml);
  CHECK(msg.rfind("exp.yaml:2:24: data (plugin libsvm): parameter 'train': file not found: "
                  "/nonexistent/dualgap/sector.scale.bz2 (DUALGAP_DATA is ", 0) == 0);
  CHECK(msg.find("shared/data/README.md") != std::string::npos);
}

TEST_CASE("YAML is measured before it is built: an alias bomb, a deep chain, a cycle, a FIFO") {
  // Nine levels of ten aliases: 10^9 nodes once expanded, refused at the alias that crosses the
  // budget, before any node is built.
  std::string bomb = "name: t\ndescription:\n  a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "  a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ",*a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of(bomb + (kGood + 8));  // kGood without its name line
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK(msg.rfind("exp.yaml:7:", 0) == 0);
  CHECK(msg.find("*a3 stands for 11111 nodes, which takes the document past 20000 nodes") != std::string::npos);
  // The same through --set.
  CHECK(error_of(kGood, {"description=[&a [1,1,1,1,1,1,1,1,1,1], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], "
                         "&c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], "
                         "&e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]]"})
            .find("*d stands for 11111 nodes") != std::string::npos);
  // An alias used ten times for a small node is fine (the count is what is built, not a ban).
  CHECK(error_of(std::string("name: t\ndescription: {a: &a [1, 2], b: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]}\n") +
                 (kGood + 8)) == "");
  std::string chain = "name: t\ndescription:\n  c0: &c0 [x]\n";
  for (int i = 1; i < 120; ++i)
    chain += "  c" + std::to_string(i) + ": &c" + std::to_string(i) + " [*c" + std::to_string(i - 1) + "]\n";
  CHECK(error_of(chain + (kGood + 8)).find("nests the document more than 100 levels deep once aliases are expanded") !=
        std::string::npos);
  CHECK(error_of(std::string("name: t\ndescription: &d [1, *d]\n") + (kGood + 8))
            .find("exp.yaml:2:") != std::string::npos);
  TempDir dir;
  const auto fifo = dir.path / "fifo.yaml";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  try {
    expand_experiment(fifo.string(), {}, plugins());
    CHECK(false);
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("fifo.yaml: not a regular file") != std::string::npos);
  }
}

TEST_CASE("the runs of a sweep are counted before they are expanded; more than the limit needs allow_large") {
  std::string yaml = kGood;  // 2 solvers, repeats 2
  yaml.replace(yaml.find("repeats:  2"), 11, "repeats:  30000");
  // 2 solvers x 30000 repeats = 60000 runs: under the limit (not expanded here: counted only).
  std::string over = yaml + "sweep: {stop.max_passes: [1, 2]}\n";  // 120000 runs
  const std::string msg = error_of(over);
  CHECK(msg.find("exp.yaml: the experiment expands to 120000 runs, more than the 100000") != std::string::npos);
  CHECK(msg.find("the factors: 2 solvers x repeats 30000 (") != std::string::npos);
  CHECK(msg.find(":9:11) x sweep.stop.max_passes 2 values (") != std::string::npos);
  CHECK(msg.find("--allow-large") != std::string::npos);
  // A sweep of one solver's parameter multiplies that solver's runs only: 30000 x 3 + 30000.
  std::string own = yaml + "sweep: {solvers.B.params.averaging: [true, false, true]}\n";
  CHECK(error_of(own).find("expands to 120000 runs") != std::string::npos);
  // Far past 2^64 in the product (300^8): still a count, not an overflow.
  std::string lists;
  for (int k = 0; k < 8; ++k) {
    lists += k ? ", " : "";
    lists += "problem.p" + std::to_string(k) + ": [";
    for (int v = 0; v < 300; ++v) lists += (v ? ",1" : "1");
    lists += "]";
  }
  CHECK(error_of(kGood + std::string("sweep: {") + lists + "}\n").find("expands to more than 2^62 runs") != std::string::npos);
}
