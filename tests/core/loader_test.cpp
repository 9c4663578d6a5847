// Plugin loading: good plugins, and clear errors for broken ones.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include "cli_support.hpp"
#include "plugins/loader.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace fs = std::filesystem;

TEST_CASE("a plugin built for another API version is refused, naming both versions") {
  const std::string path = std::string(DUALGAP_TEST_BROKEN_PLUGIN_DIR) + "/dualgap_bad_api.so";
  CHECK_THROWS_WITH_AS(load_plugin_file(path),
                       (path + ": plugin 'future_solver' was built for dualgap plugin API version " +
                        std::to_string(kApiVersion + 998) + ", but this dualgap has API version " +
                        std::to_string(kApiVersion) + ": rebuild the plugin against this dualgap")
                           .c_str(),
                       PluginLoadError);
}

TEST_CASE("a plugin built against plugin API 1 is refused by API 9, naming both") {
  static_assert(kApiVersion == 9);
  const std::string path = std::string(DUALGAP_TEST_BROKEN_PLUGIN_DIR) + "/dualgap_api_v1.so";
  CHECK_THROWS_WITH_AS(load_plugin_file(path),
                       (path + ": plugin 'api1_solver' was built for dualgap plugin API version 1, but this dualgap "
                               "has API version 9: rebuild the plugin against this dualgap")
                           .c_str(),
                       PluginLoadError);
}

TEST_CASE("a library without the symbol, a non-library, a missing file") {
  const std::string nosym = std::string(DUALGAP_TEST_BROKEN_PLUGIN_DIR) + "/dualgap_no_symbol.so";
  CHECK_THROWS_WITH_AS(load_plugin_file(nosym), doctest::Contains("not a dualgap plugin: the library exports no 'dualgap_plugin' symbol"),
                       PluginLoadError);
  TempDir dir;
  auto text = dir.path / "fake.so";
  write_text(text, "this is not a library\n");
  CHECK_THROWS_WITH_AS(load_plugin_file(text.string()),
                       (text.string() + ": not a plugin: the file is not a shared library (no ELF header)").c_str(),
                       PluginLoadError);
  CHECK_THROWS_WITH_AS(load_plugin_file((dir.path / "none.so").string()), doctest::Contains("no such file"), PluginLoadError);
}

TEST_CASE("scanning a folder keeps good plugins and reports broken ones; objects keep their library") {
  PluginRegistry reg;
  reg.scan({DUALGAP_TEST_BROKEN_PLUGIN_DIR});
  REQUIRE(reg.find(Kind::solver, "test_solver") != nullptr);
  CHECK(reg.problems().size() == 3);  // bad_api, api_v1 and no_symbol
  std::shared_ptr<Solver> s;
  {
    PluginRegistry local;
    local.scan({DUALGAP_TEST_BROKEN_PLUGIN_DIR});
    s = local.create<Solver>(Kind::solver, "test_solver", make_params(local.get(Kind::solver, "test_solver").description->params));
  }  // the registry (and its handles) are gone; the object still holds the library
  CHECK(s->objective(Problem{}).family == "least_squares");  // runs the plugin's code
  CHECK_THROWS_WITH(reg.get(Kind::oracle, "nope"), doctest::Contains("no oracle plugin named 'nope'"));
}

TEST_CASE("a deferred scan loads nothing until the first query, then reports its problems once, first") {
  PluginRegistry reg;
  reg.scan_on_first_query({DUALGAP_TEST_BROKEN_PLUGIN_DIR});
  int reports = 0;
  std::size_t problems_seen = 0;
  reg.when_scanned([&](const PluginRegistry& r) {
    ++reports;
    problems_seen = r.problems().size();  // a query from the report does not scan again
  });
  CHECK(reports == 0);
  CHECK(reg.find(Kind::solver, "test_solver") != nullptr);
  CHECK(reports == 1);
  CHECK(problems_seen == 3);  // bad_api, api_v1 and no_symbol
  CHECK(reg.names(Kind::solver) == std::vector<std::string>{"test_solver"});
  CHECK(reports == 1);
  int late = 0;
  reg.when_scanned([&](const PluginRegistry&) { ++late; });  // after the scan: at once
  CHECK(late == 1);
}

