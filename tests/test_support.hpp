// Helpers shared by the doctest suites.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "loader.hpp"
#include "schema.hpp"

namespace dualgap::test {

/// Registry over the build tree's plugin folder only.
inline PluginRegistry& plugins() {
  static PluginRegistry r = [] {
    PluginRegistry reg;
    reg.scan({DUALGAP_TEST_PLUGIN_DIR});
    return reg;
  }();
  return r;
}

/// Creates a plugin object by kind and name with parameters (defaults filled, validated).
template <class T>
std::shared_ptr<T> make(Kind kind, const std::string& name, const json& params = json::object()) {
  const LoadedPlugin& p = plugins().get(kind, name);
  return create_object<T>(p, make_params(p.description->params, params));
}

/// A fresh temporary folder, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           ("dualgap-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

/// Path of a real data file under DUALGAP_DATA, or "" when the data folder is not available.
/// In CI (env CI set) a missing DUALGAP_DATA or file is a test failure, not a skip.
inline std::string real_data(const std::string& relative) {
  const char* root = std::getenv("DUALGAP_DATA");
  const bool ci = std::getenv("CI") != nullptr;
  if (!root || !*root) {
    if (ci) FAIL("DUALGAP_DATA is not set in CI; needed for " << relative);
    MESSAGE("skipped: DUALGAP_DATA not set (needed for " << relative << ")");
    return "";
  }
  auto p = std::filesystem::path(root) / relative;
  if (!std::filesystem::exists(p)) {
    if (ci) FAIL("missing data file " << p.string());
    MESSAGE("skipped: missing data file " << p.string());
    return "";
  }
  return p.string();
}

}  // namespace dualgap::test
