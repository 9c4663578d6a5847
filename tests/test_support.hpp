// Helpers shared by the doctest suites.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "plugins/loader.hpp"
#include "dualgap/objective.hpp"
#include "experiment/schema.hpp"

namespace dualgap::test {

/// Two optional scores are both empty or the same double bit for bit (not merely ==: -0.0 and
/// 0.0 differ, and so do two NaNs of different payload).
inline bool same_bits(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || std::memcmp(&*a, &*b, sizeof(double)) == 0);
}

/// A solver that does nothing: the owner an objective is made for when a test scores by hand.
class IdleSolver final : public Solver {
 public:
  void solve(const Problem&, SolverContext&) override {}
};

/// Redirects std::cout into `out` while alive.
struct Capture {
  std::ostringstream out;
  std::streambuf* old;
  Capture() : old(std::cout.rdbuf(out.rdbuf())) {}
  ~Capture() { std::cout.rdbuf(old); }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
};

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

/// The dense feature matrix of `rows` (each of `d` values), one row per unit.
inline FeatureMatrix dense_rows(const std::vector<std::vector<double>>& rows, int d) {
  DenseMatrix X(static_cast<Eigen::Index>(rows.size()), d);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (int j = 0; j < d; ++j) X(static_cast<Eigen::Index>(r), j) = rows[r][static_cast<std::size_t>(j)];
  return FeatureMatrix(std::move(X));
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

/// A recorder for solver tests: scores every checkpoint with the core's objective of the run
/// (bind it to the problem and solver first), keeps the Scores, asks for a row at every
/// opportunity and stops the solver at `max_passes`.
struct MemoryRecorder : Recorder {
  double max_passes;
  std::vector<double> passes;
  std::vector<Scores> rows;
  std::unique_ptr<Objective> objective;
  explicit MemoryRecorder(double max) : max_passes(max) {}
  /// Builds the objective that scores the checkpoints of `solver` on `pb`.
  void bind(const Problem& pb, const Solver& solver, const ScoreOptions& opt = {}) {
    objective = make_objective(pb, solver, opt);
    counters = pb.oracle ? pb.oracle->counters() : nullptr;
  }
  bool due(double) const override { return true; }
  Action checkpoint(double p, const std::function<void(Iterate&)>& fill) override {
    REQUIRE_MESSAGE(objective, "MemoryRecorder: call bind(problem, solver) before solve");
    Scores m;
    score_checkpoint(*objective, counters, fill, m);
    passes.push_back(p);
    rows.push_back(m);
    return p >= max_passes ? Action::stop : Action::proceed;
  }
  bool out_of_budget(double p) const override { return p >= max_passes; }
  double solver_time_s() const override { return 0; }
  /// Value of an extra column at a row; fails the test when the column is missing.
  double extra(std::size_t row, const std::string& name) const {
    if (auto v = rows.at(row).column(name)) return *v;
    FAIL("no column " << name);
    return 0;
  }
  const Scores& last() const { return rows.back(); }

 private:
  OracleCounters* counters = nullptr;
};

/// Decorator of a test case that reads the real data of $DUALGAP_DATA:
/// `TEST_CASE("..." * dualgap::test::needs_real_data())`. Without DUALGAP_DATA the case is
/// skipped and doctest counts it as skipped (not passed); CI runs every case regardless, since
/// doctest_main passes --no-skip when CI is set, so there a missing data folder fails.
inline doctest::skip needs_real_data() {
  const char* root = std::getenv("DUALGAP_DATA");
  return doctest::skip(!root || !*root);
}

/// Decorator of a test case that needs built-in plugins (file names such as "dualgap_bcfw.so"
/// in the build's plugin folder): in a partial build without them the case is skipped and
/// counted as skipped, never passed; under CI (--no-skip) it runs, and require_plugins fails it.
inline doctest::skip needs_plugins(std::initializer_list<const char*> files) {
  for (const char* f : files)
    if (!std::filesystem::exists(std::filesystem::path(DUALGAP_TEST_PLUGIN_DIR) / f)) return doctest::skip(true);
  return doctest::skip(false);
}

/// Inside a case marked needs_plugins(...): each file is in `dir` (the build's plugin folder or
/// an installed copy of it), else the case fails naming it.
inline void require_plugins(const std::filesystem::path& dir, std::initializer_list<const char*> files) {
  for (const char* f : files) REQUIRE_MESSAGE(std::filesystem::exists(dir / f), "the built-in plugin " << f << " is not built");
}

/// Path of a real data file under DUALGAP_DATA, for a case marked needs_real_data(). A missing
/// DUALGAP_DATA or file fails the case: it names what is missing.
inline std::string real_data(const std::string& relative) {
  const char* root = std::getenv("DUALGAP_DATA");
  if (!root || !*root) FAIL("DUALGAP_DATA is not set; needed for " << relative);
  auto p = std::filesystem::path(root) / relative;
  if (!std::filesystem::exists(p)) FAIL("missing data file " << p.string());
  return p.string();
}

}  // namespace dualgap::test
