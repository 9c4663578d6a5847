// The dual of the structural SVM and what every block storage shares: w, phi_circ, the block
// offsets and the exact line search of a block step.
//
// Objective: min_w lambda/2 ||w||^2 + (1/n) sum_i max_y [Delta(y_i,y) + c(y) - c(y_i)
//                                                       + <w, phi(x_i,y) - phi(x_i,y_i)>].
// Dual: F(phi) = -||phi_star||^2 / (2 lambda) + phi_circ, phi = sum_i phi^i, each phi^i a convex
// combination of the planes phi^{iy} = (1/n)[phi(x_i,y) - phi(x_i,y_i); Delta + c(y) - c(y_i)].
// Lines 7-8 of Algorithm 2 of Shah, Kolmogorov, Lampert, CVPR 2015 (BCFW of Lacoste-Julien et
// al., ICML 2013): the step on block i towards a plane phihat with exact line search.
//
// How the feature part of phi^i is stored is the job of a block storage built on this class:
// MarginalBlocks (marginal_blocks.hpp: units x K tables) and DenseBlocks (dense_blocks.hpp:
// dim-vectors), whose block steps are Frank-Wolfe steps (the loop of mp_bcfw.hpp runs either
// through the interface it names there), and SimplexBlocks (simplex_blocks.hpp: multi-class
// data, a distribution over the K classes per block), whose block step is exact (the loop of
// exact_steps.hpp).
#pragma once

#include <algorithm>
#include <vector>

#include "dualgap/oracles/structured.hpp"

namespace dualgap_bcfw {

using dualgap::Examples;
using dualgap::StructuredOracle;
using dualgap::Vector;

/// A plane phi^{iy} of example i as a step reads it: the labeling y (units_i ints), its offset
/// Delta(y_i, y) + c(y) - c(y_i), and its feature vector A_i^T e(y) (dim doubles) where the
/// storage keeps planes as vectors (DenseBlocks), else nullptr.
struct Plane {
  const int* labels = nullptr;
  double offset = 0;
  const double* features = nullptr;
};

/// One block's part of a mini-batch step (minibatch.hpp), built by a worker thread: the
/// feature-space change Delta_i = phi^i_star - phihat_star (unscaled by 1/n) densely over the
/// segments it touches, its value against w and the rise of the block offset.
struct BlockChange {
  double lin = 0;          ///< <Delta_i, w>
  double doff = 0;         ///< offset of the target - offset of the block (n phi_circ units)
  Vector delta;            ///< Delta_i, zero outside `segs`
  std::vector<int> segs;   ///< the segments of w (DualState::segment_begin) Delta_i touches
  /// Value of the block minus value of its target: minus n times the block gap at w.
  double bracket() const { return lin - doff; }
  /// The target plane's feature vector, for a working set that keeps planes as vectors
  /// (DenseBlocks::Direction has it); nullptr here.
  const double* plane_features() const { return nullptr; }
};

class DualState {
 public:
  Vector w;             ///< = -phi_star / lambda
  double phi_circ = 0;  ///< offset part of phi = sum_i phi^i

  double lambda() const { return lambda_; }
  std::size_t n() const { return n_; }
  /// F(phi) = -lambda/2 ||w||^2 + phi_circ.
  double dual() const { return -0.5 * lambda_ * w.squaredNorm() + phi_circ; }
  /// c(y_i) of example i.
  double truth_constant(std::size_t i) const { return c_truth_.empty() ? 0.0 : c_truth_[i]; }
  /// Value of the target minus value of the current block before the last step (n times the
  /// block duality gap g_i when the target is the exact oracle's plane).
  double last_gap() const { return last_gap_; }

