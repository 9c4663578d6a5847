#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
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

/// A small multi-class LIBSVM file with labels 0..K-1: Gaussian blobs, feature j shifted by 1.5
/// for the class j mod K (separable-ish).
inline void write_blobs(const std::filesystem::path& p, int n, int d, int K, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::ostringstream s;
  for (int i = 0; i < n; ++i) {
    const int k = i % K;
    s << k;
    for (int j = 0; j < d; ++j) s << ' ' << j + 1 << ':' << g(rng) + (j % K == k ? 1.5 : 0.0);
    s << '\n';
  }
  write_text(p, s.str());
}

inline json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

}  // namespace dualgap::test
