// The loop of Algorithm 3 (MP-BCFW) of Shah, Kolmogorov, Lampert, CVPR 2015, with the automatic
// rule of section 3.4 and the weighted averaging of section 3.5; Algorithm 2 (BCFW) when there
// are no working sets (multiplane off or N = 0). The paper's box, line by line:
//
//   1: for each i set phi^i <- phi^{i y_i}                        Storage constructor
//   2: set phi = sum_i phi^i                                       (w = 0, DualState)
//   3: if N > 0 then W_i = {phi^i}                                 init_working_sets()
//   4: repeat until some stopping criterion                        run(): the recorder stops it
//   5:   one pass through i in random order: BCFW update with      exact_pass(); with option
//        the exact term H_i(w), add phihat^i to W_i, evict the     batch > 1 in mini-batches:
//        longest inactive plane if |W_i| > N                       minibatch_pass()
//   6:   up to M passes (section 3.4 rule): BCFW update with       approximate_passes()
//        H~_i(w) = max over W_i; remove planes not active
//        during the last T outer iterations
//
// Storage is the block storage the loop is instantiated with (MarginalBlocks or DenseBlocks, or
// SimplexBlocks, whose block step is exact instead of Frank-Wolfe: simplex_blocks.hpp); the order
// of the blocks of a pass is the BlockOrder policy; inner_steps.hpp and shrinking.hpp (exact steps
// only) are extensions that act only when enabled (not in the paper). One recorder pass = one exact
// pass over the data (with shrinking: blocks visited / n); approximate passes are reported in
// the column approx_passes.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "averages.hpp"
#include "block_order.hpp"
#include "dense_blocks.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/solver.hpp"
#include "inner_steps.hpp"
#include "marginal_blocks.hpp"
#include "minibatch.hpp"
#include "options.hpp"
#include "prefetch.hpp"
#include "shrinking.hpp"
#include "simplex_blocks.hpp"
#include "support_scores.hpp"
#include "working_set.hpp"

namespace dualgap_bcfw {

/// Section 3.4: go on with approximate passes while the last one raised the dual F faster per
/// second than the whole outer iteration so far (slope of the last segment >= slope since the
/// start of the iteration, Figure 3), i.e.
///   (F_after - F_before)/(t_after - t_before) >= (F_after - F_start)/(t_after - t_start).
inline bool last_pass_was_steeper(double F_start, double t_start, double F_before, double t_before,
                                  double F_after, double t_after) {
  return !((F_after - F_before) * (t_after - t_start) < (F_after - F_start) * (t_after - t_before));
}

template <class Storage>
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
        inner_(opt.inner_steps, opt.inner),
        batches_(opt.batch_size(), opt.batch_step == BatchStep::sequential, opt.thread_count(), oracle, ex, ctx),
        shrink_(Storage::kExact ? opt.shrinking : 0, n_) {
    if (Storage::kDense && opt_.working_sets()) ws_.keep_vectors(static_cast<std::size_t>(st.w.size()));
    // Inner steps keep the whole table up to date incrementally, so they need it complete.
    support_.enable(opt_.support_scores && !inner_.enabled());
  }

  void run() {
    if (opt_.working_sets()) init_working_sets();  // line 3
    if (rec_.checkpoint(0, fill()) == dualgap::Action::stop) return;
    for (int iteration = 1;; ++iteration) {  // line 4
      // Read by the rule of section 3.4 only (w may be stale in between for exact steps).
      const double F_start = opt_.approximate_passes() ? st_.dual() : 0.0, t_start = rec_.solver_time_s();
      const bool all_blocks = shrink_.begin_pass(iteration);
      const bool full = order_.full_pass(iteration) && all_blocks;
      const bool moved = exact_pass(iteration, order_.full_pass(iteration));  // line 5
      const double passes = passes_;
      if (!moved && full) {
        // No block moved: every block gap at this w is <= 0, so w is optimal.
        converged_ = true;
        sync();
        rec_.checkpoint(passes, fill());
        return;
      }
      approximate_passes(iteration, passes, F_start, t_start);  // line 6
      if (opt_.working_sets())
        ws_.drop_inactive(iteration, opt_.T, inner_.keeps_weighted_planes());  // line 6, last part
      if (rec_.due(passes)) {
        sync();
        if (rec_.checkpoint(passes, fill()) == dualgap::Action::stop) return;
      }
    }
  }

 private:
  /// Line 3: W_i = {phi^i} = {phi^{i y_i}}, holding all of phi^i's weight.
  void init_working_sets() {
    for (std::size_t i = 0; i < n_; ++i) {
      const int* yi = ex_.y.data() + ex_.unit_begin(i);
      const double off = oracle_.loss(ex_, i, yi) + oracle_.constant(ex_, i, yi) - st_.truth_constant(i);
      ws_.set_weight(i, ws_.add(i, yi, off, 0, max_planes(), plane_features(i, yi)), 1.0);
    }
  }

