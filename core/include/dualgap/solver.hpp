// The "solver" plugin kind, the problem it is handed, and the recorder it reports to.
//
// A solver never prints and never reads a clock for reporting (cf. Ceres' IterationCallback):
// at its checkpoints it hands the recorder a closure that evaluates the current iterate; the
// recorder pauses the solver clock around it, stores the row, checks the stop criteria and
// answers proceed or stop. Between checkpoints a solver may ask out_of_budget() (cheap).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dualgap/data.hpp"
#include "dualgap/features.hpp"
#include "dualgap/oracle.hpp"
#include "dualgap/params.hpp"

namespace dualgap {

/// Values of one checkpoint. Unset optionals are written as null.
struct Metrics {
  std::optional<double> primal;       ///< objective of the current (or averaged) iterate
  std::optional<double> dual;         ///< certified lower bound (dual objective)
  std::optional<double> train_error;  ///< fraction in [0, 1]
  std::optional<double> test_error;
  bool approximate = false;           ///< primal/dual only approximate (e.g. alpha-expansion)
  std::vector<std::pair<std::string, double>> extra;  ///< solver-specific columns
  void set(const std::string& name, double value) {
    for (auto& [k, v] : extra)
      if (k == name) { v = value; return; }
    extra.emplace_back(name, value);
  }
};

enum class Action { proceed, stop };

class DUALGAP_API Recorder {
 public:
  virtual ~Recorder();
  /// Whether a checkpoint is due at this progress (passes over the data; solvers that count
  /// iterations, e.g. boosting rounds, state in their README what one "pass" is).
  virtual bool due(double passes) const = 0;
  /// Pauses the solver clock, runs `evaluate`, records a row, checks the stop criteria.
  virtual Action checkpoint(double passes, const std::function<void(Metrics&)>& evaluate) = 0;
  /// Whether a budget (time, passes, oracle calls) is exhausted; cheap, call it often.
  virtual bool out_of_budget(double passes) const = 0;
  /// Solver time so far in seconds, evaluation excluded (for algorithmic rules only, such as
  /// MP-BCFW's dual-increase-per-second rule).
  virtual double solver_time_s() const = 0;
};

/// What a solver is asked to minimize.
struct Problem {
  const Data* data = nullptr;     ///< transformed data (features applied)
  Oracle* oracle = nullptr;       ///< counted oracle; nullptr if the experiment has none
  double lambda = 0;              ///< regularization (problem.lambda, expressions evaluated)
  json params = json::object();   ///< the resolved problem section
};

struct SolverContext {
  Recorder* recorder = nullptr;
  std::uint64_t seed = 0;         ///< the solver's own random stream
  /// Creates and fits nothing: returns a new feature-generator plugin object (for solvers that
  /// draw feature blocks themselves, e.g. stagewise least squares).
  std::function<std::shared_ptr<FeatureGenerator>(const std::string& plugin, const json& params)>
      make_features;
};

class DUALGAP_API Solver : public PluginObject {
 public:
  ~Solver() override;
  /// Oracle interfaces this solver accepts (e.g. {"structured"}); empty: needs no oracle.
  virtual std::vector<std::string> accepts() const = 0;
  /// Runs until the recorder says stop or the solver converges by its own rule.
  virtual void solve(const Problem& problem, SolverContext& ctx) = 0;
};

}  // namespace dualgap
