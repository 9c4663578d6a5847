// The installed SDK: `cmake --install` of this build tree into a temporary prefix,
// `dualgap new-plugin` skeletons built out of tree against it with find_package(dualgap), the
// generated doctest run, the plugin listed and described by the installed CLI through
// DUALGAP_PLUGIN_PATH and used in an experiment; a plugin including a core-internal header, or
// nlohmann/json.hpp before dualgap's, does not compile; a plugin stamped with another API version
// is refused with a clear message.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <type_traits>

#include "cli/command.hpp"
#include "scaffold/new_plugin.hpp"
#include "sdk_support.hpp"

namespace fs = std::filesystem;
using namespace dualgap::sdk_test;

namespace {

/// Writes a skeleton with the installed CLI.
Result scaffold(const std::string& kind, const std::string& name, const fs::path& dir) {
  return sdk().cli("new-plugin " + kind + " " + name + " --dir " + q(dir));
}

}  // namespace

TEST_CASE("sdk: cmake --install lays out the CLI, library, public headers, package and templates") {
  const Sdk& s = sdk();
  INFO(s.install_log);
  REQUIRE(s.ok);
  CHECK(fs::exists(s.libdir / "libdualgap.so"));
  CHECK(fs::exists(s.prefix / "include" / "dualgap" / "plugin.hpp"));
  CHECK(fs::exists(s.prefix / "include" / "dualgap" / "oracles" / "structured.hpp"));
  CHECK(fs::exists(s.libdir / "cmake" / "dualgap" / "dualgapConfigVersion.cmake"));
  CHECK(fs::exists(s.libdir / "cmake" / "dualgap" / "DualgapPlugin.cmake"));
  for (const char* kind : {"dataset", "features", "oracle", "solver"})
    CHECK(fs::exists(s.prefix / "share" / "dualgap" / "templates" / kind));
  // Only the public headers are installed: nothing of core/src.
  for (const auto& e : fs::recursive_directory_iterator(s.prefix / "include")) {
    INFO(e.path().string());
    CHECK(e.path().string().find("/include/dualgap") != std::string::npos);
  }
  CHECK(!fs::exists(s.prefix / "include" / "loader.hpp"));
  // ... and every one of them.
  const fs::path pub = fs::path(DUALGAP_TEST_SOURCE_DIR) / "core" / "include";
  for (const auto& e : fs::recursive_directory_iterator(pub / "dualgap"))
    if (e.is_regular_file()) {
      INFO(e.path().string());
      CHECK(fs::exists(s.prefix / "include" / fs::relative(e.path(), pub)));
    }
  // The installed CLI runs from its prefix (RPATH to the installed core library).
  auto r = sh("ldd " + q(s.dualgap));
  INFO(r.output);
  const auto at = r.output.find("libdualgap.so => ");
  REQUIRE(at != std::string::npos);
  const auto from = at + std::string("libdualgap.so => ").size();
  const fs::path resolved = r.output.substr(from, r.output.find(' ', from) - from);
  std::error_code ec;
  CHECK(fs::equivalent(resolved, s.libdir / "libdualgap.so", ec));
  // The built-in plugins are installed where the installed CLI looks for them.
  const fs::path plugin_dir = s.libdir / "dualgap" / "plugins";
  if (fs::exists(fs::path(DUALGAP_TEST_PLUGIN_DIR)))
    for (const auto& e : fs::directory_iterator(DUALGAP_TEST_PLUGIN_DIR))
      if (e.path().extension() == ".so") CHECK(fs::exists(plugin_dir / e.path().filename()));
  // ... and a plugin target of this tree that was not built (tests/sdk/CMakeLists.txt) is skipped,
  // not an error: the tree installs from any build state, e.g. right after the quickstart.
  if (fs::exists(fs::path(DUALGAP_TEST_PLUGIN_DIR) / DUALGAP_TEST_UNBUILT_PLUGIN))
    MESSAGE("the never-built plugin " DUALGAP_TEST_UNBUILT_PLUGIN " was built by hand: the skip is not tested");
  else
    CHECK(!fs::exists(plugin_dir / DUALGAP_TEST_UNBUILT_PLUGIN));
}

