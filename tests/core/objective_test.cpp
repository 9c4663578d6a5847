// The core owns the objective. A solver that reports numbers of its own cannot
// change what is recorded; recorded primals equal an independent numpy recomputation from the
// saved iterates; solver-parameter sweeps label their series; evaluate re-scores saved iterates.
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "cli_support.hpp"

using namespace dualgap;
using namespace dualgap::test;
namespace fs = std::filesystem;

namespace {
const std::string kBrokenPlugins = "DUALGAP_PLUGIN_PATH=\"" DUALGAP_TEST_BROKEN_PLUGIN_DIR "\"";

std::string python() { return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

/// numpy's recomputation: "<iterates> <max relative difference> [<test error on test_file>]".
std::string recompute_raw(const fs::path& run_dir, const fs::path& train, const std::string& test_file = "") {
  const std::string cmd = python() + " " DUALGAP_TEST_SOURCE_DIR "/tests/core/recompute_primal.py \"" + run_dir.string() +
                          "\" \"" + train.string() + "\" " + (test_file.empty() ? "" : "\"" + test_file + "\"") + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  REQUIRE(f);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, f)) out += buf;
  const int rc = pclose(f);
  INFO(out);
  REQUIRE(rc == 0);
  return out;
}
std::pair<int, double> recompute(const fs::path& run_dir, const fs::path& train) {
  std::istringstream in(recompute_raw(run_dir, train));
  int count = 0;
  double worst = 1;
  in >> count >> worst;
  return {count, worst};
}
}  // namespace

TEST_CASE("a solver that reports false numbers by every means the API leaves open changes nothing recorded") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             "name: liars\n"
             "data: {plugin: synthetic_multiclass, n: 30, d: 3, K: 3}\n"
             "oracle: {plugin: multiclass}\n"
             "solvers:\n"
             "  - {name: column, plugin: test_solver, params: {behaviour: lie_column}}\n"
             "  - {name: dual,   plugin: test_solver, params: {behaviour: lie_dual}}\n"
             "  - {name: model,  plugin: test_solver, params: {behaviour: lie_model}}\n"
             "  - {name: shape,  plugin: test_solver, params: {behaviour: lie_shape}}\n"
             "stop: {max_passes: 5, deadline: 30}\n");
  auto r = run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string(), kBrokenPlugins);
  INFO(r.output);
  CHECK(r.code == 1);
  const std::map<std::string, std::string> why = {{"column", "computed by the core"},
                                                   {"dual", "dual certificate is not valid"},
                                                   {"model", "exactly one model"},
                                                   {"shape", "entries; the oracle's joint feature map has"}};
  for (auto& [name, message] : why) {
    auto j = read_json(dir.path / "res" / "liars" / (name + "__r0") / "run.json");
    const std::string& run = name;  // (clang 14 captures no structured binding)
    INFO(run << ": " << j["message"]);
    CHECK(j["status"] == "failed");
    CHECK(j["message"].get<std::string>().find(message) != std::string::npos);
    // The one recorded row is the core's score of w = 0: P(0) = mean max_y Delta = 1, D = 0.
    REQUIRE(j["curve"]["primal"].size() == 1);
    CHECK(j["curve"]["primal"][0] == 1.0);
    CHECK(j["curve"]["dual"][0] == 0.0);
    CHECK(j["objective"]["family"] == "ssvm");
  }
}