  // ---- mini-batch steps (minibatch.hpp): several blocks moved with one common gamma ----
  /// Exact line search along the sum of the batch's changes: bracket = sum over the batch of
  /// (value of the current block - value of its target), norm2 = squared norm of the summed
  /// feature-space change; the same formula as one block's step (line_search), clipped to [0, 1].
  double batch_gamma(double bracket, double norm2) const {
    if (norm2 > 0) return std::clamp(-lambda_ * static_cast<double>(n_) * bracket / norm2, 0.0, 1.0);
    return bracket < 0 ? 1.0 : 0.0;
  }
  /// n phi^i_circ, the offset part of block i.
  double block_offset(std::size_t i) const { return cbar_[i]; }
  /// The offset part of a batch step on block i: its offset rises by gamma doff.
  void move_block_offset(std::size_t i, double gamma, double doff) {
    phi_circ += gamma * doff / static_cast<double>(n_);
    cbar_[i] += gamma * doff;
  }
  /// Feature-space segments of w, the unit of sparsity of a batch step: segment k < K is the
  /// class block [k d, (k+1) d), segment K the transition block [K d, dim) when there is one.
  std::size_t segment_begin(int s) const { return static_cast<std::size_t>(s) * d_; }
  std::size_t segment_size(int s) const {
    return s < K_ ? d_ : static_cast<std::size_t>(w.size()) - static_cast<std::size_t>(K_) * d_;
  }
  /// Zeroes a change for reuse (only the segments it touched; sized on first use).
  void clear_change(BlockChange& c) const {
    if (c.delta.size() != w.size()) c.delta = Vector::Zero(w.size());
    for (int sg : c.segs)
      c.delta.segment(static_cast<Eigen::Index>(segment_begin(sg)), static_cast<Eigen::Index>(segment_size(sg))).setZero();
    c.segs.clear();
  }
  int num_segments() const { return static_cast<std::size_t>(w.size()) > static_cast<std::size_t>(K_) * d_ ? K_ + 1 : K_; }

 protected:
  /// Algorithm 2, line 1: phi^i = phi^{i y_i} (the zero plane when Delta(y_i, y_i) = 0), so
  /// w = 0 and phi_circ = (1/n) sum_i Delta(y_i, y_i).
  DualState(const Examples& ex, const StructuredOracle& oracle, double lambda)
      : ex_(ex),
        n_(ex.num_examples()),
        K_(ex.num_classes),
        d_(static_cast<std::size_t>(ex.num_features())),
        lambda_(lambda) {
    w = Vector::Zero(static_cast<Eigen::Index>(oracle.dim(d_, K_)));
    cbar_.assign(n_, 0.0);
    c_truth_.assign(n_, 0.0);
    bool constants = false;
    for (std::size_t i = 0; i < n_; ++i) {
      const int* yi = ex.y.data() + ex.unit_begin(i);
      c_truth_[i] = oracle.constant(ex, i, yi);
      constants = constants || c_truth_[i] != 0.0;
      cbar_[i] = oracle.loss(ex, i, yi);
      phi_circ += cbar_[i] / static_cast<double>(n_);
    }
    // Oracles without a constant term (all but a fixed Potts term) keep no table: n doubles less.
    if (!constants) c_truth_ = std::vector<double>();
  }

  /// Exact line search of a step on block i: bracket = value of the current block minus value
  /// of the target, norm2 = squared norm of the feature-space change. Records the block gap and
  /// resets the last change; returns gamma in [0, gamma_max]:
  ///   gamma = (<phi^i_star - phihat_star, phi_star> - lambda (phi^i_circ - phihat_circ))
  ///           / ||phi^i_star - phihat_star||^2,  with phi_star = -lambda w, planes scaled 1/n.
  double line_search(std::size_t i, double bracket, double norm2, double gamma_max) {
    last_gap_ = -bracket;
    last_block_ = i;
    last_scale_ = 0;
    if (norm2 > 0) return std::clamp(-lambda_ * static_cast<double>(n_) * bracket / norm2, 0.0, gamma_max);
    return bracket < 0 ? gamma_max : 0.0;
  }
  /// The offset part of a step of size gamma > 0 whose block offset rises by gamma doff; sets the
  /// scale of the feature-space change, which the storage then adds to w (add_last_change).
  void move_offsets(std::size_t i, double gamma, double doff) {
    const double nn = static_cast<double>(n_);
    phi_circ += gamma * doff / nn;
    cbar_[i] += gamma * doff;
    last_scale_ = gamma / (lambda_ * nn);
  }

  const Examples& ex_;
  std::size_t n_;
  int K_;
  std::size_t d_;
  double lambda_;
  std::vector<double> cbar_;     ///< n * phi^i_circ (convex combination of plane offsets)
  std::vector<double> c_truth_;  ///< c(y_i); empty when every c(y_i) is 0 (truth_constant)
  std::size_t last_block_ = 0;
  double last_scale_ = 0;  ///< w changed by last_scale_ * (block change) in the last step
  double last_gap_ = 0;
};

}  // namespace dualgap_bcfw