TEST_CASE("dualgap plugins lists out-of-tree plugins from DUALGAP_PLUGIN_PATH and reports broken files") {
  auto r = run_cli("plugins", "DUALGAP_PLUGIN_PATH=\"" DUALGAP_TEST_BROKEN_PLUGIN_DIR "\"");
  CHECK(r.code == 0);
  CHECK(r.output.find("test_solver") != std::string::npos);
  CHECK(r.output.find("bcfw") != std::string::npos);
  CHECK(r.output.find("warning: ") != std::string::npos);
  CHECK(r.output.find("dualgap_bad_api.so: plugin 'future_solver' was built for dualgap plugin API version") != std::string::npos);
  auto d = run_cli("describe test_solver", "DUALGAP_PLUGIN_PATH=\"" DUALGAP_TEST_BROKEN_PLUGIN_DIR "\"");
  CHECK(d.code == 0);
  CHECK(d.output.find("behaviour          choice         default \"converge\" one of {converge, crash, throw, loop, nan, budget, lie_column, lie_dual, lie_model, lie_shape}") !=
        std::string::npos);
  CHECK(run_cli("describe no_such_plugin").code == 2);
  CHECK(run_cli("frobnicate").code == 2);
  CHECK(run_cli("run --help").code == 0);
}

// --- Libraries that go wrong while they load (plugins/load_fault.cpp): discovery loads every
// file in a child process first, so a crash, an exit() or a hang names the file and the command
// goes on with the good plugins; the entry symbol's type is read from the ELF file before dlopen.

namespace {

const std::string kFaulty = DUALGAP_TEST_FAULTY_PLUGIN_DIR;

std::string fault_file(const std::string& f) { return kFaulty + "/dualgap_fault_" + f + ".so"; }

/// The problem reported for `file`, or "" when there is none.
std::string problem_of(const PluginRegistry& reg, const std::string& file) {
  for (const auto& p : reg.problems())
    if (p.rfind(file + ": ", 0) == 0) return p;
  return "";
}

}  // namespace

TEST_CASE("a library that crashes, exits or throws while it loads is named, and the good plugins load") {
  PluginRegistry reg;
  reg.scan({kFaulty, DUALGAP_TEST_BROKEN_PLUGIN_DIR});
  REQUIRE(reg.find(Kind::solver, "test_solver") != nullptr);  // after the faulty folder: still loaded
  CHECK(reg.plugins().size() == 1);
  const std::string loading = ": not loaded: loading it ";
  CHECK(problem_of(reg, fault_file("crash")).find(loading + "crashed (signal " + std::to_string(SIGSEGV)) != std::string::npos);
  CHECK(problem_of(reg, fault_file("abort")).find(loading + "crashed (signal " + std::to_string(SIGABRT) +
                                                   ", Aborted); its last output: load_fault: no licence found, giving up") !=
        std::string::npos);
  CHECK(problem_of(reg, fault_file("exit")).find(loading + "called exit()") != std::string::npos);
  // An exception out of a constructor: it reaches dlopen's caller, which names it; the child,
  // whose dynamic loader it may have left in an unknown state, loads nothing more. Under
  // AddressSanitizer the exception cannot unwind through the sanitizer's dlopen interceptor, so
  // terminate() aborts the child: then its last output names the exception. Either way the
  // message names the file and the exception's text.
  const std::string thrown = problem_of(reg, fault_file("throw"));
  CHECK(thrown.rfind(fault_file("throw") + loading, 0) == 0);
  CHECK((thrown.find("threw std::runtime_error: load_fault: the model file cannot be opened") != std::string::npos ||
         thrown.find("crashed (signal " + std::to_string(SIGABRT) + ", Aborted); its last output: terminate called "
                     "after throwing an instance of 'std::runtime_error'") != std::string::npos));
  CHECK(thrown.find("load_fault: the model file cannot be opened") != std::string::npos);
  // The entry symbol, checked in the file (nothing of these runs) or, for its value, after dlopen.
  CHECK(problem_of(reg, fault_file("function_symbol"))
            .find("not a dualgap plugin: 'dualgap_plugin' is a function (ELF symbol type FUNC), not the data object") !=
        std::string::npos);
  CHECK(problem_of(reg, fault_file("small_object")).find("'dualgap_plugin' is a data object of 4 bytes, expected 8") !=
        std::string::npos);
  CHECK(problem_of(reg, fault_file("null_pointer")).find("not the address of a function of the library") != std::string::npos);
  CHECK(problem_of(reg, fault_file("data_pointer")).find("not the address of a function of the library") != std::string::npos);
  // No entry symbol: never opened, so its crashing constructor never runs.
  CHECK(problem_of(reg, fault_file("crash_no_symbol")).find("the library exports no 'dualgap_plugin' symbol") !=
        std::string::npos);
  CHECK(reg.problems().size() == 9 + 3);  // the faults, and bad_api, api_v1, no_symbol
}

