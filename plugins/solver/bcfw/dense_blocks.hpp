// Dense block storage of the structural SVM dual (dual_state.hpp): the paper's own planes.
//
// For problems whose parameter vector is small against an example's unit features (graph
// segmentation: dim = K d = 82 against ~700 superpixels x 41 features), each block keeps
// v_i = A_i^T m_i (the feature-space part of phi^i, unscaled by 1/n) as a dense vector and steps
// take plane vectors A_i^T e(y): a step costs O(dim) instead of O(touched units x d), and an
// approximate step over dense planes needs no unary score table (the paper's planes are such
// (d+1)-vectors). Same iterates as the marginal tables (marginal_blocks.hpp) up to rounding. No
// transition features (their planes are not unary sums) and no inner steps. The loop of
// mp_bcfw.hpp runs it through the interface it names there (FrankWolfeBlocks).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "dual_state.hpp"
#include "dualgap/iterate.hpp"
#include "working_set.hpp"

namespace dualgap_bcfw {

class DenseBlocks : public DualState {
 public:
  /// Throws if the oracle uses transitions.
  DenseBlocks(const Examples& ex, const StructuredOracle& oracle, double lambda)
      : DualState(ex, oracle, lambda) {
    if (oracle.uses_transitions())
      throw std::runtime_error("bcfw: dense blocks need an oracle without transition features");
    blocks_.resize(w.size(), static_cast<Eigen::Index>(n_));
    delta_ = Vector::Zero(w.size());
    plane_.assign(static_cast<std::size_t>(w.size()), 0.0);
    // Algorithm 2, line 1: phi^i = phi^{i y_i}, whose feature vector is A_i^T e(y_i).
    for (std::size_t i = 0; i < n_; ++i) plane_vector(i, ex_.y.data() + ex_.unit_begin(i), block(i).data());
  }

  /// out (dim doubles) = A_i^T e(y) = sum_u x_u placed in the class block y_u (overwritten).
  void plane_vector(std::size_t i, const int* y, double* out) const {
    std::fill(out, out + static_cast<std::size_t>(w.size()), 0.0);
    const auto b = ex_.unit_begin(i);
    const int U = ex_.units_of(i);
    for (int u = 0; u < U; ++u) ex_.X.row_axpy(b + u, 1.0, out + static_cast<std::size_t>(y[u]) * d_);
  }
  /// plane_vector into a buffer of this object, valid until the next call; what a working set
  /// stores beside the labeling.
  const double* plane_of(std::size_t i, const int* y) {
    plane_vector(i, y, plane_.data());
    return plane_.data();
  }

  /// BCFW step on block i towards the plane with feature vector t (plane_vector) and offset.
  double step(std::size_t i, const double* t, double offset) {
    delta_ = block(i) - Eigen::Map<const Vector>(t, w.size());
    return apply(i, offset - cbar_[i], 1.0);
  }

  // ---- the Frank-Wolfe storage interface (FrankWolfeBlocks, mp_bcfw.hpp) -------------------
  /// Recorded in the column dense_blocks.
  static constexpr bool kDense = true;
  /// A plane is kept with its feature vector A_i^T e(y) (dim doubles), built once by
  /// plane_features when the exact oracle returns it.
  std::size_t plane_size() const { return static_cast<std::size_t>(w.size()); }
  const double* plane_features(std::size_t i, const int* y) { return plane_of(i, y); }
  /// BCFW step on block i towards `target` (its feature vector and offset); S is not read.
  double step(std::size_t i, const Plane& target, const double* /*S*/) {
    return step(i, target.features, target.offset);
  }
  /// H~_i(w) = max over W_i (equation (6)): |W_i| dot products of length dim with w; S is not
  /// touched (no score table).
  std::size_t best_plane(const WorkingSets& ws, std::size_t i, std::vector<double>& /*S*/) const {
    return ws.argmax_dense(i, w.data());
  }
  /// An approximate call reads the planes' vectors and w, not the example's feature rows:
  /// prefetching those (~3600 cache lines for a horse image) would cost more than the call.
  void prefetch_approximate(std::size_t /*i*/) const {}
  /// No columns about approximate calls (they compute no scores).
  void approximate_columns(dualgap::Iterate& /*it*/) const {}

  // ---- mini-batch steps (minibatch.hpp) ---------------------------------------------------
  /// A block's change in a mini-batch, with the target plane's feature vector (which a working
  /// set keeps).
  struct Direction : BlockChange {
    std::vector<double> plane;  ///< A_i^T e(yhat)
    const double* plane_features() const { return plane.data(); }
  };
  /// Delta = v_i - A_i^T e(yhat), lin = <Delta, w>, doff; S is not needed. Reads the state only:
  /// several threads may build the changes of distinct blocks at once.
  void direction(std::size_t i, const int* yhat, double offset, const double* /*S*/, Direction& c) const {
    clear_change(c);
    c.plane.resize(static_cast<std::size_t>(w.size()));
    plane_vector(i, yhat, c.plane.data());
    c.delta = blocks_.col(static_cast<Eigen::Index>(i)) - Eigen::Map<const Vector>(c.plane.data(), w.size());
    for (int k = 0; k < K_; ++k) c.segs.push_back(k);
    c.lin = c.delta.dot(w);
    c.doff = offset - cbar_[i];
  }
  /// Moves block i by gamma along its change (v_i -= gamma Delta, the offsets); w is moved by
  /// the caller (the summed change of the batch). Serial.
  void move_block(std::size_t i, double gamma, const Direction& c) {
    block(i) -= gamma * c.delta;
    move_block_offset(i, gamma, c.doff);
  }

  /// target += coef * (w after the last step - w before it). No-op if the last step was null.
  void add_last_change(double* target, double coef) const {
    const double s = coef * last_scale_;
    if (s == 0.0) return;
    Eigen::Map<Vector>(target, w.size()) += s * delta_;
  }

 private:
  /// Step along -delta_ (delta_ = v_i - target in feature space) with exact line search.
  double apply(std::size_t i, double doff, double gamma_max) {
    const double lin = delta_.dot(w), norm2 = delta_.squaredNorm();
    const double gamma = line_search(i, lin - doff, norm2, gamma_max);
    if (gamma <= 0) return 0.0;
    block(i) -= gamma * delta_;
    move_offsets(i, gamma, doff);
    add_last_change(w.data(), 1.0);
    return gamma;
  }

  Eigen::MatrixXd::ColXpr block(std::size_t i) { return blocks_.col(static_cast<Eigen::Index>(i)); }

  Eigen::MatrixXd blocks_;     ///< column i is v_i = A_i^T m_i (dim x n)
  Vector delta_;               ///< the last step's direction v_i - target
  std::vector<double> plane_;  ///< plane_of's buffer
};

}  // namespace dualgap_bcfw
