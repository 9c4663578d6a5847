// Runner: isolation of crashing / looping / diverging runs, resume, atomic results.
#include <chrono>

#include "cli_support.hpp"

using namespace dualgap;
using namespace dualgap::test;
namespace fs = std::filesystem;

namespace {
// handle_segv=0: under AddressSanitizer (the build-asan tree of CI) the crash test's SIGSEGV
// must kill the child by the signal, as in a plain build, not become ASan's report and exit 1.
const std::string kBrokenPluginsNoSegv = "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0\" DUALGAP_PLUGIN_PATH=\"" DUALGAP_TEST_BROKEN_PLUGIN_DIR "\"";

// Rows at every pass: the default schedule would thin them (the test solver's passes cost nothing).
std::string experiment(const std::string& solvers, const std::string& extra = "") {
  return "name: iso\n"
         "data: {plugin: synthetic_multiclass, n: 30, d: 3, K: 2}\n"
         "solvers:\n" + solvers +
         "stop: {max_passes: 20, deadline: 4}\n"
         "record: {every: 1}\n" + extra;
}
}  // namespace

TEST_CASE("a crash, an exception, an endless loop and NaN each get their status; the others finish") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             experiment("  - {name: ok,    plugin: test_solver, params: {behaviour: converge}}\n"
                        "  - {name: crash, plugin: test_solver, params: {behaviour: crash}}\n"
                        "  - {name: throw, plugin: test_solver, params: {behaviour: throw}}\n"
                        "  - {name: loop,  plugin: test_solver, params: {behaviour: loop}}\n"
                        "  - {name: nan,   plugin: test_solver, params: {behaviour: nan}}\n"
                        "  - {name: budget, plugin: test_solver, params: {behaviour: budget}}\n"));
  auto r = run_cli("run " + (dir.path / "exp.yaml").string() + " --jobs 2 --no-report --out " + (dir.path / "res").string(),
                   kBrokenPluginsNoSegv);
  INFO(r.output);
  CHECK(r.code == 1);  // some runs failed
  auto status = [&](const std::string& id) {
    return read_json(dir.path / "res" / "iso" / id / "run.json");
  };
  CHECK(status("ok__r0")["status"] == "done");
  auto crash = status("crash__r0");
  CHECK(crash["status"] == "failed");
  CHECK(crash["message"].get<std::string>().find("signal 11") != std::string::npos);
  CHECK(crash["curve"]["passes"].size() == 2);  // the partial curve is kept (passes 0 and 1)
  auto thr = status("throw__r0");
  CHECK(thr["status"] == "failed");
  CHECK(thr["message"] == "test solver threw on purpose");
  auto loop = status("loop__r0");
  CHECK(loop["status"] == "timeout");
  CHECK(loop["curve"]["passes"].size() == 2);
  CHECK(status("nan__r0")["status"] == "diverged");
  auto budget = status("budget__r0");
  CHECK(budget["status"] == "budget");
  CHECK(budget["curve"]["passes"].back() == 20.0);
  CHECK(r.output.find("6 runs: 2 finished (1 converged, 1 stopped by a budget), 0 skipped (finished before), 1 diverged, 1 timeout, 2 failed") != std::string::npos);
  for (auto& e : fs::recursive_directory_iterator(dir.path / "res"))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("resume: finished runs are skipped unless --force; a config change reruns") {
  TempDir dir;
  write_text(dir.path / "exp.yaml", experiment("  - {name: ok, plugin: test_solver}\n", "repeats: 2\n"));
  const std::string base = "run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string();
  auto first = run_cli(base, kBrokenPluginsNoSegv);
  REQUIRE(first.code == 0);
  const auto file = dir.path / "res" / "iso" / "ok__r0" / "run.json";
  const auto stamp = fs::last_write_time(file);
  const auto hash = read_json(file)["config_hash"];
  auto second = run_cli(base, kBrokenPluginsNoSegv);
  CHECK(second.code == 0);
  CHECK(second.output.find("[skip] ok__r0") != std::string::npos);
  CHECK(second.output.find("2 skipped") != std::string::npos);
  CHECK(fs::last_write_time(file) == stamp);
  auto changed = run_cli(base + " --set stop.max_passes=5", kBrokenPluginsNoSegv);
  CHECK(changed.output.find("0 skipped") != std::string::npos);
  CHECK(read_json(file)["config_hash"] != hash);
  auto forced = run_cli(base + " --set stop.max_passes=5 --force", kBrokenPluginsNoSegv);
  CHECK(forced.output.find("0 skipped") != std::string::npos);
}

