// The checkpoints of both loops (mp_bcfw.hpp, exact_steps.hpp): the solver hands the core its
// iterate w and its dual point (phi_circ), and the core scores them (primal, certified dual, gap,
// errors). With averaging (section 3.5 of Shah, Kolmogorov, Lampert, CVPR 2015) both are the
// weighted averages, except at the checkpoint of a run that proved w optimal (a pass over all
// blocks in which no block moved: every block gap is <= 0 at w), which reports w itself.
#pragma once

#include <functional>
#include <utility>

#include "averages.hpp"
#include "dual_state.hpp"
#include "dualgap/iterate.hpp"
#include "dualgap/oracle.hpp"
#include "dualgap/solver.hpp"

namespace dualgap_bcfw {

class Checkpoints {
 public:
  /// st: the loop's state; columns(it) adds the loop's own columns to a checkpoint.
  Checkpoints(dualgap::Recorder& rec, const dualgap::Oracle& oracle, const DualState& st, IterateAverages& averages,
              std::function<void(dualgap::Iterate&)> columns)
      : rec_(rec), oracle_(oracle), st_(st), averages_(averages), columns_(std::move(columns)) {}

  /// Whether the recorder wants a checkpoint after `passes` passes.
  bool due(double passes) const { return rec_.due(passes); }
  /// A checkpoint after `passes` passes (st.w must be current). Returns the recorder's decision.
  dualgap::Action record(double passes) { return checkpoint(passes, false); }
  /// The last checkpoint of a run whose pass over all blocks moved none: w is optimal and is
  /// reported as it is, even with averaging.
  void optimal(double passes) { checkpoint(passes, true); }

 private:
  dualgap::Action checkpoint(double passes, bool optimal) {
    return rec_.checkpoint(passes, [&](dualgap::Iterate& it) {
      it.w = &st_.w;
      double circ = st_.phi_circ;
      if (!optimal) averages_.report(st_, it, w_eval_, circ);
      it.ssvm_dual = dualgap::SsvmDualPoint{nullptr, circ};
      columns_(it);
      // Training time inside the exact oracle, as a share of solver time.
      const auto* c = oracle_.counters();
      const double t = rec_.solver_time_s();
      if (c && t > 0) it.set("exact_oracle_share", c->oracle_time_s / t);
    });
  }

  dualgap::Recorder& rec_;
  const dualgap::Oracle& oracle_;
  const DualState& st_;
  IterateAverages& averages_;
  std::function<void(dualgap::Iterate&)> columns_;
  Vector w_eval_;  ///< the averaged primal point reported at checkpoints
};

}  // namespace dualgap_bcfw
