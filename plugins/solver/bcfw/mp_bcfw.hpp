// Frank-Wolfe block steps on the dual of the structural SVM (dual_state.hpp),
//   min_w  lambda/2 ||w||^2 + (1/n) sum_i max_y [Delta(y_i,y) + c(y) - c(y_i) + <w, phi(x_i,y) - phi(x_i,y_i)>]:
// the loop of Algorithm 3 (MP-BCFW) of Shah, Kolmogorov, Lampert, CVPR 2015, with the automatic
// rule of section 3.4 and the weighted averaging of section 3.5; Algorithm 2 (BCFW) when there
// are no working sets (multiplane off or N = 0). The paper's box, line by line:
//
//   1: for each i set phi^i <- phi^{i y_i}                        Storage constructor
//   2: set phi = sum_i phi^i                                       (w = 0, DualState)
//   3: if N > 0 then W_i = {phi^i}                                 init_working_sets()
//   4: repeat until some stopping criterion                        run(): the recorder stops it,
//                                                                  or a full pass moves no block
//   5:   one pass through i in random order: BCFW update with      exact_pass(); with option
//        the exact term H_i(w), add phihat^i to W_i, evict the     batch > 1 in mini-batches:
//        longest inactive plane if |W_i| > N                       minibatch_pass()
//   6:   up to M passes (section 3.4 rule): BCFW update with       approximate_passes()
//        H~_i(w) = max over W_i; remove planes not active
//        during the last T outer iterations                        ws_.drop_inactive()
//
// Storage is the block storage, MarginalBlocks or DenseBlocks, run through the interface
// FrankWolfeBlocks below (what a plane keeps, the step towards a plane, H~_i over W_i); the order
// of the blocks of a pass is the BlockOrder policy; inner_steps.hpp is an extension that acts only
// when enabled (not in the paper). Exact block steps (SimplexBlocks) have their own loop,
// exact_steps.hpp. One recorder pass = one exact pass over the data; approximate passes are
// reported in the column approx_passes.
#pragma once

#include <concepts>
#include <cstddef>
#include <vector>

#include "averages.hpp"
#include "block_order.hpp"
#include "checkpoints.hpp"
#include "dual_state.hpp"
#include "dualgap/iterate.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/solver.hpp"
#include "inner_steps.hpp"
#include "minibatch.hpp"
#include "options.hpp"
#include "prefetch.hpp"
#include "working_set.hpp"

namespace dualgap_bcfw {

/// What the loop asks of a block storage whose block step is a Frank-Wolfe step (MarginalBlocks,
/// DenseBlocks), beside the dual state (w, phi_circ, dual(), the block offsets, last_gap(),
/// add_last_change() for the averages) and the mini-batch steps (minibatch.hpp):
///   plane_size()              doubles a working-set plane keeps beside its labeling (0: none)
///   plane_features(i, y)      the feature vector of a new plane of example i (nullptr if none kept)
///   step(i, plane, S)         the BCFW step on block i towards `plane` (Algorithm 2, lines 7-8),
///                             S the unary score table of example i at w; returns gamma
///   best_plane(ws, i, S)      H~_i(w): the index of the best plane of W_i (equation (6)), with
///                             S as the following step reads it
///   prefetch_approximate(i)   the hint for what an approximate call on block i reads
///   approximate_columns(it)   the record's columns about approximate calls
///   kDense                    the record's column dense_blocks
/// Both implement it, so the loop has no branch on the storage.
template <class S>
concept FrankWolfeBlocks =
    std::derived_from<S, DualState> &&
    requires(S& st, const S& cst, std::size_t i, const int* y, const Plane& plane, const double* scores,
             std::vector<double>& table, const WorkingSets& ws, dualgap::Iterate& it, double* target,
             typename S::Direction& change) {
      { cst.plane_size() } -> std::same_as<std::size_t>;
      { st.plane_features(i, y) } -> std::same_as<const double*>;
      { st.step(i, plane, scores) } -> std::same_as<double>;
      { st.best_plane(ws, i, table) } -> std::same_as<std::size_t>;
      cst.prefetch_approximate(i);
      cst.approximate_columns(it);
      cst.add_last_change(target, 1.0);
      { S::kDense } -> std::convertible_to<bool>;
      cst.direction(i, y, 0.0, scores, change);
      st.move_block(i, 0.0, change);
      { change.plane_features() } -> std::same_as<const double*>;
    };

/// Section 3.4: go on with approximate passes while the last one raised the dual F faster per
/// second than the whole outer iteration so far (slope of the last segment >= slope since the
/// start of the iteration, Figure 3), i.e.
///   (F_after - F_before)/(t_after - t_before) >= (F_after - F_start)/(t_after - t_start).
inline bool last_pass_was_steeper(double F_start, double t_start, double F_before, double t_before,
                                  double F_after, double t_after) {
  return !((F_after - F_before) * (t_after - t_start) < (F_after - F_start) * (t_after - t_before));
}

template <FrankWolfeBlocks Storage>
class MpBcfw {
 public:
  MpBcfw(const Options& opt, dualgap::StructuredOracle& oracle, const Examples& ex, Storage& st,
         dualgap::SolverContext& ctx)
      : opt_(opt),
        oracle_(oracle),
        ex_(ex),
        n_(ex.num_examples()),
        st_(st),
        rec_(*ctx.recorder),
        ws_(ex),
        order_(opt.sample, opt.gap_refresh, n_, ctx.seed),
        averages_(opt.averaging, opt.multiplane, st.w.size()),
        checkpoints_(rec_, oracle, st, averages_, [this](dualgap::Iterate& it) { columns(it); }),
        inner_(opt.inner_steps, opt.inner),
        batches_(opt.batch_size(), opt.batch_step == BatchStep::sequential, opt.threads, oracle, ex, ctx) {
    if (opt_.working_sets()) ws_.keep_vectors(st.plane_size());
  }

