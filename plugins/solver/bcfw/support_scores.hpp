// Approximate calls on marginal blocks that compute only the unary scores their step reads
// (option approx_scores: support). Same iterates as computing the whole table. Kept by
// MarginalBlocks, whose approximate oracle (MarginalBlocks::best_plane) uses it.
#pragma once

#include <cstddef>
#include <vector>

#include "dual_state.hpp"
#include "working_set.hpp"

namespace dualgap_bcfw {

/// The entries of example i's unary score table S that an approximate step over W_i reads: the
/// labels of W_i's planes (argmax) and the support of mbar_i (with the chosen plane's labels,
/// the entries of Delta m in MarginalBlocks::step). For multi-class data (one unit, K classes) that
/// is typically 1-3 of the K scores (USPS: 1.3 of 10), so an approximate call computes those few dot products
/// instead of the whole table x_i W^T, which is what an exact call costs.
class SupportScores {
 public:
  /// Computes S[u K + k] = <x_u, w_k> (w = st.w) at the needed entries and leaves the others as they are
  /// (so S must not be read elsewhere). Returns false, computing nothing, when the needed
  /// entries are more than half of the table (the blocked full-table kernel is then cheaper).
  /// Blocks: MarginalBlocks (for_each_support).
  template <class Blocks>
  bool fill(const Examples& ex, const Blocks& st, const WorkingSets& ws, std::size_t i, std::vector<double>& S) {
    if (!enabled_) {
      ++calls_;
      computed_ += static_cast<std::size_t>(ex.units_of(i)) * static_cast<std::size_t>(ex.num_classes);
      return false;
    }
    const int K = ex.num_classes;
    const int U = ex.units_of(i);
    const std::size_t cells = static_cast<std::size_t>(U) * static_cast<std::size_t>(K);
    if (mark_.size() < cells) mark_.resize(cells, 0);
    list_.clear();
    auto need = [&](int u, int k) {
      const std::size_t c = static_cast<std::size_t>(u) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k);
      if (!mark_[c]) mark_[c] = 1, list_.push_back(c);
    };
    for (std::size_t p = 0; p < ws.size(i); ++p) {
      const int* y = ws.labels(i, p);
      for (int u = 0; u < U; ++u) need(u, y[u]);
    }
    st.for_each_support(i, need);
    for (const std::size_t c : list_) mark_[c] = 0;
    ++calls_;
    if (2 * list_.size() > cells) {
      computed_ += cells;
      return false;
    }
    S.resize(cells);
    computed_ += list_.size();
    const auto d = static_cast<std::size_t>(ex.num_features());
    const auto b = ex.unit_begin(i);
    const auto Ku = static_cast<std::size_t>(K);
    for (const std::size_t c : list_)
      S[c] = ex.X.row_dot(b + static_cast<Eigen::Index>(c / Ku), st.w.data() + (c % Ku) * d);
    return true;
  }

  /// false: fill() always declines (the caller computes the full table); counts still kept.
  void enable(bool on) { enabled_ = on; }
  /// Mean number of scores an approximate call computed (a declined call counts the full table).
  double mean_computed() const {
    return calls_ ? static_cast<double>(computed_) / static_cast<double>(calls_) : 0.0;
  }

 private:
  bool enabled_ = true;
  std::size_t calls_ = 0, computed_ = 0;
  std::vector<unsigned char> mark_;
  std::vector<std::size_t> list_;
};

}  // namespace dualgap_bcfw