  /// Line 5: one pass of BCFW steps with the exact max-oracle; each oracle plane joins W_i.
  /// Returns whether any block moved.
  bool exact_pass(int iteration, bool full) {
    bool moved = false;
    std::size_t visited = 0;
    // A shrunk pass of permutation sampling permutes only the blocks it visits.
    const std::vector<std::size_t>& order = shrink_.skipping() && opt_.sample == Sampling::permutation
                                                ? order_.permute(shrink_.active())
                                                : order_.next(full);
    if constexpr (!Storage::kExact) {  // exact block steps have batch 1 (Options::validate)
      if (batches_.enabled()) {
        passes_ += 1.0;
        return minibatch_pass(order, iteration);
      }
    }
    const std::size_t m = order.size();
    for (std::size_t t = 0; t < m; ++t) {
      const std::size_t i = order[t];
      if (shrink_.skip(i)) continue;
      ++visited;
      if (t + 1 < m) {
        // Exact steps may read their own copy of the rows (simplex_blocks.hpp): they prefetch.
        if constexpr (Storage::kExact) st_.prefetch(order[t + 1]);
        else prefetch_example(ex_, order[t + 1]);
      }
      if constexpr (Storage::kExact) {
        // A pass that skips blocks steps on a block's active classes only (simplex_blocks.hpp).
        if (shrink_.skipping() && st_.classes_dropped(i)) {
          // Scoring the active classes is the max over a subset of the block's planes: an
          // approximate call, counted but not timed (two clock reads would cost more).
          oracle_.count_untimed(dualgap::CallKind::approximate);
          const double gamma = st_.step_active(i);
          moved |= gamma > 0;
          shrink_.visited(i, gamma > 0, st_.last_violation());
          order_.exact_gap(i, st_.last_gap());
          averages_.after_step(st_, true);
          continue;
        }
      }
      exact_oracle(i);
      const int* yhat = lab_.labels.data();
      const double offset = lab_.loss + lab_.constant - st_.truth_constant(i);
      const double* v = plane_features(i, yhat);
      const double gamma = step(i, yhat, v, offset);
      moved |= gamma > 0;
      shrink_.visited(i, gamma > 0, violation());
      order_.exact_gap(i, st_.last_gap());
      averages_.after_step(st_, true);
      if (opt_.working_sets()) {
        ws_.fw_update(i, ws_.add(i, yhat, offset, iteration, max_planes(), v), gamma);
        inner_steps(i, iteration);
      }
    }
    passes_ += static_cast<double>(visited) / static_cast<double>(n_);
    return moved;
  }

  /// Line 5 with option batch > 1: the pass in mini-batches whose exact oracle calls run in
  /// parallel at the batch's w, and whose blocks then step one by one or together (minibatch.hpp,
  /// Wang et al., ICML 2016); each oracle plane joins W_i with its block's step size.
  bool minibatch_pass(const std::vector<std::size_t>& order, int iteration) {
    using Slot = typename MiniBatches<Storage>::Slot;
    return batches_.pass(
        order, st_,
        [&](const Slot& s, double gamma) {
          order_.exact_gap(s.i, -s.bracket);
          if (opt_.working_sets()) {
            const double* v = nullptr;
            if constexpr (Storage::kDense) v = s.change.plane.data();
            ws_.fw_update(s.i, ws_.add(s.i, s.lab.labels.data(), s.offset, iteration, max_planes(), v), gamma);
          }
        },
        [&](const MiniBatches<Storage>& step) { averages_.after_step(step, st_, true); });
  }

  /// Line 6: up to M passes of BCFW steps with the approximate oracle H~_i over W_i, stopped
  /// early by the rule of section 3.4 (option auto_rule), by the budget, or when a pass no
  /// longer raises the dual.
  void approximate_passes(int iteration, double passes, double F_start, double t_start) {
    approx_passes_last_ = 0;
    if (!opt_.approximate_passes()) return;
    for (int p = 0; p < opt_.M; ++p) {
      const double F_before = st_.dual(), t_before = rec_.solver_time_s();
      const std::vector<std::size_t>& order = order_.next(false);
      for (std::size_t t = 0; t < n_; ++t) {
        const std::size_t i = order[t];
        // Dense blocks never read the feature rows in an approximate call; prefetching them
        // (~3600 cache lines for a horse image) would cost more than the call itself.
        if (!Storage::kDense && t + 1 < n_) prefetch_example(ex_, order[t + 1]);
        std::size_t best;
        {
          dualgap::Oracle::CallScope scope(oracle_, dualgap::CallKind::approximate);
          best = approximate_oracle(i);
        }
        ws_.mark_active(i, best, iteration);
        ws_.fw_update(i, best, step(i, ws_.labels(i, best), plane_vector(i, best), ws_.offset(i, best)));
        averages_.after_step(st_, false);
        inner_steps(i, iteration);
      }
      ++approx_passes_last_;
      const double F_after = st_.dual(), t_after = rec_.solver_time_s();
      if (rec_.out_of_budget(passes)) break;
      if (opt_.auto_rule && !last_pass_was_steeper(F_start, t_start, F_before, t_before, F_after, t_after))
        break;
      if (F_after <= F_before) break;  // no progress left on the working sets
    }
  }

