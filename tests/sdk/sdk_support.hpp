// Helpers of the SDK tests: shell commands, and the SDK installed once per test process.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"
#include "base/util.hpp"  // read_file

namespace dualgap::sdk_test {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string output;
};

/// Runs a shell command, stdout and stderr together.
inline Result sh(const std::string& cmd) {
  Result r;
  FILE* p = popen(("(" + cmd + ") 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, k);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

/// The SDK installed once per test process into a temporary prefix.
struct Sdk {
  dualgap::test::TempDir tmp;
  fs::path prefix, dualgap, libdir;
  std::string install_log;
  bool ok = false;

  Sdk() {
    prefix = tmp.path / "prefix";
    auto r = sh(std::string(DUALGAP_TEST_CMAKE) + " --install " + q(DUALGAP_TEST_BINARY_DIR) +
                " --prefix " + q(prefix));
    install_log = r.output;
    dualgap = prefix / "bin" / "dualgap";
    for (const char* d : {"lib", "lib64", "lib/x86_64-linux-gnu"})
      if (fs::exists(prefix / d / "cmake" / "dualgap" / "dualgapConfig.cmake")) libdir = prefix / d;
    ok = r.status == 0 && fs::exists(dualgap) && !libdir.empty();
  }
  /// Runs the installed CLI with the plugin path set to `plugin_path`.
  Result cli(const std::string& args, const fs::path& plugin_path = {}) const {
    return sh("DUALGAP_PLUGIN_PATH=" + q(plugin_path) + " " + q(dualgap) + " " + args);
  }
  /// Whether the installed CLI implements a command (the lead's CLI lands in steps).
  bool has_command(const std::string& cmd) const { return cli(cmd + " --help").status == 0; }
  /// Configures and builds an out-of-tree project against this prefix, with the compiler that
  /// built the core: in the sanitizer tree (clang) a plugin built by another compiler would bring
  /// that compiler's sanitizer runtime, which cannot share a process with the core's.
  Result build(const fs::path& src, const fs::path& bin, const std::string& target = "") const {
    auto r = sh(std::string(DUALGAP_TEST_CMAKE) + " -S " + q(src) + " -B " + q(bin) +
                " -DCMAKE_PREFIX_PATH=" + q(prefix) + " -DCMAKE_BUILD_TYPE=" +
                DUALGAP_TEST_BUILD_TYPE + " -DCMAKE_CXX_COMPILER=" + q(DUALGAP_TEST_CXX));
    if (r.status != 0) return r;
    auto b = sh(std::string(DUALGAP_TEST_CMAKE) + " --build " + q(bin) + " -j2" +
                (target.empty() ? "" : " --target " + target));
    b.output = r.output + b.output;
    return b;
  }
};

inline const Sdk& sdk() {
  static Sdk s;
  return s;
}

/// tests/sdk/fixtures built once per test process against the installed SDK (two test cases
/// read its plugins; building it twice cost a configure and three plugin builds).
struct Fixtures {
  dualgap::test::TempDir tmp;
  fs::path src = fs::path(DUALGAP_TEST_SOURCE_DIR) / "tests" / "sdk" / "fixtures";
  fs::path bin = tmp.path / "build", plugins = bin / "plugins";
  Result build = sdk().build(src, bin);  // the default targets: not reaches_internals
};

inline const Fixtures& fixtures() {
  static Fixtures f;
  return f;
}

}  // namespace dualgap::sdk_test