TEST_CASE("sdk: --component sdk installs the SDK alone: CLI, library, headers, package, no plugin") {
  dualgap::test::TempDir t;
  const fs::path prefix = t.path / "sdk-only";
  auto r = sh(std::string(DUALGAP_TEST_CMAKE) + " --install " + q(DUALGAP_TEST_BINARY_DIR) + " --component sdk --prefix " +
              q(prefix));
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(fs::exists(prefix / "bin" / "dualgap"));
  CHECK(fs::exists(prefix / "include" / "dualgap" / "plugin.hpp"));
  CHECK(fs::exists(prefix / "share" / "dualgap" / "templates" / "oracle"));
  fs::path libdir;
  for (const char* d : {"lib", "lib64", "lib/x86_64-linux-gnu"})
    if (fs::exists(prefix / d / "cmake" / "dualgap" / "dualgapConfig.cmake")) libdir = prefix / d;
  REQUIRE(!libdir.empty());
  CHECK(fs::exists(libdir / "libdualgap.so"));
  int plugins = 0;
  if (fs::exists(libdir / "dualgap" / "plugins"))
    for (const auto& e : fs::directory_iterator(libdir / "dualgap" / "plugins")) plugins += e.path().extension() == ".so";
  CHECK(plugins == 0);
  r = sh("DUALGAP_PLUGIN_PATH= " + q(prefix / "bin" / "dualgap") + " plugins");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("file: ") == std::string::npos);  // it runs, and finds no plugin
}

// The loader reads the API version of a plugin built against ANY dualgap through this header,
// so its layout must never change (plugin.hpp): version first, then kind, name, description.
static_assert(std::is_standard_layout_v<dualgap::PluginHeader>);
static_assert(offsetof(dualgap::PluginHeader, api_version) == 0);
static_assert(offsetof(dualgap::PluginHeader, kind) == sizeof(int));
static_assert(offsetof(dualgap::PluginHeader, name) == 2 * sizeof(int));
static_assert(offsetof(dualgap::PluginHeader, description) == 2 * sizeof(int) + sizeof(void*));

TEST_CASE("sdk: new-plugin refuses bad usage and existing files") {
  dualgap::test::TempDir t;
  CHECK(dualgap::cli::run_command("new-plugin", {"--help"}) == 0);
  CHECK(dualgap::cli::run_command("new-plugin", {}) == 2);
  CHECK(dualgap::cli::run_command("new-plugin", {"optimizer", "x"}) == 2);
  CHECK(dualgap::cli::run_command("new-plugin", {"oracle", "My-Oracle", "--dir", (t.path / "a").string()}) == 2);
  CHECK(dualgap::cli::run_command("new-plugin", {"oracle", "ok_name", "--bogus"}) == 2);
  CHECK(dualgap::cli::run_command("new-plugin", {"oracle", "ok_name", "--dir", (t.path / "b").string()}) == 0);
  CHECK(fs::exists(t.path / "b" / "ok_name.cpp"));
  CHECK(dualgap::cli::run_command("new-plugin", {"oracle", "ok_name", "--dir", (t.path / "b").string()}) == 1);
  CHECK(dualgap::cli::run_command("new-plugin", {"oracle", "ok_name", "--dir", (t.path / "b").string(), "--force"}) == 0);
  // Every kind renders without leftover placeholders.
  for (const char* kind : {"dataset", "features", "oracle", "solver"}) {
    const auto files = dualgap::scaffold::render_skeleton(kind, "probe_x");
    for (const char* f : {"probe_x.cpp", "CMakeLists.txt", "README.md", "experiment.yaml", "test_probe_x.cpp"}) {
      INFO(kind << " " << f);
      REQUIRE(files.count(f) == 1);
      CHECK(files.at(f).find("@NAME@") == std::string::npos);
      CHECK(files.at(f).find("@SNIPPET") == std::string::npos);
      CHECK(files.at(f).find("@CLASS@") == std::string::npos);
    }
  }
  CHECK(dualgap::scaffold::camel_case("my_chain_2") == "MyChain2");
}