  // ---- what depends on the block storage --------------------------------------------------

  /// H_i(w): the exact max-oracle's labeling in lab_ and the unary score table of w in scores_.
  /// Exact steps on sparse data keep w feature-major and compute the scores themselves.
  void exact_oracle(std::size_t i) {
    if constexpr (Storage::kExact) {
      if (st_.feature_major()) {
        st_.scores(i, scores_);
        oracle_.max_oracle_scored(ex_, i, scores_.data(), nullptr, lab_);
        return;
      }
    }
    oracle_.max_oracle(ex_, i, st_.w, lab_, scores_);
  }
  /// How far the last step's block was from its optimality conditions (exact steps; shrinking).
  double violation() const {
    if constexpr (Storage::kExact) return st_.last_violation();
    else return 0.0;
  }
  /// Makes st_.w current before a checkpoint reads it (inside the solver's time).
  void sync() {
    if constexpr (Storage::kExact) st_.sync_w();
  }

  /// H~_i(w) = max_{phi~ in W_i} <phi~, [w 1]> (equation (6)): the index of the best plane.
  std::size_t approximate_oracle(std::size_t i) {
    if constexpr (Storage::kDense) {
      return ws_.argmax_dense(i, st_.w.data());
    } else if constexpr (Storage::kExact) {
      (void)i;  // exact block steps have no working sets (Options::validate)
      return 0;
    } else {
      if (!support_.fill(ex_, st_, ws_, i, scores_)) StructuredOracle::unary_scores(ex_, i, st_.w, scores_);
      return ws_.argmax(st_, i, scores_.data());
    }
  }
  /// The BCFW step (Algorithm 2, lines 7-8) on block i towards the plane of labeling y with
  /// feature vector v (dense blocks) and the given offset; scores_ is the unary score table of
  /// example i at w (marginal blocks). Returns gamma. SimplexBlocks: the exact block step
  /// (simplex_blocks.hpp), which returns 1 when the block moved.
  double step(std::size_t i, const int* y, const double* v, double offset) {
    if constexpr (Storage::kDense) return st_.step(i, v, offset);
    else return st_.step(i, y, offset, scores_.data());
  }
  /// A new plane's feature vector, which dense working sets keep; nullptr for marginal blocks.
  const double* plane_features(std::size_t i, const int* y) {
    if constexpr (Storage::kDense) return st_.plane_of(i, y);
    else return nullptr;
  }
  /// The stored feature vector of plane p of W_i (dense blocks); nullptr for marginal blocks.
  const double* plane_vector(std::size_t i, std::size_t p) const {
    if constexpr (Storage::kDense) return ws_.vec(i, p);
    else return nullptr;
  }
  void inner_steps(std::size_t i, int iteration) {
    if constexpr (!Storage::kDense && !Storage::kExact) {
      if (inner_.enabled())
        inner_.run(st_, ws_, oracle_, ex_, i, iteration, scores_,
                   [this](bool exact) { averages_.after_step(st_, exact); });
    }
  }
  std::size_t max_planes() const { return static_cast<std::size_t>(opt_.N); }

  // ---- checkpoint: hand the core the iterate and its dual point (the core scores them) ----
  std::function<void(dualgap::Iterate&)> fill() {
    return [this](dualgap::Iterate& it) {
      it.w = &st_.w;
      double circ = st_.phi_circ;
      // Section 3.5: report the weighted average (MP-BCFW-avg: the interpolation of the exact
      // and approximate averages with the best dual value); both the primal iterate and the
      // dual point are then the averaged ones. A converged run reports its optimal iterate.
      if (!converged_) averages_.report(st_, it, w_eval_, circ);
      it.ssvm_dual = dualgap::SsvmDualPoint{nullptr, circ};
      it.set("dense_blocks", Storage::kDense ? 1.0 : 0.0);
      if (Storage::kExact) it.set("exact_steps", 1.0);
      if (shrink_.enabled()) it.set("shrunk", shrink_.shrunk_share());
      if constexpr (Storage::kExact)
        if (opt_.class_shrinking && shrink_.enabled()) it.set("active_classes", st_.active_class_share());
      if (opt_.multiplane) {
        it.set("working_set", ws_.mean_size());
        it.set("approx_passes", approx_passes_last_);
        if (!Storage::kDense) it.set("approx_scores", support_.mean_computed());
      }
      const auto* c = oracle_.counters();
      const double t = rec_.solver_time_s();
      if (c && t > 0) it.set("exact_oracle_share", c->oracle_time_s / t);
    };
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
  InnerSteps inner_;
  MiniBatches<Storage> batches_;
  SupportScores support_;
  Shrinking shrink_;
  dualgap::Labeling lab_;
  std::vector<double> scores_;  ///< unary score table of the current block at w
  Vector w_eval_;               ///< the averaged primal point reported at checkpoints
  int approx_passes_last_ = 0;
  double passes_ = 0;  ///< exact passes so far: blocks visited / n
  bool converged_ = false;
};

}  // namespace dualgap_bcfw
