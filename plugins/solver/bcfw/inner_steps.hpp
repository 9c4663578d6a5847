// Extension, not in the paper (option inner_steps > 0; 0 runs Algorithms 2 and 3 as written):
// after every block step on block i, up to inner_steps block-local steps over the working set
// W_i, each counted as an approximate oracle call.
//   inner: pairwise -- move weight from the worst plane of W_i holding weight (the away vertex)
//          to the best plane (pairwise Frank-Wolfe, Lacoste-Julien and Jaggi, NeurIPS 2015);
//   inner: fw       -- a plain Frank-Wolfe step towards the best plane of W_i.
// The unary scores of example i are kept up to date incrementally (w changes only along the
// rows of example i: MarginalBlocks::update_scores), so a local step costs
// O(|W_i| units_i + touched classes x d). Marginal blocks only: dense blocks have no pair step
// (Options::validate and blocks: auto keep inner_steps at 0 with them).
#pragma once

#include <concepts>
#include <stdexcept>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "dual_state.hpp"
#include "options.hpp"
#include "working_set.hpp"

namespace dualgap_bcfw {

/// A storage whose steps can move weight from one plane of W_i to another and that keeps the
/// unary score table of example i up to date across them (MarginalBlocks).
template <class Blocks>
concept PairSteps = requires(Blocks& st, const Blocks& cst, std::size_t i, const int* y, const double* S, double* T) {
  { st.pair_step(i, y, 0.0, y, 0.0, S, 1.0) } -> std::same_as<double>;
  { cst.update_scores(i, T) } -> std::same_as<bool>;
};

class InnerSteps {
 public:
  InnerSteps(int steps, Inner kind) : steps_(steps), kind_(kind) {}
  bool enabled() const { return steps_ > 0; }
  /// Planes that hold weight must stay in W_i (a pairwise step may still move it away).
  bool keeps_weighted_planes() const { return steps_ > 0 && kind_ == Inner::pairwise; }

  /// The local steps on block i. `scores` holds the unary score table of example i at w before
  /// the last step on block i; after_step(false) is called after each local step.
  template <PairSteps Blocks, class AfterStep>
  void run(Blocks& st, WorkingSets& ws, dualgap::StructuredOracle& oracle, const Examples& ex, std::size_t i,
           int iteration, std::vector<double>& scores, AfterStep&& after_step) const {
    for (int s = 0; s < steps_; ++s) {
      double gamma;
      std::size_t best;
      {
        dualgap::Oracle::CallScope scope(oracle, dualgap::CallKind::approximate);
        if (!st.update_scores(i, scores.data())) StructuredOracle::unary_scores(ex, i, st.w, scores);
        if (kind_ == Inner::pairwise) {
          std::size_t away;
          ws.best_and_away(st, i, scores.data(), best, away);
          if (away == ws.size(i) || away == best) break;  // W_i-optimal: nothing to move
          const double gmax = ws.weight(i, away);
          gamma = st.pair_step(i, ws.labels(i, best), ws.offset(i, best), ws.labels(i, away),
                               ws.offset(i, away), scores.data(), gmax);
          if (gamma >= gmax) ws.set_weight(i, away, 0.0), ws.set_weight(i, best, ws.weight(i, best) + gamma);
          else ws.pair_update(i, best, away, gamma);
        } else {
          best = ws.argmax(st, i, scores.data());
          gamma = st.step(i, ws.labels(i, best), ws.offset(i, best), scores.data());
          ws.fw_update(i, best, gamma);
        }
      }
      ws.mark_active(i, best, iteration);
      after_step(false);
      if (gamma <= 0) break;
    }
  }
  /// A storage without pair steps: never enabled with it (see the top).
  template <class Blocks, class AfterStep>
  void run(Blocks&, WorkingSets&, dualgap::StructuredOracle&, const Examples&, std::size_t, int,
           std::vector<double>&, AfterStep&&) const {
    throw std::logic_error("bcfw: inner steps need a block storage with pair steps (marginal tables)");
  }

 private:
  int steps_;
  Inner kind_;
};

}  // namespace dualgap_bcfw
