// The per-example working sets of the n-slack cutting-plane formulation and the QP over them
// (cutting_plane solver, `formulation: n_slack`).
//
// Example i keeps a working set W_i of labelings; entry 0 is the ground truth y_i (the constraint
// xi_i >= 0). Entry y stands for the n-slack plane
//   a_iy = (1/n) d_iy,  d_iy = phi(x_i, y) - phi(x_i, y_i),
//   b_iy = (1/n) o_iy,  o_iy = Delta(y_i, y) + c(y) - c(y_i),
// whose value at w, v_iy(w) = o_iy + <d_iy, w>, is <= H_i(w), with equality at the max-oracle's
// answer. The restricted n-slack primal  min_w lambda/2 ||w||^2 + (1/n) sum_i max_{y in W_i} v_iy(w)
// has the Lagrange dual (one multiplier per plane; stationarity in xi_i gives sum_y beta_iy = 1):
//   max_beta  D(beta) = sum_i sum_y beta_iy b_iy - 1/(2 lambda) ||sum_i sum_y beta_iy a_iy||^2
//   over the product of simplices (one per example), w(beta) = -(1/lambda) sum_iy beta_iy a_iy.
// Any such beta is a feasible point of the full SSVM dual (each example a distribution over its
// labelings), so D(beta) <= min P whether or not the QP is solved: the certificate is
// SsvmDualPoint{w(beta), l = sum_iy beta_iy b_iy}.
//
// The QP is solved by exact block-coordinate ascent: one example's simplex at a time, all others
// fixed, and that block's QP is exactly the 1-slack QP form dlib's SMO solves (planes.hpp):
//   min_beta_i 1/2 beta_i^T Q_i beta_i - p_i^T beta_i on the simplex,
//   Q_i = G_i / (lambda n), G_i = Gram of the d_iy,  p_i = v_i(w) + Q_i beta_i^old
// (scaled by n, so gaps are in the unscaled units of v; v_i(w) at the current w, which includes
// block i's own contribution, hence the Q_i beta_i^old term). Sweeps over the examples repeat
// until the QP's duality gap at w,
//   G(beta) = (1/n) sum_i [max_{y in W_i} v_iy(w) - sum_y beta_iy v_iy(w)],
// is below the tolerance (cyclic exact block minimization of a convex QP over a product of
// simplices converges: Luo and Tseng 1992). Planes are stored as labelings, not vectors: the
// values come from the unary score table of w (as the max-oracle's), w moves by the sparse joint
// features of the block's labelings, and a new plane's Gram row is one score table of its own
// dense vector.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstddef>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "planes.hpp"

namespace dualgap_cutting_plane {

using dualgap::Vector;

class WorkingSets {
 public:
  WorkingSets(const dualgap::StructuredOracle& oracle, const dualgap::Examples& ex, Eigen::Index dim, double lambda)
      : oracle_(oracle), ex_(ex), n_(ex.num_examples()), lambda_(lambda), w_(Vector::Zero(dim)), tmp_(dim), blocks_(n_) {
    for (std::size_t i = 0; i < n_; ++i) {
      auto& bl = blocks_[i];
      const int* yi = truth(i);
      bl.labels.emplace_back(yi, yi + ex_.units_of(i));
      bl.offset.push_back(0.0);
      bl.G = Eigen::MatrixXd::Zero(1, 1);
      bl.beta = Vector::Ones(1);
    }
  }

  const Vector& w() const { return w_; }
  /// Planes in all working sets, without the ground-truth planes.
  std::size_t size() const { return planes_; }
  /// l = sum_iy beta_iy b_iy = (1/n) sum_i beta_i . o_i.
  double l_beta() const {
    double l = 0;
    for (const auto& bl : blocks_) l += bl.beta.dot(Eigen::Map<const Vector>(bl.offset.data(), bl.beta.size()));
    return l / static_cast<double>(n_);
  }
  double qp_gap() const { return qp_gap_; }
  unsigned long last_sweeps() const { return sweeps_; }

  /// xi_i(w) = max_{y in W_i} v_iy(w), from the unary score table of the current w for example i.
  double xi(std::size_t i, const std::vector<double>& scores) const {
    values(i, scores, v_);
    return v_.maxCoeff();
  }

  /// Adds labeling y (offset o = Delta + c(y) - c(y_i)) to W_i with weight 0.
  void add(std::size_t i, const int* y, double offset) {
    auto& bl = blocks_[i];
    const int* yi = truth(i);
    // d_new as a dense vector; its score table gives <d_new, d_iy'> for every plane y' in W_i.
    tmp_.setZero();
    oracle_.add_joint_features(ex_, i, y, 1.0, tmp_);
    oracle_.add_joint_features(ex_, i, yi, -1.0, tmp_);
    dualgap::StructuredOracle::unary_scores(ex_, i, tmp_, scores_);
    const double s_truth = oracle_.joint_score(ex_, i, yi, scores_.data(), tmp_);
    const auto p = static_cast<Eigen::Index>(bl.labels.size());
    bl.labels.emplace_back(y, y + ex_.units_of(i));
    bl.offset.push_back(offset);
    bl.G.conservativeResize(p + 1, p + 1);
    for (Eigen::Index c = 0; c <= p; ++c)
      bl.G(p, c) = bl.G(c, p) =
          c == 0 ? 0.0 : oracle_.joint_score(ex_, i, bl.labels[static_cast<std::size_t>(c)].data(), scores_.data(), tmp_) - s_truth;
    bl.beta.conservativeResize(p + 1);
    bl.beta[p] = 0;
    ++planes_;
  }