TEST_CASE("a library that never finishes loading is stopped after the time limit and named") {
  PluginRegistry reg;
  const std::string hang = std::string(DUALGAP_TEST_HANGING_PLUGIN_DIR) + "/dualgap_fault_hang.so";
  reg.scan({DUALGAP_TEST_HANGING_PLUGIN_DIR, DUALGAP_TEST_BROKEN_PLUGIN_DIR}, ProbeOptions{1.0});
  CHECK(reg.find(Kind::solver, "test_solver") != nullptr);
  CHECK(problem_of(reg, hang).find(": not loaded: loading it did not finish within 1 s") != std::string::npos);
}

TEST_CASE("probe_in_child: one child for a clean scan; after a fault, a new child goes on after the culprit") {
  // The child's pid tells the children apart: each file records the pid that loaded it.
  TempDir t;
  auto mark = [&](const std::string& f) { write_text(t.path / (f + "." + std::to_string(::getpid())), ""); };
  auto pids = [&](const std::string& f) {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(t.path))
      if (e.path().stem() == f) out.insert(e.path().extension().string());
    return out;
  };
  const std::vector<std::string> files = {"a", "b", "c", "d", "e", "f", "g"};
  const ProbeReport rep = probe_in_child(
      files,
      [&](const std::string& f) -> std::string {
        mark(f);
        if (f == "b") throw std::runtime_error("threw at b");  // the file's fault: this child ends
        if (f == "c") {
          std::printf("c: about to fail\n");
          std::fflush(stdout);
          std::raise(SIGSEGV);
        }
        if (f == "e") std::exit(3);
        if (f == "f")
          for (;;) ::pause();
        return "answer of " + f + "\n\tand a tab";  // made one printable line
      },
      ProbeOptions{1.0});
  REQUIRE(rep.not_probed.empty());
  REQUIRE(rep.problems.size() == files.size());
  CHECK(rep.problems[0].empty());
  CHECK(rep.problems[1] == "loading it threw at b");
  CHECK(rep.problems[2] == "loading it crashed (signal 11, Segmentation fault); its last output: c: about to fail");
  CHECK(rep.problems[3].empty());
  CHECK(rep.problems[4] == "loading it called exit()");
  CHECK(rep.problems[5] == "loading it did not finish within 1 s");
  CHECK(rep.problems[6].empty());
  // What the child answered for the files it came back from, across its restarts.
  CHECK(rep.answers[0] == "answer of a\\x0A\tand a tab");
  CHECK(rep.answers[3] == "answer of d\\x0A\tand a tab");
  CHECK(rep.answers[6] == "answer of g\\x0A\tand a tab");
  CHECK(rep.answers[1].empty());
  CHECK(rep.answers[2].empty());
  // a and b in the first child; c in the second; d and e in the third; f in the fourth; g in
  // the fifth.
  CHECK(pids("a") == pids("b"));
  CHECK(pids("c") != pids("b"));
  CHECK(pids("d") == pids("e"));
  CHECK(pids("d") != pids("c"));
  CHECK(pids("f") != pids("e"));
  CHECK(pids("g") != pids("f"));
  CHECK(pids("a").count("." + std::to_string(::getpid())) == 0);  // never in this process
  for (const auto& f : files) CHECK(pids(f).size() == 1);

  // Nothing wrong: one child for every file.
  TempDir t2;
  const ProbeReport clean = probe_in_child(files, [&](const std::string& f) {
    write_text(t2.path / (f + "." + std::to_string(::getpid())), "");
    return std::string();
  });
  std::set<std::string> children;
  for (const auto& e : fs::directory_iterator(t2.path)) children.insert(e.path().extension().string());
  CHECK(children.size() == 1);
  CHECK(std::all_of(clean.problems.begin(), clean.problems.end(), [](const std::string& p) { return p.empty(); }));
}

