// Shrinking of exact block steps (option shrinking; with block_step: exact only): which blocks
// an exact pass skips. The idea is LIBLINEAR's (Hsieh et al., ICML 2008, section 3.2; Keerthi
// et al., KDD 2008 for the multi-class solver), applied per example: an exact block step that
// leaves block i unchanged proves phi^i optimal for the current other blocks; at the end of
// training most blocks are such (most examples keep phi^{i y_i}, i.e. no violated margin), and
// while w moves little they stay so. So passes skip them, and
//   - every `every`-th pass visits all blocks again (a block that became suboptimal waits at
//     most that long), and so does the pass after one in which no visited block moved, or in
//     which no visited block violated its optimality conditions by more than eps_shrink (the
//     violation max_k G_k - min over the classes holding weight of G_k, as LIBLINEAR measures
//     it); eps_shrink starts at 1 and halves each time it ends a run of skipping passes, as in
//     LIBLINEAR's Crammer-Singer solver: early on, skipping passes stop at a coarse accuracy of
//     the blocks they visit and the full pass finds the blocks that became suboptimal;
//   - only a pass over all blocks in which no block moved certifies optimality.
// Skipping changes which blocks are visited, never a step: the optimum reached is the same.
// With threads (async_exact_steps.hpp) each block's flag is set by the thread that stepped it,
// and the pass-level state (a move, the largest violation) is merged after the threads join, so
// every decision above is taken between passes, on the joined state.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "block_order.hpp"

namespace dualgap_bcfw {

class Shrinking {
 public:
  /// every = 0: off (every pass visits all blocks).
  Shrinking(int every, std::size_t n) : every_(every), shrunk_(every > 0 ? n : 0, 0) {}

  bool enabled() const { return every_ > 0; }
  /// Whether the exact pass of this outer iteration visits every block (and re-decides which
  /// are shrunk). Call once per iteration, before the pass.
  bool begin_pass(int iteration) {
    const bool accurate = skipped_last_ && violation_last_ < eps_shrink_;
    full_ = !enabled() || iteration % every_ == 1 || every_ == 1 || !moved_last_ || accurate;
    if (accurate) eps_shrink_ /= 2;
    skipped_last_ = !full_;
    moved_last_ = false;
    violation_last_ = 0;
    return full_;
  }
  /// Whether block i is skipped in this pass.
  bool skip(std::size_t i) const { return !full_ && shrunk_[i]; }
  /// Whether this pass skips some blocks.
  bool skipping() const { return !full_; }
  /// The blocks this pass visits, in index order (a pass's order permutes them: permuting n
  /// indices to visit a tenth of them would cost more than the skipping saves).
  std::vector<BlockIndex>& active() {
    active_.clear();
    for (std::size_t i = 0; i < shrunk_.size(); ++i)
      if (!shrunk_[i]) active_.push_back(static_cast<BlockIndex>(i));
    return active_;
  }
  /// After the exact step on block i: moved = whether the block changed, violation = how far
  /// the block was from its optimality conditions before the step.
  void visited(std::size_t i, bool moved, double violation) {
    moved_last_ |= moved;
    violation_last_ = std::max(violation_last_, violation);
    if (enabled()) shrunk_[i] = !moved;
  }
  /// visited() in two halves, for passes on several threads (async_exact_steps.hpp): mark() on
  /// the thread that holds block i (it writes block i's flag only), merge() once the threads have
  /// joined, with whether any of their blocks moved and their largest violation.
  void mark(std::size_t i, bool moved) {
    if (enabled()) shrunk_[i] = !moved;
  }
  void merge(bool moved, double violation) {
    moved_last_ |= moved;
    violation_last_ = std::max(violation_last_, violation);
  }
  /// Share of the blocks currently shrunk (for the record).
  double shrunk_share() const {
    if (shrunk_.empty()) return 0.0;
    std::size_t s = 0;
    for (char b : shrunk_) s += b != 0;
    return static_cast<double>(s) / static_cast<double>(shrunk_.size());
  }

 private:
  int every_;
  std::vector<char> shrunk_;
  std::vector<BlockIndex> active_;
  bool full_ = true;
  bool moved_last_ = true;
  bool skipped_last_ = false;   ///< the last pass skipped blocks
  double violation_last_ = 0;   ///< the largest violation of a block the last pass visited
  double eps_shrink_ = 1.0;     ///< LIBLINEAR: max(10 eps, 1) with its default eps 0.1
};

}  // namespace dualgap_bcfw
