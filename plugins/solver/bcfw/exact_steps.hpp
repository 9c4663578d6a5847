// Exact block steps on multi-class data (option block_step: exact): the structural SVM with one
// unit per example and no transition features, i.e. the Crammer-Singer multi-class SVM,
//   min_w  lambda/2 ||w||^2 + (1/n) sum_i max_k [o_i(k) + <w_k - w_{y_i}, x_i>],
//   o_i(k) = Delta(y_i, k) + c(k) - c(y_i),
// solved on the dual of dual_state.hpp by Algorithm 2 (BCFW) of Shah, Kolmogorov, Lampert,
// CVPR 2015 with lines 7-8 (the line search towards the oracle's plane) replaced by maximizing
// the dual over block i exactly (simplex_blocks.hpp): the sequential dual method of Keerthi,
// Sundararajan, Chang, Hsieh, Lin, KDD 2008, which LIBLINEAR -s 4 runs (Solver_MCSVM_CS), here
// with LIBLINEAR's shrinking of blocks (shrinking.hpp) and of classes (simplex_blocks.hpp).
// Algorithm 2's box as this loop runs it:
//
//   1-2: phi^i = phi^{i y_i} (mbar_i = e_{y_i}), phi = sum_i phi^i   SimplexBlocks constructor (w = 0)
//   3:   repeat                                                       run()
//   4:     pick i: one pass in the order of BlockOrder, without       pass()
//          the blocks Shrinking skips
//   5:     w = -phi_star / lambda                                     kept by every step (sparse data:
//                                                                      feature-major, sync_w before a checkpoint)
//   6:     exact oracle call at w: S_k = <w_k, x_i> and the best k    step(); on a block with dropped
//                                                                      classes in a skipping pass, only the
//                                                                      active classes: step_on_active_classes()
//   7-8:   phi^i <- the block optimum m* (a projection onto the      SimplexBlocks::step
//          simplex), phi and w with it
//   9:   until the recorder stops the run, or a pass over all blocks moves none (w is then
//        optimal: every block is optimal for the others fixed)
//
// One recorder pass = blocks visited / n (= exact and approximate oracle calls / n). Passes that
// skip shrunk blocks are fractions of a pass, so the pass that reaches a budget of passes stops
// at the block where it is reached: a run with max_passes P ends at P passes, not past it.
//
// With threads > 1 (option threads) lines 4-8 of a pass run on all threads at once, each step
// on the shared w (PASSCoDe, async_exact_steps.hpp); the threads join at the end of the pass, so
// everything else above (line 9, shrinking's decisions, checkpoints) sees the joined state. With
// wild updates (async_updates: wild) a change of w may be lost: w is rebuilt from the blocks
// (rebuild_w) before a checkpoint scores it and before line 9 accepts a pass, which then must
// have started from the rebuilt w. With copies each thread steps on its own copy of w, and
// after the join every copy holds every move (the storage's w is thread 0's copy); the others
// are set to it after each checkpoint. A pass that may reach the budget is handed to the threads in
// segments, the budget asked between them: a budget of passes still stops the run at the same
// count of visited blocks as one thread does (the last segment ends at the visit that reaches it). The time and oracle-call
// budgets are asked before each pass and, in a pass that may reach the budget, between segments
// of at most kSegment blocks per thread (one thread: before each block of such a pass); so a run
// overshoots them by at most the rest of a pass, as with one thread. threads: 1 runs the serial
// pass below, unchanged.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <vector>

#include "async_exact_steps.hpp"
#include "averages.hpp"
#include "block_order.hpp"
#include "checkpoints.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/solver.hpp"
#include "options.hpp"
#include "shrinking.hpp"
#include "simplex_blocks.hpp"

namespace dualgap_bcfw {

/// Blocks: a SimplexBlocks<C> (simplex_blocks.hpp).
template <class Blocks>
class ExactSteps {
 public:
  ExactSteps(const Options& opt, dualgap::StructuredOracle& oracle, const Examples& ex, Blocks& st,
             dualgap::SolverContext& ctx)
      : opt_(opt),
        oracle_(oracle),
        ex_(ex),
        n_(ex.num_examples()),
        rec_(*ctx.recorder),
        st_(st),
        order_(opt.sample, opt.gap_refresh, n_, ctx.seed),
        shrink_(opt.shrinking, n_),
        averages_(opt.averaging, /*approximate steps:*/ false, st.w.size()),
        checkpoints_(*ctx.recorder, oracle, st, averages_, [this](dualgap::Iterate& it) { columns(it); }) {
    if (opt.threads > 1) {
      // Options::validate refuses it; the averages would need the steps in one order.
      if (opt.averaging) throw std::logic_error("bcfw: exact steps on several threads have no averaging");
      async_ = std::make_unique<AsyncExactSteps<Blocks>>(opt.threads, opt.async_updates, oracle, ex, st, shrink_, order_,
                                                        order_.repeats(), ctx);
    }
  }