TEST_CASE("sdk: skeletons of the four kinds build out of tree, pass their tests, and run in experiments" *
          dualgap::test::needs_plugins({"dualgap_bcfw.so", "dualgap_synthetic_multiclass.so", "dualgap_multiclass.so"})) {
  const Sdk& s = sdk();
  REQUIRE(s.ok);
  dualgap::test::TempDir t;
  const fs::path src = t.path / "probes", bin = t.path / "build", plugins = bin / "plugins";
  const char* kinds[] = {"oracle", "solver", "dataset", "features"};
  // Names that each broke a skeleton before its class took the kind's word: a class Options
  // holding its struct Options, a class Sampling beside the solver's enum Sampling; a keyword;
  // a YAML boolean (the generated experiment said `plugin: true`, not the name).
  const std::map<std::string, std::string> name_of = {
      {"oracle", "options"}, {"solver", "sampling"}, {"dataset", "class"}, {"features", "true"}};
  // One project holding the four generated folders: each generated CMakeLists.txt also works
  // below a project that has already found dualgap (as inside the dualgap tree).
  fs::create_directories(src);
  std::ofstream(src / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.20)\n"
                                           "project(sdk_probes LANGUAGES CXX)\n"
                                           "find_package(dualgap REQUIRED)\n"
                                           "enable_testing()\n"
                                           "foreach(k oracle solver dataset features)\n"
                                           "  add_subdirectory(probe_${k})\n"
                                           "endforeach()\n";
  for (const std::string kind : kinds) {
    const std::string name = name_of.at(kind), dir = "probe_" + kind;
    auto r = scaffold(kind, name, src / dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    for (const std::string f : {name + ".cpp", std::string("CMakeLists.txt"), std::string("README.md"),
                                std::string("experiment.yaml"), "test_" + name + ".cpp"})
      CHECK(fs::exists(src / dir / f));
  }

  auto r = s.build(src, bin);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const std::string kind : kinds) REQUIRE(fs::exists(plugins / ("dualgap_" + name_of.at(kind) + ".so")));

  // The generated doctest files: conformance, the oracle against brute force, a solver run...
  r = sh(std::string(DUALGAP_TEST_CTEST) + " --test-dir " + q(bin) + " --output-on-failure");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("100% tests passed, 0 tests failed out of 4") != std::string::npos);

  // Hidden visibility: the plugin exports its one entry point, not its classes.
  r = sh("nm -D --defined-only -C " + q(plugins / "dualgap_options.so"));
  CHECK(r.output.find("dualgap_plugin") != std::string::npos);
  CHECK(r.output.find(dualgap::scaffold::class_name("oracle", "options")) == std::string::npos);

  // The same file loads in this process, stamped with this API version.
  auto lp = dualgap::load_plugin_file((plugins / "dualgap_options.so").string());
  CHECK(lp.name() == "options");
  CHECK(lp.kind() == dualgap::Kind::oracle);

  // The installed CLI lists and describes them from DUALGAP_PLUGIN_PATH, beside the built-ins.
  r = s.cli("plugins", plugins);
  INFO(r.output);
  CHECK(r.status == 0);
  for (const std::string kind : kinds) CHECK(r.output.find("\n  " + name_of.at(kind) + " ") != std::string::npos);
  for (const auto& e : fs::directory_iterator(s.libdir / "dualgap" / "plugins"))  // and the built-ins
    if (e.path().extension() == ".so") {
      const std::string builtin = e.path().stem().string().substr(std::string("dualgap_").size());
      CHECK_MESSAGE(r.output.find(builtin) != std::string::npos, builtin);
    }
  CHECK(r.output.find("file: " + (plugins / "dualgap_options.so").string()) != std::string::npos);
  r = s.cli("plugins", t.path / "nowhere");
  CHECK(r.output.find("dualgap_options.so") == std::string::npos);
  r = s.cli("describe options", plugins);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("normalize") != std::string::npos);
  CHECK(r.output.find("offers: [structured]") != std::string::npos);

  // The skeleton's README gets its parameter table from the built plugin; --check then holds,
  // and fails naming the README's line once the table is edited by hand.
  for (const std::string kind : kinds) {
    const fs::path readme = src / ("probe_" + kind) / "README.md";
    const std::string describe = "describe " + name_of.at(kind) + " --kind " + kind + " --readme " + q(readme);
    r = s.cli(describe + " --check", plugins);
    CHECK(r.status == 1);  // the skeleton holds a placeholder between the markers
    r = s.cli(describe, plugins);
    INFO(r.output);
    CHECK(r.status == 0);
    r = s.cli(describe + " --check", plugins);
    INFO(r.output);
    CHECK(r.status == 0);
  }
  {
    const fs::path readme = src / "probe_oracle" / "README.md";
    std::string text = dualgap::read_file(readme.string());
    const auto row = text.find("| `normalize` |");
    REQUIRE(row != std::string::npos);
    text.insert(row + 2, "x");
    std::ofstream(readme) << text;
    r = s.cli("describe options --kind oracle --readme " + q(readme) + " --check", plugins);
    INFO(r.output);
    CHECK(r.status == 1);
    CHECK(r.output.find(readme.string() + ":") != std::string::npos);
    CHECK(r.output.find("README:   | x`normalize` |") != std::string::npos);
  }

  // The generated experiments, with the built-in plugins they name.
  const fs::path builtin = s.libdir / "dualgap" / "plugins";
  dualgap::test::require_plugins(builtin, {"dualgap_bcfw.so", "dualgap_synthetic_multiclass.so", "dualgap_multiclass.so"});
  for (const std::string kind : kinds) {
    const std::string name = name_of.at(kind);
    r = s.cli("run " + q(src / ("probe_" + kind) / "experiment.yaml") + " --out " + q(t.path / "results"), plugins);
    INFO(r.output);
    CHECK(r.status == 0);
    int runs = 0;
    for (const auto& e : fs::recursive_directory_iterator(t.path / "results" / (name + "-demo")))
      if (e.path().filename() == "run.json") {
        ++runs;
        const auto run = dualgap::json::parse(dualgap::read_file(e.path()));
        INFO(e.path().string());
        CHECK(run["status"] != "failed");
        CHECK(run["curve"]["primal"].size() >= 2);
        CHECK(run["curve"]["primal"].back().is_number());
        // A run stopped by its budget of passes ends at that budget, not past it.
        const double max_passes = run["config"]["stop"]["max_passes"].get<double>();
        CHECK(run["curve"]["passes"].back().get<double>() <= max_passes);
        if (run["status"] == "budget") CHECK(run["curve"]["passes"].back().get<double>() == max_passes);
      }
    CHECK(runs >= 1);
  }
}

