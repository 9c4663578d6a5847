// Per-example working sets W_i of MP-BCFW and the approximate oracle
//   H~_i(w) = max_{phi~ in W_i} <phi~, [w 1]>
// (equation (6) and Algorithm 3 of Shah, Kolmogorov, Lampert, CVPR 2015).
//
// A plane of example i is phi^{iy} = (1/n)[A_i^T (m(y) - m(y_i)); Delta + c(y) - c(y_i)], so it
// is stored as the labeling y (units_i ints), its offset Delta + c(y) - c(y_i), and the outer
// iteration at which it was last active (returned as argmax by an exact or approximate call).
// A multi-class plane is one int. Scoring a plane needs only the unary score table of w for
// example i (computed once per call), so one approximate call costs O(units_i K d + |W_i| units_i).
// With dense blocks (dense_blocks.hpp) each plane also keeps its feature vector A_i^T e(y)
// (dim doubles) and an approximate call is |W_i| dot products of length dim.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "dual_state.hpp"

namespace dualgap_bcfw {

class WorkingSets {
 public:
  explicit WorkingSets(const Examples& ex) : ex_(ex), sets_(ex.num_examples()) {}

  /// Keep a dense feature vector of `dim` doubles per plane (dense blocks); before any add().
  void keep_vectors(std::size_t dim) { vdim_ = dim; }
  const double* vec(std::size_t i, std::size_t p) const { return sets_[i].vecs.data() + p * vdim_; }

  std::size_t size(std::size_t i) const { return sets_[i].offset.size(); }
  const int* labels(std::size_t i, std::size_t p) const {
    return sets_[i].labels.data() + p * static_cast<std::size_t>(ex_.units_of(i));
  }
  double offset(std::size_t i, std::size_t p) const { return sets_[i].offset[p]; }
  /// Plane p of W_i as a step reads it (its feature vector with keep_vectors, else nullptr).
  Plane plane(std::size_t i, std::size_t p) const {
    return Plane{labels(i, p), offset(i, p), vdim_ ? vec(i, p) : nullptr};
  }
  void mark_active(std::size_t i, std::size_t p, int iteration) { sets_[i].last_active[p] = iteration; }

  // Plane weights. phi^i = sum_{p in W_i} alpha_p phi^{i y_p} + (1 - sum_p alpha_p) r_i, where r_i
  // is a convex combination of planes that left W_i (never needed explicitly). Kept after every
  // step so that pairwise steps know how much weight a plane holds (at most alpha_p can move).
  double weight(std::size_t i, std::size_t p) const { return sets_[i].alpha[p]; }
  void set_weight(std::size_t i, std::size_t p, double a) { sets_[i].alpha[p] = a; }
  /// After a Frank-Wolfe step of size gamma towards plane s: alpha <- (1-gamma) alpha + gamma e_s.
  void fw_update(std::size_t i, std::size_t s, double gamma) {
    if (gamma <= 0) return;
    for (double& a : sets_[i].alpha) a *= 1 - gamma;
    sets_[i].alpha[s] += gamma;
  }
  /// After a pairwise step moving gamma from plane a to plane s.
  void pair_update(std::size_t i, std::size_t s, std::size_t a, double gamma) {
    if (gamma <= 0) return;
    Set& w = sets_[i];
    w.alpha[a] = std::max(0.0, w.alpha[a] - gamma);
    w.alpha[s] += gamma;
  }

  /// In one scan (each plane scored once): best = argmax(st, i, S); away = among planes holding
  /// weight > 0, the one minimizing score(y) + offset (the away vertex of pairwise Frank-Wolfe),
  /// size(i) if none holds weight. First index wins ties. Requires size(i) > 0. Blocks: a
  /// storage that scores labelings from S (MarginalBlocks::score).
  template <class Blocks>
  void best_and_away(const Blocks& st, std::size_t i, const double* S, std::size_t& best,
                     std::size_t& away) const {
    const Set& s = sets_[i];
    const std::size_t P = s.offset.size();
    best = 0, away = P;
    double best_v = 0, away_v = 0;
    for (std::size_t p = 0; p < P; ++p) {
      const double v = st.score(i, labels(i, p), S) + s.offset[p];
      if (p == 0 || v > best_v) best_v = v, best = p;
      if (s.alpha[p] > 0 && (away == P || v < away_v)) away_v = v, away = p;
    }
  }