  void run() {
    if (checkpoint(0) == dualgap::Action::stop) return;
    for (int iteration = 1;; ++iteration) {  // line 3
      // Only a pass over all blocks can prove w optimal.
      const bool all_blocks = shrink_.begin_pass(iteration) && order_.full_pass(iteration);
      bool cut = false;
      const bool moved = pass(iteration, cut);
      if (cut) {  // the budget was reached inside the pass: its checkpoint ends the run
        if (checkpoint(passes()) == dualgap::Action::stop) return;
        continue;
      }
      if (!moved && all_blocks) {  // line 9
        if (!w_exact_) {
          // Wild steps may have lost changes of w before this pass: its blocks were optimal at
          // a w that is not w(alpha). Rebuild w; the next full pass decides.
          rebuild_w();
          continue;
        }
        st_.sync_w();
        checkpoints_.optimal(passes());
        return;
      }
      if (checkpoints_.due(passes()) && checkpoint(passes()) == dualgap::Action::stop) return;
    }
  }

 private:
  /// Lines 4-8 for one pass; returns whether any block moved. `cut`: the pass stopped at a block
  /// where the recorder's budget was reached (asked per block only in a pass that can reach it).
  bool pass(int iteration, bool& cut) {
    // A pass that skips blocks orders only the blocks it visits (permutation, chunked).
    const std::vector<BlockIndex>& order = shrink_.skipping() && order_.orders_subsets()
                                                ? order_.permute(shrink_.active())
                                                : order_.next(order_.full_pass(iteration));
    if (async_) return async_pass(order, cut);
    bool moved = false;
    const std::size_t m = order.size();
    const bool may_reach_budget = rec_.out_of_budget(static_cast<double>(visited_ + m) / static_cast<double>(n_));
    for (std::size_t t = 0; t < m; ++t) {
      const std::size_t i = order[t];
      if (shrink_.skip(i)) continue;
      if (may_reach_budget && rec_.out_of_budget(passes())) {
        cut = true;
        break;
      }
      ++visited_;
      if (t + 1 < m) st_.prefetch(order[t + 1]);
      const bool moved_i = shrink_.skipping() && st_.classes_dropped(i) ? step_on_active_classes(i) : step(i);
      moved |= moved_i;
      shrink_.visited(i, moved_i, st_.last_violation());
      order_.exact_gap(i, st_.last_gap());
      averages_.after_step(st_, true);
    }
    return moved;
  }
  /// Blocks visited / n, from the whole count (no rounding error accumulates over passes).
  double passes() const { return static_cast<double>(visited_) / static_cast<double>(n_); }

  /// pass() on all threads (async_exact_steps.hpp): the whole order in one parallel section, or,
  /// in a pass that may reach the budget, in segments with the budget asked before each.
  bool async_pass(const std::vector<BlockIndex>& order, bool& cut) {
    const std::size_t m = order.size();
    const bool may_reach_budget = rec_.out_of_budget(static_cast<double>(visited_ + m) / static_cast<double>(n_));
    bool moved = false;
    for (std::size_t begin = 0; begin < m;) {
      std::size_t end = m;
      if (may_reach_budget) {
        if (rec_.out_of_budget(passes())) {
          cut = true;
          break;
        }
        end = begin + budget_segment(m - begin);
      }
      const auto done = async_->run(order, begin, end, shrink_.skipping());
      if (done.moved && async_->wild()) w_exact_ = false;
      visited_ += done.visited;
      moved |= done.moved;
      shrink_.merge(done.moved, done.violation);
      begin = end;
    }
    return moved;
  }
  /// Blocks per thread in a segment of a pass that may reach the budget (the time and
  /// oracle-call budgets are asked once per segment).
  static constexpr std::size_t kSegment = 512;
  /// The next segment of a pass that may reach the budget, out of `left` positions: at most
  /// kSegment per thread, and no more than the k visits after which the budget of passes is
  /// reached (the smallest k with out_of_budget((visited + k) / n), by bisection: the budget is
  /// monotone in passes). A position is at most one visit, so the run stops at the visit where
  /// one thread stops. (The caller has checked that the budget is not reached at k = 0.)
  std::size_t budget_segment(std::size_t left) const {
    auto reached = [&](std::size_t k) {
      return rec_.out_of_budget(static_cast<double>(visited_ + k) / static_cast<double>(n_));
    };
    std::size_t hi = std::min(left, kSegment * static_cast<std::size_t>(async_->threads()));
    if (!reached(hi)) return hi;
    std::size_t lo = 0;
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (reached(mid) ? hi : lo) = mid;
    }
    return hi;
  }