TEST_CASE("loading a crashing or exiting library in this process still names it (the guard behind discovery)") {
  // In a forked child of the test, as it ends the process.
  auto in_child = [](const std::string& file) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(fds[1], STDERR_FILENO);
      // The handler the guard hands the signal back to: the default (not doctest's report).
      for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(sig, SIG_DFL);
      try {
        load_plugin_file(file);
      } catch (...) {
      }
      ::_exit(42);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t k; (k = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(k));
    ::close(fds[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    return std::make_pair(st, out);
  };
  {
    const auto [st, output] = in_child(fault_file("crash"));
    const std::string& out = output;  // (clang 14 captures no structured binding in INFO's lambda)
    INFO(out);
    CHECK(out.find("dualgap: a crash (signal 11) while loading the plugin file " + fault_file("crash")) != std::string::npos);
    CHECK(WIFSIGNALED(st));  // then ended by the signal, as it would have been without the guard
    CHECK(WTERMSIG(st) == SIGSEGV);
  }
  {
    const auto [st, output] = in_child(fault_file("exit"));
    const std::string& out = output;  // (clang 14 captures no structured binding in INFO's lambda)
    INFO(out);
    CHECK(out.find("dualgap: the plugin file " + fault_file("exit") + " called exit() while loading; stopping with exit status 1") !=
          std::string::npos);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 1);  // not the library's 0
  }
}

TEST_CASE("a command that fails before it needs a plugin loads none; one that needs them names the faulty files") {
  const std::string path = "DUALGAP_PLUGIN_PATH=\"" + kFaulty + "\"";
  TempDir dir;
  const std::string bad = (dir.path / "bad.yaml").string();
  write_text(bad, "name: x\nsolvers: [\n");
  auto r = run_cli("validate " + bad, path);
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(r.output.find("bad.yaml:") != std::string::npos);
  CHECK(r.output.find("warning:") == std::string::npos);  // the faulty libraries were never probed
  auto q = run_cli("validate " DUALGAP_TEST_SOURCE_DIR "/configs/quickstart.yaml --no-data", path);
  INFO(q.output);
  CHECK(q.code == 0);
  CHECK(q.output.find("warning: " + fault_file("crash") + ": not ") != std::string::npos);
}

TEST_CASE("a command loads only the plugins it uses into its own process (the discovery process loads them all)") {
  // The dynamic loader's own log (LD_DEBUG) of this process: the discovery child's output is
  // captured by the probe and shown only when a file fails.
  auto r = run_cli("validate " DUALGAP_TEST_SOURCE_DIR "/configs/quickstart.yaml --no-data", "LD_DEBUG=files");
  REQUIRE(r.code == 0);
  std::set<std::string> loaded;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    if (line.find("dynamically loaded by") == std::string::npos) continue;
    const auto so = line.find(".so");
    const auto b = line.rfind("dualgap_", so);
    if (so != std::string::npos && b != std::string::npos) loaded.insert(line.substr(b, so + 3 - b));
  }
  INFO(r.output.substr(0, 3000));
  CHECK(loaded == std::set<std::string>{"dualgap_bcfw.so", "dualgap_multiclass.so", "dualgap_synthetic_multiclass.so"});
  auto all = run_cli("plugins", "LD_DEBUG=files");
  CHECK(all.code == 0);
  CHECK(all.output.find("dualgap_ssg.so [0];  dynamically loaded by") != std::string::npos);
}