  void run() {
    if (opt_.working_sets()) init_working_sets();  // line 3
    if (checkpoints_.record(0) == dualgap::Action::stop) return;
    for (int iteration = 1;; ++iteration) {  // line 4
      // Read by the rule of section 3.4 only.
      const double F_start = opt_.approximate_passes() ? st_.dual() : 0.0, t_start = rec_.solver_time_s();
      // Only a pass that visits every block (not one of gap sampling between refreshes) can
      // prove w optimal.
      const bool full = order_.full_pass(iteration);
      const bool moved = exact_pass(iteration, full);  // line 5
      if (!moved && full) {
        // No block moved: every block gap at this w is <= 0, so w is optimal.
        checkpoints_.optimal(passes_);
        return;
      }
      approximate_passes(iteration, F_start, t_start);  // line 6
      if (opt_.working_sets())
        ws_.drop_inactive(iteration, opt_.T, inner_.keeps_weighted_planes());  // line 6, last part
      if (checkpoints_.due(passes_) && checkpoints_.record(passes_) == dualgap::Action::stop) return;
    }
  }

 private:
  /// Line 3: W_i = {phi^i} = {phi^{i y_i}}, holding all of phi^i's weight.
  void init_working_sets() {
    for (std::size_t i = 0; i < n_; ++i) {
      const int* yi = ex_.y.data() + ex_.unit_begin(i);
      const double off = oracle_.loss(ex_, i, yi) + oracle_.constant(ex_, i, yi) - st_.truth_constant(i);
      ws_.set_weight(i, ws_.add(i, yi, off, 0, max_planes(), st_.plane_features(i, yi)), 1.0);
    }
  }

  /// Line 5: one pass of BCFW steps with the exact max-oracle; each oracle plane joins W_i.
  /// Returns whether any block moved.
  bool exact_pass(int iteration, bool full) {
    const std::vector<BlockIndex>& order = order_.next(full);
    passes_ += 1.0;
    if (batches_.enabled()) return minibatch_pass(order, iteration);
    bool moved = false;
    for (std::size_t t = 0; t < n_; ++t) {
      if (t + 1 < n_) prefetch_example(ex_, order[t + 1]);
      moved |= exact_step(order[t], iteration) > 0;
    }
    return moved;
  }
  /// Line 5 on block i: the BCFW update with the exact term H_i(w) (Algorithm 2, lines 6-8),
  /// then phihat^i joins W_i (the longest inactive plane leaves beyond N). Returns gamma.
  double exact_step(std::size_t i, int iteration) {
    // phihat^i: the exact max-oracle's labeling, with the unary score table of w
    oracle_.max_oracle(ex_, i, st_.w, lab_, scores_);
    const int* yhat = lab_.labels.data();
    const Plane phihat{yhat, lab_.loss + lab_.constant - st_.truth_constant(i), st_.plane_features(i, yhat)};
    const double gamma = st_.step(i, phihat, scores_.data());
    order_.exact_gap(i, st_.last_gap());
    averages_.after_step(st_, true);
    if (opt_.working_sets()) {
      ws_.fw_update(i, ws_.add(i, yhat, phihat.offset, iteration, max_planes(), phihat.features), gamma);
      inner_steps(i, iteration);
    }
    return gamma;
  }

