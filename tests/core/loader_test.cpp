// Plugin loading: good plugins, and clear errors for broken ones.
#include "cli_support.hpp"

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

TEST_CASE("a plugin built against plugin API 1 is refused by API 6, naming both") {
  static_assert(kApiVersion == 6);
  const std::string path = std::string(DUALGAP_TEST_BROKEN_PLUGIN_DIR) + "/dualgap_api_v1.so";
  CHECK_THROWS_WITH_AS(load_plugin_file(path),
                       (path + ": plugin 'api1_solver' was built for dualgap plugin API version 1, but this dualgap "
                               "has API version 6: rebuild the plugin against this dualgap")
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