  /// Lines 6-8 on block i: the exact oracle call at w (sparse data: the scores from the
  /// feature-major w), then the block moves to its optimum. Returns whether it moved.
  bool step(std::size_t i) {
    if (st_.feature_major()) {
      st_.scores(i, scores_);
      oracle_.max_oracle_scored(ex_, i, scores_.data(), nullptr, lab_);
    } else {
      oracle_.max_oracle(ex_, i, st_.w, lab_, scores_);
    }
    const double offset = lab_.loss + lab_.constant - st_.truth_constant(i);
    return st_.step(i, lab_.labels.data(), offset, scores_.data());
  }
  /// The step of a pass that skips blocks on a block with dropped classes: scores its active
  /// classes only and solves the sub-problem on their face of the simplex. The max over a subset
  /// of the block's planes: an approximate call, counted but not timed (two clock reads would
  /// cost more than the scores).
  bool step_on_active_classes(std::size_t i) {
    oracle_.count_untimed(dualgap::CallKind::approximate);
    return st_.step_active(i);
  }

  /// A checkpoint with w made current, then back to the layout of the passes (both inside the
  /// solver's time) unless the run stops there: the last checkpoint leaves w as it was scored.
  dualgap::Action checkpoint(double passes) {
    if (!w_exact_) rebuild_w();
    st_.sync_w();
    const dualgap::Action action = checkpoints_.record(passes);
    if (action != dualgap::Action::stop) {
      st_.resume_passes();
      if (async_) async_->copies_from_w();
    }
    return action;
  }
  /// w = w(alpha) again after wild steps (solver time: the loop's own repair of its iterate).
  void rebuild_w() {
    const auto start = std::chrono::steady_clock::now();
    async_->rebuild_w();  // on all threads (only wild steps, which are threaded, lose changes)
    w_exact_ = true;
    ++rebuilds_;
    rebuild_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  /// The loop's columns at a checkpoint (checkpoints.hpp adds the iterate and its dual point).
  void columns(dualgap::Iterate& it) const {
    it.set("dense_blocks", 0.0);
    it.set("exact_steps", 1.0);
    if (shrink_.enabled()) it.set("shrunk", shrink_.shrunk_share());
    if (shrink_.enabled() && opt_.class_shrinking) it.set("active_classes", st_.active_class_share());
    if (async_) {
      it.set("threads", static_cast<double>(async_->threads()));
      it.set("other_threads_share", async_->others_share());
      if (async_->wild()) {
        it.set("w_rebuilds", static_cast<double>(rebuilds_));
        it.set("w_rebuild_time", rebuild_s_);
      }
    }
  }

  const Options& opt_;
  dualgap::StructuredOracle& oracle_;
  const Examples& ex_;
  const std::size_t n_;
  dualgap::Recorder& rec_;
  Blocks& st_;
  BlockOrder order_;
  Shrinking shrink_;
  IterateAverages averages_;
  Checkpoints checkpoints_;
  dualgap::Labeling lab_;
  std::vector<double> scores_;  ///< S: the scores <w_k, x_i> of the current block at w
  std::size_t visited_ = 0;     ///< blocks visited so far (passes() = visited_ / n)
  /// w = w(alpha) up to rounding: false after a pass of wild steps that moved a block, until
  /// rebuild_w(); the stopping rule and a checkpoint need it true.
  bool w_exact_ = true;
  std::size_t rebuilds_ = 0;    ///< rebuild_w() calls so far (the column w_rebuilds)
  double rebuild_s_ = 0;        ///< their seconds, a part of solver time (the column w_rebuild_time)
  /// threads > 1: the passes on all threads; last member, so its threads stop first.
  std::unique_ptr<AsyncExactSteps<Blocks>> async_;
};

}  // namespace dualgap_bcfw