TEST_CASE("resume does not depend on how the experiment file or a data path is spelled") {
  TempDir dir;
  std::string svm;
  for (int i = 0; i < 20; ++i) svm += std::to_string(i % 2) + " 1:" + std::to_string(0.1 * i) + " 2:" + std::to_string(1 - 0.05 * i) + "\n";
  write_text(dir.path / "a.svm", svm);
  write_text(dir.path / "exp.yaml", "name: iso\ndata: {plugin: libsvm, train: a.svm}\nsolvers:\n"
                                    "  - {name: ok, plugin: test_solver}\nstop: {max_passes: 3}\n");
  const std::string cd = "cd \"" + dir.str() + "\" && ";
  auto first = run_cli("run exp.yaml --no-report --out res", cd + kBrokenPluginsNoSegv);
  INFO(first.output);
  REQUIRE(first.code == 0);
  const auto hash = read_json(dir.path / "res" / "iso" / "ok__r0" / "run.json")["config_hash"];
  for (const std::string& spelling : std::vector<std::string>{
           "run ./exp.yaml --no-report --out res", "run " + (dir.path / "exp.yaml").string() + " --no-report --out res",
        "run exp.yaml --no-report --out res --set data.train=./a.svm",
        "run ./exp.yaml --no-report --out res --set data.train=" + (dir.path / "a.svm").string()}) {
    auto again = run_cli(spelling, cd + kBrokenPluginsNoSegv);
    INFO(spelling << "\n" << again.output);
    CHECK(again.output.find("[skip] ok__r0") != std::string::npos);
    CHECK(again.output.find("1 skipped") != std::string::npos);
  }
  CHECK(read_json(dir.path / "res" / "iso" / "ok__r0" / "run.json")["config_hash"] == hash);
  // Another file's bytes under the same name rerun.
  write_text(dir.path / "a.svm", svm + "1 1:0.5 2:0.5\n");
  auto changed = run_cli("run exp.yaml --no-report --out res", cd + kBrokenPluginsNoSegv);
  CHECK(changed.output.find("0 skipped") != std::string::npos);
}

TEST_CASE("validate prints the expanded runs and runs nothing; bad config exits 2") {
  TempDir dir;
  write_text(dir.path / "exp.yaml", experiment("  - {name: ok, plugin: test_solver}\n", "sweep: {stop.max_passes: [1, 2]}\n"));
  auto v = run_cli("validate " + (dir.path / "exp.yaml").string(), kBrokenPluginsNoSegv);
  CHECK(v.code == 0);
  CHECK(v.output.find("valid; 2 runs") != std::string::npos);
  CHECK(!fs::exists("runs/iso"));  // run's default --out
  write_text(dir.path / "bad.yaml", experiment("  - {name: ok, plugin: test_solver, params: {behaviour: dance}}\n"));
  auto b = run_cli("validate " + (dir.path / "bad.yaml").string(), kBrokenPluginsNoSegv);
  CHECK(b.code == 2);
  CHECK(b.output.find("bad.yaml:4:46: solver 'ok' (plugin test_solver): parameter 'behaviour' = 'dance' is not one of: "
                      "converge, crash, throw, loop, nan, budget") != std::string::npos);
}

