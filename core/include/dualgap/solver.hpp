// The "solver" plugin kind, the problem it is handed, and the recorder it reports to.
//
// A solver never prints and never reads a clock for reporting (cf. Ceres' IterationCallback),
// and never scores itself: at its checkpoints it hands the recorder a closure that
// fills an Iterate (dualgap/iterate.hpp) with its current model and, where it has one, a dual
// certificate. The recorder pauses the solver clock around the closure, lets the core's objective
// of the run compute primal, dual, gap and errors from the iterate, stores the row, checks the
// stop criteria and answers proceed or stop. Between checkpoints a solver may ask
// out_of_budget() (cheap). A library without a callback is run in sampling mode instead
// (dualgap/sampling.hpp: one fresh run per budget, each run's final model one checkpoint).
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
#include "dualgap/iterate.hpp"
#include "dualgap/oracle.hpp"
#include "dualgap/params.hpp"

namespace dualgap {

enum class Action { proceed, stop };

class DUALGAP_API Recorder {
 public:
  virtual ~Recorder();
  /// Whether a checkpoint is due at this progress (passes over the data; solvers that count
  /// iterations, e.g. boosting rounds, state in their README what one "pass" is).
  virtual bool due(double passes) const = 0;
  /// Pauses the solver clock, runs `fill`, scores the iterate it describes (the core's
  /// objective of the run), records a row, checks the stop criteria.
  virtual Action checkpoint(double passes, const std::function<void(Iterate&)>& fill) = 0;
  /// Whether a budget (time, passes, oracle calls) is exhausted; cheap, call it often.
  virtual bool out_of_budget(double passes) const = 0;
  /// Solver time so far in seconds, evaluation excluded (for algorithmic rules only, such as
  /// MP-BCFW's dual-increase-per-second rule).
  virtual double solver_time_s() const = 0;
  /// Sampling mode (dualgap/sampling.hpp): the next checkpoint is the final model
  /// of a fresh run of a library with `budget` (e.g. "eps", "max_iter") set to `value`. That
  /// row's time and counters count from this call (one restart's own cost, not cumulative) and
  /// its `budget` column holds `value`. Once called, every checkpoint of the run must follow a
  /// call; budgets may not decrease in effort (a tolerance may not grow, an iteration cap may
  /// not shrink): a violation throws std::logic_error. The default throws: a recorder without
  /// sampling support.
  virtual void begin_restart(const std::string& budget, double value);
};

/// What a solver is asked to minimize.
struct Problem {
  const Data* data = nullptr;     ///< transformed data (features applied)
  Oracle* oracle = nullptr;       ///< counted oracle; nullptr if the experiment has none
  double lambda = 0;              ///< regularization (problem.lambda, expressions evaluated)
  json params = json::object();   ///< the resolved problem section
};

/// Which objective a solver minimizes, when the oracle does not say it alone. The core scores
/// every run of one objective with the same code and compares runs only within one objective.
///   family "ssvm"               structured oracles (the default for them)
///          "sparse_multiclass"  block_loss oracles (the default for them; loss = the oracle's;
///                               params {penalty: "l1/l2" (default, group) or "l1" (elementwise)})
///          "boosting"           "exp": ||w||_1 + (C/p) sum_i sum_{y != y_i} exp(F_y - F_{y_i}) (params {C});
///                               "exp_hamming" (AdaBoost.MH, params {weights}); "exp_pairwise" (AdaBoost.ECC);
///                               "exp_code" (AdaBoost.MO, params {code: the K x L output code})
///          "least_squares"      loss "square" or "logistic" on the model's scores (params {ridge})
struct ObjectiveSpec {
  std::string family;            ///< empty: the one the oracle's interface implies
  std::string loss;              ///< empty: the oracle's
  json params = json::object();  ///< what else defines the objective (e.g. {"C": 1e4})
};

struct SolverContext {
  Recorder* recorder = nullptr;
  std::uint64_t seed = 0;         ///< the solver's own random stream
  /// Creates and fits nothing: returns a new feature-generator plugin object (for solvers that
  /// draw feature blocks themselves, e.g. stagewise least squares).
  std::function<std::shared_ptr<FeatureGenerator>(const std::string& plugin, const json& params)>
      make_features;
  /// Returns a new object of the run's oracle plugin with the same resolved parameters and no
  /// counters attached: oracles keep buffers and are not thread-safe, so a
  /// solver that calls the oracle from several threads gives each worker its own object, counts
  /// its calls in its own OracleCounters and merges them (OracleCounters::add). Empty when the
  /// run has no oracle or the caller (e.g. a test) does not provide one.
  std::function<std::shared_ptr<Oracle>()> make_oracle;
};

class DUALGAP_API Solver : public PluginObject {
 public:
  ~Solver() override;
  // The oracle interfaces a solver accepts are data of its plugin description
  // (PluginDescription::accepts, given to describe_solver).
  /// The objective this solver minimizes on `problem` (default: the one its oracle implies).
  virtual ObjectiveSpec objective(const Problem& problem) const {
    (void)problem;
    return {};
  }
  /// Runs until the recorder says stop or the solver converges by its own rule.
  virtual void solve(const Problem& problem, SolverContext& ctx) = 0;
};

}  // namespace dualgap
