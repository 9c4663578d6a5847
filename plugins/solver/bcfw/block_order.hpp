// Block order of a pass (option sample): which blocks i a pass of Algorithm 3 visits, and in
// which order. The paper's "one pass through i in [n] in random order" is `permutation`; the
// others are `uniform` (n independent uniform draws), `cyclic` (0..n-1 every pass) and `gap`:
// gap sampling of Osokin, Alayrac, Lukasewitz, Dokania, Lacoste-Julien, ICML 2016, section 3.1,
// where block i is drawn with probability proportional to its block gap measured at its last
// exact oracle call; every gap_refresh-th exact pass is a full permutation pass, which refreshes
// every block's gap (and is the only kind of pass whose "no block moved" certifies optimality).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "dualgap/random.hpp"
#include "options.hpp"

namespace dualgap_bcfw {

/// A block (example) index in a pass's order: 32 bits, 4 bytes per example instead of 8.
using BlockIndex = std::uint32_t;

class BlockOrder {
 public:
  BlockOrder(Sampling sample, int gap_refresh, std::size_t n, std::uint64_t seed)
      : sample_(sample), gap_refresh_(gap_refresh), n_(n), rng_(seed), order_(n) {
    if (n > std::numeric_limits<BlockIndex>::max())
      throw std::runtime_error("bcfw: more than 2^32 - 1 examples");
    std::iota(order_.begin(), order_.end(), BlockIndex{0});
    // The block gaps (and their running sums) only where gap sampling reads them.
    if (sample_ == Sampling::gap) block_gap_.assign(n, 1.0), cum_.assign(n, 0.0);
  }

  /// Whether the exact pass of this outer iteration visits every block once (always, except for
  /// gap sampling between refreshes): only then does "no block moved" prove optimality.
  bool full_pass(int iteration) const {
    return sample_ != Sampling::gap || iteration % gap_refresh_ == 1 || gap_refresh_ == 1;
  }

  /// The blocks of the next pass (n of them); full: the exact pass of a full_pass iteration.
  const std::vector<BlockIndex>& next(bool full) {
    if (sample_ == Sampling::permutation) {
      dualgap::shuffle(order_, rng_);
    } else if (sample_ == Sampling::gap && full) {
      std::iota(order_.begin(), order_.end(), BlockIndex{0});
      dualgap::shuffle(order_, rng_);
    } else if (sample_ == Sampling::uniform) {
      for (auto& i : order_) i = static_cast<BlockIndex>(rng_.below(n_));
    } else if (sample_ == Sampling::gap) {
      double total = 0;
      for (std::size_t i = 0; i < n_; ++i) cum_[i] = (total += std::max(block_gap_[i], 0.0));
      if (!(total > 0)) {
        std::iota(order_.begin(), order_.end(), BlockIndex{0});
        dualgap::shuffle(order_, rng_);
        return order_;
      }
      for (auto& i : order_) {
        const double u = total * rng_.uniform();
        i = static_cast<BlockIndex>(std::min<std::size_t>(
            static_cast<std::size_t>(std::upper_bound(cum_.begin(), cum_.end(), u) - cum_.begin()), n_ - 1));
      }
    }
    return order_;
  }

  /// A random permutation of `blocks` (a subset of the blocks: those shrinking leaves), from
  /// this order's random stream.
  const std::vector<BlockIndex>& permute(std::vector<BlockIndex>& blocks) {
    dualgap::shuffle(blocks, rng_);
    return blocks;
  }

  /// After an exact step on block i: n times its block gap g_i (DualState::last_gap); kept for
  /// gap sampling only.
  void exact_gap(std::size_t i, double gap) {
    if (!block_gap_.empty()) block_gap_[i] = gap;
  }

 private:
  Sampling sample_;
  int gap_refresh_;
  std::size_t n_;
  dualgap::SplitMix64 rng_;
  std::vector<BlockIndex> order_;
  std::vector<double> block_gap_, cum_;  ///< gap sampling only
};

}  // namespace dualgap_bcfw