TEST_CASE("--only runs the matching runs with the seeds of the full experiment; a glob matching nothing exits 2") {
  TempDir dir;
  write_text(dir.path / "exp.yaml", experiment("  - {name: a, plugin: test_solver}\n  - {name: b, plugin: test_solver}\n",
                                               "repeats: 3\n"));
  const std::string exp = (dir.path / "exp.yaml").string();
  auto all = run_cli("run " + exp + " --no-report --out " + (dir.path / "all").string(), kBrokenPluginsNoSegv);
  REQUIRE(all.code == 0);
  auto some = run_cli("run " + exp + " --no-report --only 'b__r[12]' --only a__r2 --out " + (dir.path / "some").string(), kBrokenPluginsNoSegv);
  INFO(some.output);
  REQUIRE(some.code == 0);
  CHECK(some.output.find("3 runs: 3 finished (3 converged, 0 stopped by a budget)") != std::string::npos);
  for (const char* id : {"a__r0", "a__r1", "b__r0"}) CHECK(!fs::exists(dir.path / "some" / "iso" / id));
  for (const char* id : {"a__r2", "b__r1", "b__r2"}) {
    CAPTURE(id);
    const auto one = read_json(dir.path / "some" / "iso" / id / "run.json");
    const auto ref = read_json(dir.path / "all" / "iso" / id / "run.json");
    CHECK(one["config"]["seeds"] == ref["config"]["seeds"]);  // repeat r keeps its data split
    CHECK(one["config_hash"] == ref["config_hash"]);
  }
  auto none = run_cli("validate " + exp + " --only 'c__*'", kBrokenPluginsNoSegv);
  CHECK(none.code == 2);
  CHECK(none.output.find("--only 'c__*' matches no run; the run ids are: a__r0, a__r1, a__r2, b__r0") != std::string::npos);
}

TEST_CASE("data.validation holds out a stratified part of train as the evaluation set and drops the test set") {
  TempDir dir;
  auto yaml = [](const std::string& validation) {
    return "name: val\n"
           "data: {plugin: synthetic_multiclass, n: 40, n_test: 25, d: 3, K: 4" + validation + "}\n"
           "solvers:\n  - {name: a, plugin: test_solver}\n  - {name: b, plugin: test_solver}\n"
           "stop: {max_passes: 2}\n";
  };
  write_text(dir.path / "exp.yaml", yaml(", validation: 0.25"));
  auto r = run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string(), kBrokenPluginsNoSegv);
  INFO(r.output);
  REQUIRE(r.code == 0);
  auto a = read_json(dir.path / "res" / "val" / "a__r0" / "run.json")["data_info"];
  auto b = read_json(dir.path / "res" / "val" / "b__r0" / "run.json")["data_info"];
  CHECK(a["validation"]["fraction"] == 0.25);
  CHECK(a["validation"]["train_examples"] == 30);
  CHECK(a["validation"]["validation_examples"] == 10);
  CHECK(a["validation"]["test_examples_dropped"] == 25);
  CHECK(a["train"]["examples"] == 30);
  CHECK(a["test"]["examples"] == 10);  // the evaluation set is the held-out part, not the test file
  CHECK(a["validation"] == b["validation"]);  // every solver of a repeat sees the same hold-out
  // Without the key the runs are as before (no validation entry, the test set is used).
  write_text(dir.path / "plain.yaml", yaml(""));
  auto p = run_cli("run " + (dir.path / "plain.yaml").string() + " --no-report --out " + (dir.path / "res2").string(), kBrokenPluginsNoSegv);
  REQUIRE(p.code == 0);
  auto plain = read_json(dir.path / "res2" / "val" / "a__r0" / "run.json")["data_info"];
  CHECK(!plain.contains("validation"));
  CHECK(plain["test"]["examples"] == 25);
  // A fraction outside (0, 1) is a configuration error at its line and column.
  write_text(dir.path / "bad.yaml", yaml(", validation: 1.5"));
  auto bad = run_cli("validate " + (dir.path / "bad.yaml").string(), kBrokenPluginsNoSegv);
  CHECK(bad.code == 2);
  CHECK(bad.output.find("bad.yaml:2:") != std::string::npos);
  CHECK(bad.output.find("'validation' must be a number in (0, 1)") != std::string::npos);
}
