// Synthetic run.json files for the compare tests and bench/compare_bench.cpp: curves shaped like
// a BCFW run (primal decreasing and dual increasing geometrically towards a known optimum).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "dualgap/json.hpp"

namespace dualgap::compare::testing {

/// A fresh directory under the system temp dir, removed with the object.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dualgap-compare-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

struct SyntheticRun {
  std::string experiment = "synthetic", run_id = "r0", solver = "BCFW", problem_key = "P1", status = "done";
  int checkpoints = 50;
  double optimum = 1.0;       ///< P* = D*
  double rate = 0.1;          ///< convergence per checkpoint
  double oracle_fraction = 0.9;
  bool with_dual = true, approximate = false;
  int seed = 0;
};

inline nlohmann::json synthetic_run_json(const SyntheticRun& s) {
  using nlohmann::json;
  json passes = json::array(), calls = json::array(), approx = json::array(), time = json::array(),
       otime = json::array(), primal = json::array(), dual = json::array(), gap = json::array(),
       test_error = json::array(), working_set = json::array();
  const double jitter = 1.0 + 0.05 * ((s.seed * 7919) % 11 - 5) / 5.0;
  for (int k = 0; k < s.checkpoints; ++k) {
    const double t = 0.01 * (k + 1) * jitter;
    const double p = s.optimum + std::exp(-s.rate * k * jitter);
    const double d = s.optimum - 0.5 * std::exp(-s.rate * k * jitter);
    passes.push_back(k);
    calls.push_back(k * 100);
    approx.push_back(k * 300);
    time.push_back(t);
    otime.push_back(s.oracle_fraction * t);
    primal.push_back(p);
    dual.push_back(s.with_dual ? json(d) : json(nullptr));
    gap.push_back(s.with_dual ? json(p - d) : json(nullptr));
    test_error.push_back(0.1 + 0.3 * std::exp(-0.05 * k));
    working_set.push_back(1 + k % 10);
  }
  json run = {{"schema", "dualgap.run/1"},
              {"experiment", s.experiment},
              {"run_id", s.run_id},
              {"solver", s.solver},
              {"status", s.status},
              {"message", s.status == "done" ? "" : "stopped: " + s.status},
              {"approximate", s.approximate},
              {"config",
               {{"name", s.experiment},
                {"data", {{"plugin", "synthetic"}}},
                {"oracle", {{"plugin", "multiclass"}}},
                {"problem", {{"lambda", 0.01}}},
                {"solver", {{"name", s.solver}, {"plugin", "bcfw"}}},
                {"seed", s.seed}}},
              {"config_hash", s.run_id},
              {"environment", {{"version", "test"}}},
              {"curve",
               {{"passes", passes},
                {"oracle_calls", calls},
                {"approx_oracle_calls", approx},
                {"time", time},
                {"oracle_time", otime},
                {"primal", primal},
                {"dual", dual},
                {"gap", gap},
                {"train_error", test_error},
                {"test_error", test_error},
                {"working_set_size", working_set}}},
              {"summary", {{"passes", s.checkpoints - 1}}}};
  if (!s.problem_key.empty()) run["problem_key"] = s.problem_key;
  return run;
}

/// Writes <root>/<experiment>/<run_id>/run.json and returns its path.
inline std::filesystem::path write_run(const std::filesystem::path& root, const nlohmann::json& run) {
  auto dir = root / run.value("experiment", std::string("x")) / run.value("run_id", std::string("r"));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "run.json") << run.dump();
  return dir / "run.json";
}

/// The standard output of a shell command (the compare tests' external tools: python3, chromium,
/// pdffonts); empty when it cannot be started.
inline std::string run_capture(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[65536];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

}  // namespace dualgap::compare::testing