  /// Maximizes D over beta_i with the other blocks fixed (to a block gap below eps, in units of v),
  /// and moves w accordingly. `scores`: the unary score table of the current w for example i.
  void solve_block(std::size_t i, const std::vector<double>& scores, double eps, unsigned long max_iter) {
    auto& bl = blocks_[i];
    values(i, scores, v_);
    const double gap = v_.maxCoeff() - bl.beta.dot(v_);
    if (!(gap > eps) || bl.labels.size() < 2) return;
    const double scale = 1.0 / (lambda_ * static_cast<double>(n_));
    const Eigen::MatrixXd Q = scale * bl.G;
    const Vector lin = v_ + Q * bl.beta;
    Vector nb;
    solve_on_simplex(Q, lin.data(), bl.beta, nb, eps, max_iter);
    if (nb != bl.beta) ++moves_;
    move_w(i, nb - bl.beta);
    bl.beta = std::move(nb);
  }

  /// Solves the QP over all working sets to a duality gap G(beta) <= tol (at most max_sweeps
  /// sweeps, and no more once a sweep leaves beta unchanged; beta stays feasible whatever the limit). w is recomputed from beta at the end of
  /// every sweep, so rounding drift of the incremental updates never enters the certificate.
  void solve(double tol, unsigned long max_iter, unsigned long max_sweeps) {
    sweeps_ = 0;
    qp_gap_ = measure();
    while (qp_gap_ > tol && sweeps_ < max_sweeps) {
      // Block gaps are in units of v; G is their mean, so a tenth of tol per block suffices.
      const unsigned long moves = moves_;
      for (std::size_t i = 0; i < n_; ++i) {
        dualgap::StructuredOracle::unary_scores(ex_, i, w_, scores_);
        solve_block(i, scores_, 0.1 * tol, max_iter);
      }
      // A sweep in which SMO moved no block (rounding, below a tiny tol) would repeat forever.
      if (moves_ == moves) break;
      ++sweeps_;
      recompute_w();
      qp_gap_ = measure();
    }
  }

  /// w = w(beta) from scratch: every block's move from beta = 0.
  void recompute_w() {
    w_.setZero();
    for (std::size_t i = 0; i < n_; ++i) move_w(i, blocks_[i].beta);
  }

 private:
  struct Block {
    std::vector<std::vector<int>> labels;  ///< 0: the ground truth
    std::vector<double> offset;            ///< o_iy
    Eigen::MatrixXd G;                     ///< <d_iy, d_iy'>
    Vector beta;                           ///< on the simplex
  };

  const int* truth(std::size_t i) const { return ex_.y.data() + ex_.unit_begin(i); }

  /// v_iy(w) for every y in W_i from the unary score table of w.
  void values(std::size_t i, const std::vector<double>& scores, Vector& v) const {
    const auto& bl = blocks_[i];
    const double s_truth = oracle_.joint_score(ex_, i, truth(i), scores.data(), w_);
    v.resize(static_cast<Eigen::Index>(bl.labels.size()));
    v[0] = 0;
    for (std::size_t c = 1; c < bl.labels.size(); ++c)
      v[static_cast<Eigen::Index>(c)] = bl.offset[c] + oracle_.joint_score(ex_, i, bl.labels[c].data(), scores.data(), w_) - s_truth;
  }

  /// The QP's duality gap G(beta) at the current w.
  double measure() {
    double g = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      if (blocks_[i].labels.size() < 2) continue;
      dualgap::StructuredOracle::unary_scores(ex_, i, w_, scores_);
      values(i, scores_, v_);
      g += v_.maxCoeff() - blocks_[i].beta.dot(v_);
    }
    return g / static_cast<double>(n_);
  }

  /// w += -(1/(lambda n)) sum_y delta_y d_iy (sum_y delta_y = 0, so the y_i terms cancel up to rounding).
  void move_w(std::size_t i, const Vector& delta) {
    const auto& bl = blocks_[i];
    const double scale = 1.0 / (lambda_ * static_cast<double>(n_));
    for (std::size_t c = 1; c < bl.labels.size(); ++c) {
      const double dc = delta[static_cast<Eigen::Index>(c)];
      if (dc == 0) continue;
      oracle_.add_joint_features(ex_, i, bl.labels[c].data(), -dc * scale, w_);
      oracle_.add_joint_features(ex_, i, truth(i), dc * scale, w_);
    }
  }

  const dualgap::StructuredOracle& oracle_;
  const dualgap::Examples& ex_;
  std::size_t n_;
  double lambda_;
  Vector w_;
  Vector tmp_;
  std::vector<Block> blocks_;
  std::size_t planes_ = 0;
  double qp_gap_ = 0;
  unsigned long sweeps_ = 0;
  unsigned long moves_ = 0;  ///< block solves that changed beta
  mutable Vector v_;
  std::vector<double> scores_;
};

}  // namespace dualgap_cutting_plane
