// The objective of a run: scores the iterates a solver hands over (dualgap/iterate.hpp).
// Part of the core library's API (for the runner, the tests, and the tests of out-of-tree
// plugins, which score their solver's checkpoints exactly as a run does); plugins never call it.
//
// One implementation per problem family, in core/src/objectives/, each with its formula on top:
//   ssvm.cpp               structural SVM (structured oracles)
//   sparse_multiclass.cpp  L1/L2-regularized smooth multiclass losses (block_loss oracles)
//   boosting.cpp           totally-corrective boosting (weak_learner oracles)
//   least_squares.cpp      square and logistic loss on a model's scores (no oracle)
// The runner builds the objective of a run once (make_objective) from the problem and the
// solver's ObjectiveSpec; the recorder calls score_checkpoint at every checkpoint. Oracle calls
// made while scoring count as evaluation, never as training.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dualgap/solver.hpp"

namespace dualgap {

/// What the core measured at one checkpoint.
struct Scores {
  std::optional<double> primal;       ///< objective of the iterate
  std::optional<double> dual;         ///< certified lower bound on the optimum
  std::optional<double> train_error;  ///< fraction of training units misclassified
  std::optional<double> test_error;
  bool approximate = false;           ///< primal/dual only approximate (alpha-expansion)
  /// Columns: the objective's own (e.g. max_violation), then the solver's.
  std::vector<std::pair<std::string, double>> extra;
  void set(const std::string& name, double value) {
    for (auto& [k, v] : extra)
      if (k == name) {
        v = value;
        return;
      }
    extra.emplace_back(name, value);
  }
  /// Value of a column, or nullopt.
  std::optional<double> column(const std::string& name) const {
    for (auto& [k, v] : extra)
      if (k == name) return v;
    return std::nullopt;
  }
};

struct ScoreOptions {
  bool train_error = true;  ///< record.train_error: costs n more oracle calls (SSVM) per row
  /// Threads that score a checkpoint (the runner: the solver's `threads` when the experiment
  /// sets it, else the CPUs this process may use divided by `dualgap run --jobs`). The scores
  /// are the same bit for bit for every count: the examples are split into chunks of a fixed
  /// size whose sums are added in chunk order. 1 starts no thread.
  int threads = 1;
  /// Fresh objects of the run's oracle (as SolverContext::make_oracle), one per extra thread:
  /// oracles keep buffers and are not thread-safe. Without it, or with an approximate oracle,
  /// scoring stays on one thread.
  std::function<std::shared_ptr<Oracle>()> make_oracle;
};

class DUALGAP_API Objective {
 public:
  virtual ~Objective();
  /// What identifies the objective (family, loss, lambda, its parameters): run.json "objective".
  virtual json describe() const = 0;
  /// The model kind it scores ("w", "W", "ensemble", "scores"), for messages.
  virtual const char* model_kind() const = 0;
  /// Scores the iterate; throws std::runtime_error for an iterate of the wrong kind or shape.
  virtual void score(const Iterate& it, Scores& out) = 0;
};

/// The objective of `problem` for `solver` (its ObjectiveSpec, or the one its oracle implies).
/// Throws std::runtime_error when no objective fits (naming the solver and the oracle).
DUALGAP_API std::unique_ptr<Objective> make_objective(const Problem& problem, const Solver& solver,
                                                      const ScoreOptions& options = {});

/// Runs a solver's checkpoint closure and scores the iterate: sets counters->evaluating around
/// both (oracle calls count as evaluation), refuses extra columns named like the core's own,
/// and appends the solver's extra columns after the objective's.
DUALGAP_API void score_checkpoint(Objective& objective, OracleCounters* counters,
                                  const std::function<void(Iterate&)>& fill, Scores& out);

/// Column names the core writes itself; a solver's extra column may not use them.
DUALGAP_API bool is_core_column(const std::string& name);

}  // namespace dualgap