TEST_CASE("dualgap plugins, validate and describe go on past faulty libraries and name each") {
  const std::string path = "DUALGAP_PLUGIN_PATH=\"" + kFaulty + ":" DUALGAP_TEST_BROKEN_PLUGIN_DIR "\"";
  auto r = run_cli("plugins", path);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("test_solver") != std::string::npos);
  CHECK(r.output.find("bcfw") != std::string::npos);
  for (const char* f : {"crash", "abort", "exit", "throw", "function_symbol", "small_object", "null_pointer", "data_pointer",
                        "crash_no_symbol"})
    CHECK(r.output.find("warning: " + fault_file(f) + ": not ") != std::string::npos);
  auto j = run_cli("plugins --json 2>/dev/null; echo", path);  // stdout only: the 2>&1 is echo's
  CHECK(json::parse(j.output).is_array());  // nothing the libraries printed while loading
  auto d = run_cli("describe test_solver", path);
  CHECK(d.code == 0);
  CHECK(d.output.find("file: " DUALGAP_TEST_BROKEN_PLUGIN_DIR "/dualgap_test_solver.so") != std::string::npos);
}

TEST_CASE("plugins shows each plugin's file") {
  auto r = run_cli("plugins --kind solver", "DUALGAP_PLUGIN_PATH=\"" DUALGAP_TEST_BROKEN_PLUGIN_DIR "\"");
  CHECK(r.code == 0);
  CHECK(r.output.find("file: " DUALGAP_TEST_BROKEN_PLUGIN_DIR "/dualgap_test_solver.so") != std::string::npos);
  CHECK(run_cli("plugins --help").output.find("--paths") != std::string::npos);
}

TEST_CASE("describe shows the interfaces a plugin needs or offers" *
          dualgap::test::needs_plugins({"dualgap_bcfw.so", "dualgap_multiclass.so"})) {
  REQUIRE(registry().find(Kind::solver, "bcfw"));
  REQUIRE(registry().find(Kind::oracle, "multiclass"));
  auto s = run_cli("describe bcfw");
  INFO(s.output);
  CHECK(s.output.find("needs: an oracle offering one of [structured]") != std::string::npos);
  CHECK(s.output.find("oracles that do: ") != std::string::npos);
  CHECK(s.output.find("multiclass") != std::string::npos);
  auto o = run_cli("describe multiclass --kind oracle");
  INFO(o.output);
  CHECK(o.output.find("offers: [structured]") != std::string::npos);
  CHECK(o.output.find("solvers that accept it: ") != std::string::npos);
  CHECK(o.output.find("bcfw") != std::string::npos);
}

TEST_CASE("an unknown plugin that is in the source tree says how to build it") {
  TempDir src, build;
  write_text(src.path / "plugins" / "solver" / "my_solver" / "CMakeLists.txt", "dualgap_add_plugin(my_solver my_solver.cpp)\n");
  CHECK(unbuilt_plugin_hint("my_solver", Kind::solver, src.str(), build.str()) ==
        "the source tree has " + (src.path / "plugins" / "solver" / "my_solver").string() +
            " but its plugin is not built: cmake --build " + build.str() + " --target dualgap_my_solver");
  CHECK(unbuilt_plugin_hint("my_solver", std::nullopt, src.str(), build.str()).find("--target dualgap_my_solver") !=
        std::string::npos);
  CHECK(unbuilt_plugin_hint("my_solver", Kind::oracle, src.str(), build.str()).empty());  // another kind
  CHECK(unbuilt_plugin_hint("other", Kind::solver, src.str(), build.str()).empty());
  CHECK(unbuilt_plugin_hint("../solver/my_solver", std::nullopt, src.str(), build.str()).empty());  // names only
  // An installed dualgap (its prefix given) sees the plugins of its prefix: build, then install there.
  const std::string prefix = (build.path / "prefix").string();
  CHECK(unbuilt_plugin_hint("my_solver", Kind::solver, src.str(), build.str(), prefix) ==
        "the source tree has " + (src.path / "plugins" / "solver" / "my_solver").string() +
            " but its plugin is not built: cmake --build " + build.str() +
            " --target dualgap_my_solver, then cmake --install " + build.str() + " --component plugins --prefix " + prefix);
  // The real tree: every built-in is built here, so its hint names nothing when one is missing
  // from the plugin path only because another folder is asked for.
  CHECK(unbuilt_plugin_hint("no_such_plugin_anywhere", std::nullopt).empty());
}