TEST_CASE("recorded primals equal numpy's recomputation from the saved iterates; dual <= primal") {
  TempDir dir;
  write_blobs(dir.path / "train.txt", 60, 5, 3, 1);
  write_blobs(dir.path / "test.txt", 30, 5, 3, 2);
  write_text(dir.path / "exp.yaml",
             "name: fam\n"
             "data: {plugin: libsvm, train: " + (dir.path / "train.txt").string() + ", test: " +
                 (dir.path / "test.txt").string() + ", dense: true}\n"
             "oracle: {plugin: multiclass}\n"
             "problem: {lambda: 0.05}\n"
             "solvers:\n"
             "  - {name: BCFW, plugin: bcfw}\n"
             "  - {name: MP-BCFW-avg, plugin: bcfw, params: {multiplane: true, averaging: true}}\n"
             "stop: {max_passes: 6}\n"
             "record: {iterates: all}\n");
  write_text(dir.path / "sparse.yaml",
             "name: fam\n"
             "data: {plugin: libsvm, train: " + (dir.path / "train.txt").string() + ", test: " +
                 (dir.path / "test.txt").string() + ", dense: true}\n"
             "oracle: {plugin: multiclass_sq_hinge}\n"
             "problem: {lambda: 0.01}\n"
             "solvers:\n"
             "  - {name: BCD, plugin: bcd}\n"
             "  - {name: FISTA, plugin: fista}\n"
             "stop: {max_passes: 6}\n"
             "record: {iterates: all}\n");
  write_text(dir.path / "lsr.yaml",
             "name: fam\n"
             "data: {plugin: libsvm, train: " + (dir.path / "train.txt").string() + ", test: " +
                 (dir.path / "test.txt").string() + ", dense: true}\n"
             "problem: {lambda: 0.1}\n"
             "solvers:\n"
             "  - {name: GLS, plugin: gls}\n"
             "stop: {max_passes: 3}\n"
             "record: {iterates: all}\n");
  write_text(dir.path / "boost.yaml",
             "name: fam\n"
             "data: {plugin: libsvm, train: " + (dir.path / "train.txt").string() + ", test: " +
                 (dir.path / "test.txt").string() + ", dense: true}\n"
             "oracle: {plugin: stumps}\n"
             "solvers:\n"
             "  - {name: CW, plugin: multiboost_cw}\n"
             "stop: {max_passes: 6}\n"
             "record: {iterates: all}\n");
  for (const char* exp : {"exp.yaml", "sparse.yaml", "lsr.yaml", "boost.yaml"}) {
    auto r = run_cli(std::string("run ") + (dir.path / exp).string() + " --no-report --out " + (dir.path / "res").string());
    INFO(exp << ": " << r.output);
    REQUIRE(r.code == 0);
  }
  int runs = 0;
  for (auto& e : fs::directory_iterator(dir.path / "res" / "fam")) {
    if (!fs::exists(e.path() / "run.json")) continue;
    auto j = read_json(e.path() / "run.json");
    INFO(e.path().filename().string());
    const auto& curve = j["curve"];
    REQUIRE(j["iterates"]["saved"].size() == curve["passes"].size());  // all: one per checkpoint
    for (std::size_t i = 0; i < curve["primal"].size(); ++i)
      if (curve["dual"][i].is_number()) CHECK(curve["dual"][i].get<double>() <= curve["primal"][i].get<double>() + 1e-12);
    auto [count, worst] = recompute(e.path(), dir.path / "train.txt");
    CHECK(count == static_cast<int>(curve["passes"].size()));
    CHECK(worst <= 1e-9);
    ++runs;
  }
  CHECK(runs == 6);
}

TEST_CASE("a sweep over one solver's parameter labels its series and does not duplicate the other solvers") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             "name: sw\n"
             "data: {plugin: synthetic_multiclass, n: 20, d: 3, K: 3}\n"
             "oracle: {plugin: multiclass}\n"
             "solvers:\n"
             "  - {name: A, plugin: bcfw}\n"
             "  - {name: B, plugin: bcfw, params: {multiplane: true}}\n"
             "stop: {max_passes: 2}\n"
             "record: {iterates: none}\n"
             "repeats: 2\n"
             "sweep: {solvers.B.params.M: [1, 2]}\n");
  auto r = run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  std::map<std::string, std::string> labels;
  for (auto& e : fs::directory_iterator(dir.path / "res" / "sw"))
    if (fs::exists(e.path() / "run.json")) labels[e.path().filename().string()] = read_json(e.path() / "run.json")["label"];
  const std::map<std::string, std::string> expected = {{"A__r0", "A"},           {"A__r1", "A"},
                                                       {"B__M=1__r0", "B[M=1]"}, {"B__M=1__r1", "B[M=1]"},
                                                       {"B__M=2__r0", "B[M=2]"}, {"B__M=2__r1", "B[M=2]"}};
  CHECK(labels == expected);
  auto m1 = read_json(dir.path / "res" / "sw" / "B__M=1__r0" / "run.json");
  auto m2 = read_json(dir.path / "res" / "sw" / "B__M=2__r0" / "run.json");
  CHECK(m1["config"]["solver"]["params"]["M"] == 1);
  CHECK(m2["config"]["solver"]["params"]["M"] == 2);
  CHECK(m1["group_key"] == m2["group_key"]);  // one problem: two series, not one band
}

TEST_CASE("runs of different objectives on one data set get different objective keys; compare keeps them apart") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             "name: ls\n"
             "data: {plugin: synthetic_multiclass, n: 40, d: 4, K: 3}\n"
             "solvers:\n"
             "  - {name: square, plugin: gls}\n"
             "  - {name: logistic, plugin: gls, params: {link: softmax}}\n"
             "  - {name: calibrated, plugin: calibrated_ls}\n"
             "stop: {max_passes: 3}\n");
  auto r = run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  std::set<std::string> objective_keys, problem_keys;
  for (const char* id : {"square__r0", "logistic__r0", "calibrated__r0"}) {
    auto j = read_json(dir.path / "res" / "ls" / id / "run.json");
    objective_keys.insert(j["objective_key"].get<std::string>());
    problem_keys.insert(j["problem_key"].get<std::string>());
    CHECK(j["objective"]["family"] == "least_squares");
  }
  CHECK(objective_keys.size() == 3);
  CHECK(problem_keys.size() == 1);  // one data set and split: compare separates them by objective
  auto c = run_cli("compare " + (dir.path / "res").string() + " --table");
  INFO(c.output);
  CHECK(c.code == 0);
  CHECK(c.output.find("never measured against one bound") != std::string::npos);
}