  /// Adds the plane of labeling y (or marks it active if it is already there); if |W_i| > N,
  /// evicts the longest-inactive plane other than this one. Returns the plane's index.
  /// With keep_vectors, `vec` is the plane's feature vector (dim doubles).
  std::size_t add(std::size_t i, const int* y, double offset, int iteration, std::size_t N,
                  const double* vec = nullptr) {
    Set& s = sets_[i];
    const auto U = static_cast<std::size_t>(ex_.units_of(i));
    for (std::size_t p = 0; p < s.offset.size(); ++p)
      if (std::equal(y, y + U, s.labels.begin() + static_cast<std::ptrdiff_t>(p * U))) {
        s.last_active[p] = iteration;
        return p;
      }
    s.labels.insert(s.labels.end(), y, y + U);
    if (vdim_) {
      if (!vec) throw std::logic_error("WorkingSets::add: dense planes need the plane's vector");
      s.vecs.insert(s.vecs.end(), vec, vec + vdim_);
    }
    s.offset.push_back(offset);
    s.last_active.push_back(iteration);
    s.alpha.push_back(0.0);
    std::size_t added = s.offset.size() - 1;
    while (s.offset.size() > N && s.offset.size() > 1) {
      std::size_t victim = s.offset.size();
      for (std::size_t p = 0; p < s.offset.size(); ++p)
        if (p != added && (victim == s.offset.size() || s.last_active[p] < s.last_active[victim]))
          victim = p;
      const std::size_t last = s.offset.size() - 1;
      remove(i, victim);
      if (added == last) added = victim;
    }
    return added;
  }

  /// Removes planes not active during the last T outer iterations (iteration - last >= T);
  /// with keep_weighted, planes that hold weight stay (pairwise steps can still move it away).
  void drop_inactive(int iteration, int T, bool keep_weighted = false) {
    for (std::size_t i = 0; i < sets_.size(); ++i) {
      Set& s = sets_[i];
      for (std::size_t p = s.offset.size(); p-- > 0;)
        if (iteration - s.last_active[p] >= T && !(keep_weighted && s.alpha[p] > 0)) remove(i, p);
    }
  }

  /// Index of the plane maximizing score(y) + offset, given the unary score table S of w
  /// (Blocks as in best_and_away). Requires size(i) > 0.
  template <class Blocks>
  std::size_t argmax(const Blocks& st, std::size_t i, const double* S) const {
    const Set& s = sets_[i];
    std::size_t best = 0;
    double best_v = 0;
    for (std::size_t p = 0; p < s.offset.size(); ++p) {
      const double v = st.score(i, labels(i, p), S) + s.offset[p];
      if (p == 0 || v > best_v) best_v = v, best = p;
    }
    return best;
  }

  /// Dense planes: index of the plane maximizing <vec_p, w> + offset. Requires size(i) > 0.
  std::size_t argmax_dense(std::size_t i, const double* w) const {
    const Set& s = sets_[i];
    std::size_t best = 0;
    double best_v = 0;
    const auto d = static_cast<Eigen::Index>(vdim_);
    const Eigen::Map<const Vector> wv(w, d);
    for (std::size_t p = 0; p < s.offset.size(); ++p) {
      const double val = Eigen::Map<const Vector>(vec(i, p), d).dot(wv) + s.offset[p];
      if (p == 0 || val > best_v) best_v = val, best = p;
    }
    return best;
  }

  double mean_size() const {
    if (sets_.empty()) return 0;
    std::size_t total = 0;
    for (const Set& s : sets_) total += s.offset.size();
    return static_cast<double>(total) / static_cast<double>(sets_.size());
  }

  std::size_t bytes() const {
    std::size_t b = sets_.capacity() * sizeof(Set);
    for (const Set& s : sets_)
      b += s.labels.capacity() * sizeof(int) + s.offset.capacity() * sizeof(double) +
           s.last_active.capacity() * sizeof(int) + s.alpha.capacity() * sizeof(double) +
           s.vecs.capacity() * sizeof(double);
    return b;
  }

 private:
  struct Set {
    std::vector<int> labels;       ///< planes' labelings, units_i ints each
    std::vector<double> offset;    ///< Delta(y_i, y) + c(y) - c(y_i)
    std::vector<int> last_active;  ///< outer iteration of the last activity
    std::vector<double> alpha;     ///< weight of the plane in phi^i (see weight())
    std::vector<double> vecs;      ///< dense planes: feature vectors, vdim_ doubles each
  };

  /// Removes plane p by moving the last plane into its place (order does not matter).
  void remove(std::size_t i, std::size_t p) {
    Set& s = sets_[i];
    const auto U = static_cast<std::size_t>(ex_.units_of(i));
    const std::size_t last = s.offset.size() - 1;
    if (p != last) {
      std::copy(s.labels.begin() + static_cast<std::ptrdiff_t>(last * U),
                s.labels.begin() + static_cast<std::ptrdiff_t>((last + 1) * U),
                s.labels.begin() + static_cast<std::ptrdiff_t>(p * U));
      if (vdim_)
        std::copy(s.vecs.begin() + static_cast<std::ptrdiff_t>(last * vdim_),
                  s.vecs.begin() + static_cast<std::ptrdiff_t>((last + 1) * vdim_),
                  s.vecs.begin() + static_cast<std::ptrdiff_t>(p * vdim_));
      s.offset[p] = s.offset[last];
      s.last_active[p] = s.last_active[last];
      s.alpha[p] = s.alpha[last];
    }
    s.labels.resize(last * U);
    if (vdim_) s.vecs.resize(last * vdim_);
    s.offset.pop_back();
    s.last_active.pop_back();
    s.alpha.pop_back();
  }

  const Examples& ex_;
  std::vector<Set> sets_;
  std::size_t vdim_ = 0;
};

}  // namespace dualgap_bcfw
