// A run's problem, rebuilt from its resolved configuration: the data (dataset plugin, the core's
// validation hold-out, the feature chain fitted on train only), lambda, the counted oracle and
// the solver object. Used by the runner before solving and by `dualgap evaluate` to re-score
// saved iterates on the same (or an overridden) data.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "dualgap/oracle.hpp"
#include "dualgap/solver.hpp"
#include "experiment/data_rules.hpp"
#include "plugins/loader.hpp"

namespace dualgap {

struct PreparedRun {
  Data data;
  Problem problem;                 ///< points into `data`: a PreparedRun is filled in place, never moved
  std::shared_ptr<Oracle> oracle;  ///< counted through the counters given to prepare_run
  /// Fresh objects of the same oracle plugin and parameters, uncounted (SolverContext::make_oracle).
  std::function<std::shared_ptr<Oracle>()> make_oracle;
  std::shared_ptr<Solver> solver;
  json vars;                       ///< n, N, d, K of the training split (expressions)
  json solver_params;              ///< the solver's parameters, expressions evaluated
  json info;                       ///< run.json data_info: sizes, load and feature times, validation
  PreparedRun() = default;
  PreparedRun(const PreparedRun&) = delete;
  PreparedRun& operator=(const PreparedRun&) = delete;
};

/// Loads and prepares everything a run needs from its resolved config (run.json "config").
/// Before a plugin object is made, its rules against the data it receives are checked
/// (check_data_rules; `locate` places the parameter at fault in the experiment). Throws DataError
/// / std::runtime_error naming the file or plugin at fault, ConfigError for a broken rule.
DUALGAP_API void prepare_run(const json& cfg, const PluginRegistry& reg, const std::string& cache_dir,
                             OracleCounters* counters, PreparedRun& out, const Locate& locate = {});

/// Threads that score the checkpoints of a run (ScoreOptions::threads): the run's share of the
/// machine, the CPUs this process may use (usable_cpus) divided by `jobs` (the runs `dualgap run`
/// keeps going at once), or the solver's `threads` (`auto` resolved in `solver_params`) when that
/// is more: a solver given more threads was given more cores. Never more than the CPUs this
/// process may use: bcfw's `auto` is the machine's hardware threads, which an affinity mask
/// (taskset, a cpuset, Slurm's binding) may cut down, and a count written may exceed both.
/// A solver's `threads: 1` does not lower it: the solver waits while its checkpoint is scored,
/// and the config holds the default filled in, so a 1 the user wrote cannot be told from bcfw's
/// default. The scores do not depend on the count (objective.hpp).
DUALGAP_API int scoring_threads(const json& solver_params, int jobs);

/// Step `index` of the config's feature chain on `data`: the plugin's rules checked against the
/// data it receives, then fitted on train (with the chain's seed of that step) and applied to
/// both splits.
DUALGAP_API void apply_features_step(const json& cfg, std::size_t index, const PluginRegistry& reg, Data& data,
                                     const Locate& locate = {});

}  // namespace dualgap
