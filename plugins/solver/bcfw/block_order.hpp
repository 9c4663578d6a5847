// Block order of a pass (option sample): which blocks i a pass of Algorithm 3 visits, and in
// which order. The paper's "one pass through i in [n] in random order" is `permutation`; the
// others are `uniform` (n independent uniform draws), `cyclic` (0..n-1 every pass) and `gap`:
// gap sampling of Osokin, Alayrac, Lukasewitz, Dokania, Lacoste-Julien, ICML 2016, section 3.1,
// where block i is drawn with probability proportional to its block gap measured at its last
// exact oracle call; every gap_refresh-th exact pass is a full permutation pass, which refreshes
// every block's gap (and is the only kind of pass whose "no block moved" certifies optimality).
// `chunked` is a random permutation of a restricted kind: the blocks in chunks of kChunk
// consecutive examples, the chunks in a random order and the blocks of each in a random order.
// A chunk's rows and dual state lie together in memory, so a pass reads memory in runs instead
// of one cache line per page at random; on data far larger than the cache a fully random order
// spends most of a visit waiting for memory (bcfw's README, "Block order").
#pragma once

#include <algorithm>
#include <cstddef>
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
  /// Blocks per chunk of the chunked order: 256 consecutive examples, whose rows and dual state
  /// lie together in memory.
  static constexpr std::size_t kChunk = 256;
  /// sample: auto takes the chunked order from this many examples on, the permutation below. On
  /// the generated family of bench/scale (30 nonzeros per row, K 20, one thread) chunked reached
  /// 1e-3 in the same time at n = 20 000 and 1.7x, 2.5x, 2.6x and 5.2x sooner at 40 000, 80 000,
  /// 320 000 and 1 280 000 (bcfw's README, "Block order"). A count of examples, not bytes against
  /// a cache size: the same experiment takes the same order on every machine.
  static constexpr std::size_t kChunkedFrom = std::size_t{1} << 15;

  /// The order `sample` names for n blocks (auto resolved).
  static Sampling resolve(Sampling sample, std::size_t n) {
    if (sample != Sampling::automatic) return sample;
    return n >= kChunkedFrom ? Sampling::chunked : Sampling::permutation;
  }

  BlockOrder(Sampling sample, int gap_refresh, std::size_t n, std::uint64_t seed)
      : sample_(resolve(sample, n)), gap_refresh_(gap_refresh), n_(n), rng_(seed), order_(n) {
    if (n > std::numeric_limits<BlockIndex>::max())
      throw std::runtime_error("bcfw: more than 2^32 - 1 examples");
    std::iota(order_.begin(), order_.end(), BlockIndex{0});
    // The block gaps (and their running sums) only where gap sampling reads them.
    if (sample_ == Sampling::gap) block_gap_.assign(n, 1.0), cum_.assign(n, 0.0);
  }

  Sampling sampling() const { return sample_; }
  /// Whether a pass may visit a block more than once (uniform and gap sampling draw blocks).
  bool repeats() const { return sample_ == Sampling::uniform || sample_ == Sampling::gap; }
  /// Whether a pass that skips blocks (shrinking) orders just the blocks it visits, in this
  /// order's form (permutation, chunked); the others draw their pass over all blocks as usual.
  bool orders_subsets() const { return sample_ == Sampling::permutation || sample_ == Sampling::chunked; }

  /// Whether the exact pass of this outer iteration visits every block once (always, except for
  /// gap sampling between refreshes): only then does "no block moved" prove optimality.
  bool full_pass(int iteration) const {
    return sample_ != Sampling::gap || iteration % gap_refresh_ == 1 || gap_refresh_ == 1;
  }

  /// The blocks of the next pass (n of them); full: the exact pass of a full_pass iteration.
  const std::vector<BlockIndex>& next(bool full) {
    if (sample_ == Sampling::permutation) {
      dualgap::shuffle(order_, rng_);
    } else if (sample_ == Sampling::chunked) {
      chunk_shuffle(order_);
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
    if (sample_ == Sampling::chunked) {
      chunk_shuffle(blocks);
    } else {
      dualgap::shuffle(blocks, rng_);
    }
    return blocks;
  }

  /// After an exact step on block i: n times its block gap g_i (DualState::last_gap); kept for
  /// gap sampling only.
  void exact_gap(std::size_t i, double gap) {
    if (!block_gap_.empty()) block_gap_[i] = gap;
  }

 private:
  /// The blocks of `v` grouped by chunk (block i is in chunk i / kChunk), the chunks in a random
  /// order and each chunk's blocks shuffled; `v` in any order, and any subset of the blocks.
  /// Linear in |v| + n / kChunk: a bucket pass by chunk, no sort.
  void chunk_shuffle(std::vector<BlockIndex>& v) {
    const std::size_t chunks = (n_ + kChunk - 1) / kChunk;
    // starts_[c] .. starts_[c + 1]: chunk c's blocks in scratch_
    starts_.assign(chunks + 1, 0);
    for (const BlockIndex i : v) ++starts_[i / kChunk + 1];
    chunk_order_.clear();
    for (std::size_t c = 0; c < chunks; ++c) {
      if (starts_[c + 1] > 0) chunk_order_.push_back(c);
      starts_[c + 1] += starts_[c];
    }
    scratch_.resize(v.size());
    fill_ = starts_;
    for (const BlockIndex i : v) scratch_[fill_[i / kChunk]++] = i;
    dualgap::shuffle(chunk_order_, rng_);
    std::size_t at = 0;
    for (const std::size_t c : chunk_order_) {
      const std::size_t first = at;
      for (std::size_t j = starts_[c]; j < starts_[c + 1]; ++j) v[at++] = scratch_[j];
      dualgap::shuffle(v.begin() + static_cast<std::ptrdiff_t>(first), v.begin() + static_cast<std::ptrdiff_t>(at), rng_);
    }
  }

  std::vector<std::size_t> starts_, fill_, chunk_order_;  ///< chunked order only
  std::vector<BlockIndex> scratch_;
  Sampling sample_;
  int gap_refresh_;
  std::size_t n_;
  dualgap::SplitMix64 rng_;
  std::vector<BlockIndex> order_;
  std::vector<double> block_gap_, cum_;  ///< gap sampling only
};

}  // namespace dualgap_bcfw
