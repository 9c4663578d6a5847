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

#include "dualgap/options.hpp"
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

/// The tolerances of a sampled library as solver parameters (LIBLINEAR's -e, dlib's eps), one
/// declaration for every such plugin: a geometric sequence (eps_first, eps_factor, restarts) or
/// an explicit decreasing list `eps`, which then replaces the other three. A plugin keeps one as a
/// member of its Options (with its own defaults) and declares it with bind(b, &Options::member).
struct EpsSchedule {
  double eps_first = 1.0;   ///< tolerance of the first restart
  double eps_factor = 0.5;  ///< tolerance of restart k+1 = eps_factor x that of restart k
  int restarts = 12;        ///< number of restarts
  std::vector<double> eps;  ///< explicit tolerances (then the three above are not used)

  SamplingSchedule schedule() const {
    if (eps.empty()) return SamplingSchedule::geometric("eps", eps_first, eps_factor, restarts);
    SamplingSchedule s;
    s.values = eps;
    return s;
  }
  /// For the plugin's Options::validate.
  bool validate(std::string* error) const {
    for (std::size_t k = 0; k < eps.size(); ++k)
      if (!(eps[k] > 0) || (k > 0 && !(eps[k] < eps[k - 1]))) *error = "eps must be positive and decreasing";
    return error->empty();
  }
  /// Declares the four parameters of the member `m` of O; `what` names the tolerance.
  template <class O>
  static void bind(Binder<O>& b, EpsSchedule O::*m, const std::string& what) {
    b.field([m](O& o) -> double& { return (o.*m).eps_first; }, "eps_first", what + " of the first restart").min(1e-12);
    b.field([m](O& o) -> double& { return (o.*m).eps_factor; }, "eps_factor",
            "each restart's tolerance is this times the previous one")
        .range(1e-6, 1.0);
    b.field([m](O& o) -> int& { return (o.*m).restarts; }, "restarts", "number of restarts (points of the curve)")
        .range(1, 200);
    b.field([m](O& o) -> std::vector<double>& { return (o.*m).eps; }, "eps",
            "explicit tolerances, one restart each, decreasing (e.g. [0.1, 0.05, 0.02, 0.01]); when "
            "given, eps_first, eps_factor and restarts are not used");
  }
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