  /// Line 5 with option batch > 1: the pass in mini-batches whose exact oracle calls run in
  /// parallel at the batch's w, and whose blocks then step one by one or together (minibatch.hpp,
  /// Wang et al., ICML 2016); each oracle plane joins W_i with its block's step size.
  bool minibatch_pass(const std::vector<BlockIndex>& order, int iteration) {
    using Slot = typename MiniBatches<Storage>::Slot;
    return batches_.pass(
        order, st_,
        [&](const Slot& s, double gamma) {
          order_.exact_gap(s.i, -s.bracket);
          if (opt_.working_sets())
            ws_.fw_update(s.i,
                          ws_.add(s.i, s.lab.labels.data(), s.offset, iteration, max_planes(),
                                  s.change.plane_features()),
                          gamma);
        },
        [&](const MiniBatches<Storage>& step) { averages_.after_step(step, st_, true); });
  }

  /// Line 6: up to M passes of BCFW steps with the approximate oracle H~_i over W_i, stopped
  /// early by the rule of section 3.4 (option auto_rule), by the budget, or when a pass no
  /// longer raises the dual.
  void approximate_passes(int iteration, double F_start, double t_start) {
    approx_passes_last_ = 0;
    if (!opt_.approximate_passes()) return;
    for (int p = 0; p < opt_.M; ++p) {
      const double F_before = st_.dual(), t_before = rec_.solver_time_s();
      const std::vector<BlockIndex>& order = order_.next(false);
      for (std::size_t t = 0; t < n_; ++t) {
        if (t + 1 < n_) st_.prefetch_approximate(order[t + 1]);
        approximate_step(order[t], iteration);
      }
      ++approx_passes_last_;
      const double F_after = st_.dual(), t_after = rec_.solver_time_s();
      if (rec_.out_of_budget(passes_)) break;
      if (opt_.auto_rule && !last_pass_was_steeper(F_start, t_start, F_before, t_before, F_after, t_after))
        break;
      if (F_after <= F_before) break;  // no progress left on the working sets
    }
  }
  /// Line 6 on block i: the BCFW update with H~_i(w) = max over W_i (equation (6)); the plane
  /// it returns is active in this iteration.
  void approximate_step(std::size_t i, int iteration) {
    std::size_t best;
    {
      dualgap::Oracle::CallScope scope(oracle_, dualgap::CallKind::approximate);
      best = st_.best_plane(ws_, i, scores_);
    }
    ws_.mark_active(i, best, iteration);
    ws_.fw_update(i, best, st_.step(i, ws_.plane(i, best), scores_.data()));
    averages_.after_step(st_, false);
    inner_steps(i, iteration);
  }

  /// Extension (inner_steps.hpp): block-local steps over W_i after a step on block i.
  void inner_steps(std::size_t i, int iteration) {
    if (inner_.enabled())
      inner_.run(st_, ws_, oracle_, ex_, i, iteration, scores_,
                 [this](bool exact) { averages_.after_step(st_, exact); });
  }
  std::size_t max_planes() const { return static_cast<std::size_t>(opt_.N); }

  /// The loop's columns at a checkpoint (checkpoints.hpp adds the iterate and its dual point).
  void columns(dualgap::Iterate& it) const {
    it.set("dense_blocks", Storage::kDense ? 1.0 : 0.0);
    if (opt_.multiplane) {
      it.set("working_set", ws_.mean_size());
      it.set("approx_passes", approx_passes_last_);
      st_.approximate_columns(it);
    }
  }

  const Options& opt_;
  dualgap::StructuredOracle& oracle_;
  const Examples& ex_;
  const std::size_t n_;
  Storage& st_;
  dualgap::Recorder& rec_;
  WorkingSets ws_;
  BlockOrder order_;
  IterateAverages averages_;
  Checkpoints checkpoints_;
  InnerSteps inner_;
  MiniBatches<Storage> batches_;
  dualgap::Labeling lab_;
  std::vector<double> scores_;  ///< unary score table of the current block at w
  int approx_passes_last_ = 0;
  double passes_ = 0;  ///< exact passes so far
};

}  // namespace dualgap_bcfw