TEST_CASE("problem.reference: compare measures suboptimality against a known value or a solver's best primal") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             "name: ref\n"
             "data: {plugin: synthetic_multiclass, n: 40, d: 4, K: 3}\n"
             "problem: {reference: {solver: long}}\n"
             "solvers:\n"
             "  - {name: long, plugin: gls, params: {link: softmax}}\n"
             "  - {name: short, plugin: gls, params: {link: softmax, tol: 1e-3}}\n"
             "stop: {max_passes: 40}\n");
  auto r = run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  auto j = read_json(dir.path / "res" / "ref" / "short__r0" / "run.json");
  CHECK(j["objective"]["reference"]["solver"] == "long");
  CHECK(j["curve"]["dual"][0].is_null());  // logistic: no certified dual
  auto c = run_cli("compare " + (dir.path / "res").string() + " --table --y primal_subopt");
  INFO(c.output);
  CHECK(c.code == 0);
  CHECK(c.output.find("problem.reference: the best primal of solver long") != std::string::npos);
  // A reference naming no solver of the experiment is a configuration error.
  write_text(dir.path / "bad.yaml", "name: ref\n"
                                    "data: {plugin: synthetic_multiclass, n: 40, d: 4, K: 3}\n"
                                    "problem: {reference: {solver: nobody}}\n"
                                    "solvers:\n  - {name: long, plugin: gls}\n"
                                    "stop: {max_passes: 3}\n");
  auto b = run_cli("validate " + (dir.path / "bad.yaml").string());
  CHECK(b.code == 2);
  CHECK(b.output.find("problem.reference.solver 'nobody' is not a solver of this experiment (solvers: long)") !=
        std::string::npos);
}

TEST_CASE("evaluate reproduces the recorded test error from saved iterates and scores another test file") {
  TempDir dir;
  write_blobs(dir.path / "train.txt", 60, 4, 3, 3);
  write_blobs(dir.path / "test.txt", 40, 4, 3, 4);
  write_blobs(dir.path / "other.txt", 25, 4, 3, 5);
  write_text(dir.path / "exp.yaml",
             "name: ev\n"
             "data: {plugin: libsvm, train: " + (dir.path / "train.txt").string() + ", test: " +
                 (dir.path / "test.txt").string() + "}\n"
             "oracle: {plugin: multiclass}\n"
             "solvers:\n  - {name: BCFW, plugin: bcfw}\n"
             "stop: {max_passes: 4}\n");
  REQUIRE(run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string()).code == 0);
  const fs::path run_dir = dir.path / "res" / "ev" / "BCFW__r0";
  auto before = read_json(run_dir / "run.json");
  REQUIRE(before["iterates"]["mode"] == "final");  // the default
  REQUIRE(before["iterates"]["saved"].size() == 1);
  const std::size_t last = before["iterates"]["saved"][0]["row"];

  auto r = run_cli("evaluate " + run_dir.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  auto same = read_json(run_dir / "run.json");
  CHECK(same["curve"]["test_error@rescored"][last] == before["curve"]["test_error"][last]);
  CHECK(same["curve"]["primal@rescored"][last].get<double>() == doctest::Approx(before["curve"]["primal"][last].get<double>()).epsilon(1e-12));
  CHECK(same["curve"]["test_error@rescored"][0].is_null());  // no iterate saved there

  r = run_cli("evaluate " + run_dir.string() + " --data test=" + (dir.path / "other.txt").string() + " --tag other");
  INFO(r.output);
  REQUIRE(r.code == 0);
  auto other = read_json(run_dir / "run.json");
  const double e = other["curve"]["test_error@other"][last];
  // Independently, with numpy: the 25 examples of other.txt classified by the saved w.
  std::istringstream in(recompute_raw(run_dir, dir.path / "train.txt", (dir.path / "other.txt").string()));
  int count = 0;
  double worst = 1, numpy_error = -1;
  in >> count >> worst >> numpy_error;
  CHECK(e == doctest::Approx(numpy_error).epsilon(1e-12));
  CHECK(other["evaluations"].size() == 2);
  CHECK(other["evaluations"][1]["data"]["test"] == (dir.path / "other.txt").string());
  CHECK(run_cli("evaluate " + run_dir.string() + " --data nosuchkey=1").code == 2);
}