TEST_CASE("sdk: a plugin that includes a core internal, or nlohmann/json.hpp first, fails to build; a wrong API version is refused") {
  const Sdk& s = sdk();
  REQUIRE(s.ok);
  const Fixtures& f = fixtures();  // built without reaches_internals and json_first (excluded from all)
  INFO(f.build.output);
  REQUIRE(f.build.status == 0);

  auto r = sh(std::string(DUALGAP_TEST_CMAKE) + " --build " + q(f.bin) + " --target dualgap_reaches_internals");
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.output.find("loader.hpp") != std::string::npos);
  // nlohmann/json.hpp read before dualgap/json.hpp would keep the library's unchecked asserts
  r = sh(std::string(DUALGAP_TEST_CMAKE) + " --build " + q(f.bin) + " --target dualgap_json_first");
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.output.find("was included before dualgap/json.hpp") != std::string::npos);

  const fs::path so = f.plugins / "dualgap_bad_api.so";
  REQUIRE(fs::exists(so));
  try {
    dualgap::load_plugin_file(so.string());
    FAIL("a plugin built for another API version was loaded");
  } catch (const dualgap::PluginLoadError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("bad_api") != std::string::npos);
    CHECK(msg.find("API version " + std::to_string(dualgap::kApiVersion + 1000)) != std::string::npos);
    CHECK(msg.find("API version " + std::to_string(dualgap::kApiVersion)) != std::string::npos);
    CHECK(msg.find("rebuild") != std::string::npos);
  }
  r = s.cli("plugins", f.plugins);
  INFO(r.output);
  CHECK(r.output.find("API version") != std::string::npos);  // the CLI reports the refusal
}

