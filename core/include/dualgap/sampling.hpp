// Sampling mode: a curve for a solver that has no callback (a library such as LIBLINEAR or
// dlib that trains to its own stopping rule and returns). benchopt calls this its "sampling
// strategy": the library is run again from scratch with a growing budget (tolerance
// eps = 1, 0.5, 0.25, ... or an iteration cap 1, 2, 4, ...), and each run's final model is one
// checkpoint. Consequences, recorded in run.json (`sampling`, and a `budget` column) and shown
// by `dualgap compare` as a note:
//   - a row's `time`, counters and `passes` are those of its own run (not cumulative): the
//     curve is a sequence of restarts, read "with budget b the library needs time t to reach
//     primal P";
//   - the stop criteria max_time, max_passes and max_oracle_calls count the sum over the
//     restarts (what the run spent); they are checked before each restart and after it, so
//     the last restart may overrun max_time by its own length (the run's deadline watchdog
//     still kills a restart that never returns); gap and rel_gap stop at a certified gap;
//   - budgets never decrease in effort (the recorder refuses a tolerance that grows or an
//     iteration cap that shrinks).
#pragma once

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/solver.hpp"

namespace dualgap {

/// The budgets of the restarts, in order.
struct SamplingSchedule {
  std::string budget = "eps";  ///< "eps": a tolerance (smaller is more work); otherwise an iteration cap
  std::vector<double> values;

  /// first, first * factor, first * factor^2, ... (`restarts` values). For "eps" factor < 1;
  /// for an iteration cap factor > 1 and the values are rounded up to integers.
  static SamplingSchedule geometric(std::string budget, double first, double factor, int restarts) {
    SamplingSchedule s;
    s.budget = std::move(budget);
    double v = first;
    for (int k = 0; k < restarts; ++k, v *= factor) s.values.push_back(s.tolerance() ? v : std::ceil(v));
    return s;
  }
  /// Whether the budget is a tolerance (more work as it decreases).
  bool tolerance() const { return budget == "eps"; }
};

/// Runs the library once per budget of `schedule`. `train(budget)` runs it from scratch with
/// that budget, keeps its final model where `fill` can read it, and returns its passes over
/// the data (the library's iteration count where it reports one, else 1); `fill` hands that
/// model to the core at the checkpoint. Returns when the schedule is done or the recorder says
/// stop (a budget is exhausted or the target gap reached).
inline void run_sampled(SolverContext& ctx, const SamplingSchedule& schedule,
                        const std::function<double(double budget)>& train,
                        const std::function<void(Iterate&)>& fill) {
  Recorder& rec = *ctx.recorder;
  double total_passes = 0;
  for (double b : schedule.values) {
    if (rec.out_of_budget(total_passes)) return;
    rec.begin_restart(schedule.budget, b);
    const double passes = train(b);
    total_passes += passes;
    if (rec.checkpoint(passes, fill) == Action::stop) return;
  }
}

}  // namespace dualgap
