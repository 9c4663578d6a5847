#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace dualgap::test {

struct CliResult {
  int code = -1;
  std::string output;
};

/// Runs the dualgap CLI with `args` (shell words), stdout+stderr captured. `env` is prepended.
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  std::string cmd = env + " \"" DUALGAP_TEST_CLI "\" " + args + " 2>&1";
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline void write_text(const std::filesystem::path& p, const std::string& s) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << s;
}

inline json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

}  // namespace dualgap::test