TEST_CASE("sdk: Eigen alignment is pinned by the ABI: a -march=native plugin's data is freed by the core; another value is refused") {
  const Sdk& s = sdk();
  REQUIRE(s.ok);
  const Fixtures& f = fixtures();
  INFO(f.build.output);
  REQUIRE(f.build.status == 0);
  dualgap::test::TempDir t;
  static_assert(dualgap::kEigenMaxAlignBytes == 16);
  {
    auto lp = dualgap::load_plugin_file((f.plugins / "dualgap_simd_dataset.so").string());
    CHECK(lp.description->eigen_max_align_bytes == 16);
    auto ds = dualgap::create_object<dualgap::DatasetPlugin>(lp, dualgap::Params(dualgap::json::object()));
    for (int k = 0; k < 20; ++k) {
      dualgap::Data d = ds->load(dualgap::DatasetContext{});
      CHECK(d.train.X.rows() == 37);
      d.train.X = dualgap::FeatureMatrix(dualgap::DenseMatrix::Ones(3, 3));  // the core side frees the plugin's block
      CHECK(d.train.X.dense().sum() == 9.0);
    }  // ... and the rest here, in this (core-side) code
  }
  try {
    dualgap::load_plugin_file((f.plugins / "dualgap_wrong_align.so").string());
    FAIL("a plugin with another Eigen alignment was loaded");
  } catch (const dualgap::PluginLoadError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("EIGEN_MAX_ALIGN_BYTES = 64") != std::string::npos);
    CHECK(msg.find("plugin ABI is 16") != std::string::npos);
  }
  // An out-of-tree file that includes Eigen with AVX-512 flags before dualgap's headers, without
  // the SDK's definitions, does not compile (the #error of dualgap/eigen_abi.hpp).
  std::ofstream(t.path / "early_eigen.cpp") << "#include <Eigen/Core>\n#include \"dualgap/data.hpp\"\nint main() {}\n";
  auto r = sh("c++ -std=c++20 -mavx512f -fsyntax-only -I" + q(s.prefix / "include") + " -I/usr/include/eigen3 " +
         q(t.path / "early_eigen.cpp"));
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.output.find("must be 16") != std::string::npos);  // the #error of eigen_abi.hpp
}

TEST_CASE("sdk: an out-of-tree plugin's rule against the data is reported at its parameter's line by validate and run" *
          dualgap::test::needs_plugins({"dualgap_bcfw.so", "dualgap_synthetic_multiclass.so"})) {
  const Sdk& s = sdk();
  REQUIRE(s.ok);
  const Fixtures& f = fixtures();
  INFO(f.build.output);
  REQUIRE(f.build.status == 0);
  dualgap::test::require_plugins(s.libdir / "dualgap" / "plugins", {"dualgap_bcfw.so", "dualgap_synthetic_multiclass.so"});
  dualgap::test::TempDir t;
  const fs::path exp = t.path / "exp.yaml";
  std::ofstream(exp) << "name: per-class\n"
                        "data:     {plugin: synthetic_multiclass, n: 40, n_test: 20, d: 4, K: 3}\n"
                        "oracle:   {plugin: per_class, weights: [1, 2]}\n"
                        "solvers:\n"
                        "  - {name: BCFW, plugin: bcfw}\n"
                        "stop:     {max_passes: 2}\n";
  const std::string at = exp.string() + ":3:31: ",  // the key `weights` on line 3
      expected = "oracle (plugin per_class): parameter 'weights': expected 3 weights (one per class), got 2";
  // The shape is known once the data are prepared: validate prepares them (not with --no-data).
  auto r = s.cli("validate " + q(exp), f.plugins);
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(r.output.find(at + expected) != std::string::npos);
  CHECK(r.output.find("valid;") == std::string::npos);
  r = s.cli("validate " + q(exp) + " --no-data", f.plugins);
  CHECK(r.status == 0);
  r = s.cli("validate " + q(exp) + " --set 'oracle.weights=[1, 2, 3]'", f.plugins);
  CHECK(r.status == 0);
  // A run checks the rule before it solves: the run fails with the same message.
  r = s.cli("run " + q(exp) + " --out " + q(t.path / "res") + " --no-report", f.plugins);
  CHECK(r.status == 1);
  const fs::path run = t.path / "res" / "per-class" / "BCFW__r0" / "run.json";
  REQUIRE(fs::exists(run));
  const auto j = dualgap::json::parse(dualgap::read_file(run.string()));
  CHECK(j["status"] == "failed");
  CHECK(j["message"].get<std::string>().find(at + expected) != std::string::npos);
  CHECK(j["curve"]["primal"].empty());  // nothing was solved
}
