// The working set of 1-slack cutting planes and the QP over them (cutting_plane solver).
//
// A plane c is (a_c, b_c) with, for one labeling ybar_i per example,
//   a_c = (1/n) sum_i [phi(x_i, ybar_i) - phi(x_i, y_i)],
//   b_c = (1/n) sum_i [Delta(y_i, ybar_i) + c(ybar_i) - c(y_i)],
// so b_c + <a_c, w> <= (1/n) sum_i H_i(w), with equality when every ybar_i is the max-oracle's
// answer at w. Plane 0 is the zero plane (every ybar_i = y_i: a = 0, b = 0), the slack's
// constraint xi >= 0. The restricted 1-slack primal over the working set,
//   min_w lambda/2 ||w||^2 + max_c (b_c + <a_c, w>),
// has the Lagrange dual (alpha_c >= 0 on the planes, sum_c alpha_c = 1 from d/dxi, alpha_0 taking
// the slack of sum_{c>0} alpha_c <= 1):
//   max_alpha  D(alpha) = sum_c alpha_c b_c - 1/(2 lambda) ||sum_c alpha_c a_c||^2,
//   w(alpha)  = -(1/lambda) sum_c alpha_c a_c,   D = -lambda/2 ||w(alpha)||^2 + sum_c alpha_c b_c.
// That is dlib's form  min 1/2 alpha^T Q alpha - b^T alpha  on {alpha >= 0, sum alpha = 1} with
// Q = G / lambda, G_cd = <a_c, a_d>, solved by dlib::solve_qp_using_smo (warm-started from the
// previous alpha, the new plane entering with weight 0).
//
// Certified: a plane is the average of one n-slack plane per example, so sum_c alpha_c (plane c)
// gives each example a distribution over labelings (weight 1 - sum_{c>0} alpha_c on y_i): a
// feasible point of the n-slack dual (SsvmDualPoint with w_alpha = w(alpha), l_alpha =
// sum_c alpha_c b_c), and D(alpha) <= min P for any alpha on the simplex, optimal or not.
//
// Plane values at w(alpha) come from Q for free: b_c + <a_c, w(alpha)> = b_c - (Q alpha)_c, the
// negated gradient of dlib's objective, so xi(w) = max_c of them and the QP's duality gap is
// xi(w) - sum_c alpha_c (b_c - (Q alpha)_c) (the gap dlib's SMO stops on).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstddef>
#include <vector>

#include <dlib/optimization/optimization_solve_qp_using_smo.h>

#include "dualgap/data.hpp"

namespace dualgap_cutting_plane {

using dualgap::Vector;

/// min_x 1/2 x^T Q x - b^T x on the simplex {x >= 0, sum x = 1} to a duality gap below eps
/// (dlib's SMO, warm-started from `start`), into `out` (which may be `start`); returns SMO's
/// iterations. SMO keeps sum x = 1 and x >= 0 up to rounding: both are restored exactly (the
/// certificates need a point of the simplex), so `out` is feasible whatever the iteration limit.
/// Q is p x p symmetric and b has p entries, p = start.size().
inline unsigned long solve_on_simplex(const Eigen::MatrixXd& Q, const double* b, const Vector& start, Vector& out,
                                      double eps, unsigned long max_iter) {
  const long p = static_cast<long>(start.size());
  dlib::matrix<double, 0, 1> x(p);
  for (long c = 0; c < p; ++c) x(c) = start[c];
  // Q is symmetric, so reading Eigen's column-major storage row-major is the same matrix.
  const unsigned long iterations = dlib::solve_qp_using_smo(dlib::mat(Q.data(), p, p), dlib::mat(b, p), x, eps, max_iter);
  out.resize(p);
  double sum = 0;
  for (long c = 0; c < p; ++c) sum += (out[c] = std::max(x(c), 0.0));
  out /= sum;
  return iterations;
}

class PlaneSet {
 public:
  PlaneSet(Eigen::Index dim, double lambda) : lambda_(lambda), w_(Vector::Zero(dim)) {
    a_.push_back(Vector::Zero(dim));  // plane 0: the slack's constraint xi >= 0
    b_.push_back(0.0);
    Q_ = Eigen::MatrixXd::Zero(1, 1);
    alpha_ = Vector::Ones(1);
    inactive_.push_back(0);
  }

  std::size_t size() const { return b_.size(); }
  const Vector& w() const { return w_; }
  /// l_alpha = sum_c alpha_c b_c.
  double l_alpha() const { return alpha_.dot(Eigen::Map<const Vector>(b_.data(), static_cast<Eigen::Index>(b_.size()))); }
  /// D(alpha) = -lambda/2 ||w(alpha)||^2 + l_alpha.
  double dual() const { return -0.5 * lambda_ * w_.squaredNorm() + l_alpha(); }
  /// xi(w) = max_c (b_c + <a_c, w>) at the current w = w(alpha) (>= 0: the zero plane).
  double xi() const { return values().maxCoeff(); }
  /// Value b + <a, w> of a plane not (yet) in the set, at the current w.
  double value(const Vector& a, double b) const { return b + a.dot(w_); }
  /// The QP's duality gap at alpha: xi(w) - D-part, >= 0.
  double qp_gap() const {
    const Vector v = values();
    return v.maxCoeff() - alpha_.dot(v);
  }
  unsigned long last_qp_iterations() const { return qp_iterations_; }

  /// Adds plane (a, b) with weight 0 and its row of Q.
  void add(Vector a, double b) {
    const Eigen::Index p = static_cast<Eigen::Index>(size());
    Q_.conservativeResize(p + 1, p + 1);
    for (Eigen::Index c = 0; c < p; ++c) Q_(p, c) = Q_(c, p) = a.dot(a_[static_cast<std::size_t>(c)]) / lambda_;
    Q_(p, p) = a.squaredNorm() / lambda_;
    a_.push_back(std::move(a));
    b_.push_back(b);
    alpha_.conservativeResize(p + 1);
    alpha_[p] = 0;
    inactive_.push_back(0);
  }

  /// Re-solves the QP to a duality gap below eps (warm start: the current alpha), then sets
  /// w = w(alpha). alpha stays on the simplex whatever the iteration limit.
  void solve(double eps, unsigned long max_iter) {
    const long p = static_cast<long>(size());
    qp_iterations_ = solve_on_simplex(Q_, b_.data(), alpha_, alpha_, eps, max_iter);
    w_.setZero();
    for (long c = 1; c < p; ++c)
      if (alpha_[c] != 0) w_.noalias() -= (alpha_[c] / lambda_) * a_[static_cast<std::size_t>(c)];
  }

  /// Drops the planes (not the zero plane) whose weight has been exactly 0 after each of the
  /// last `window` solves (window 0: keep all). w(alpha) and D(alpha) do not change.
  void drop_inactive(int window) {
    for (std::size_t c = 1; c < size(); ++c) inactive_[c] = alpha_[static_cast<Eigen::Index>(c)] == 0 ? inactive_[c] + 1 : 0;
    if (window <= 0) return;
    std::vector<Eigen::Index> keep;
    for (std::size_t c = 0; c < size(); ++c)
      if (c == 0 || inactive_[c] < window) keep.push_back(static_cast<Eigen::Index>(c));
    if (keep.size() == size()) return;
    const Eigen::Index m = static_cast<Eigen::Index>(keep.size());
    Eigen::MatrixXd Q(m, m);
    Vector alpha(m);
    std::vector<Vector> a;
    std::vector<double> b;
    std::vector<int> inactive;
    for (Eigen::Index r = 0; r < m; ++r) {
      const auto k = static_cast<std::size_t>(keep[static_cast<std::size_t>(r)]);
      for (Eigen::Index s = 0; s < m; ++s) Q(r, s) = Q_(keep[static_cast<std::size_t>(r)], keep[static_cast<std::size_t>(s)]);
      alpha[r] = alpha_[keep[static_cast<std::size_t>(r)]];
      a.push_back(std::move(a_[k]));
      b.push_back(b_[k]);
      inactive.push_back(inactive_[k]);
    }
    Q_ = std::move(Q);
    alpha_ = std::move(alpha);
    a_ = std::move(a);
    b_ = std::move(b);
    inactive_ = std::move(inactive);
  }

 private:
  /// b_c + <a_c, w(alpha)> = b_c - (Q alpha)_c for every plane.
  Vector values() const {
    return Eigen::Map<const Vector>(b_.data(), static_cast<Eigen::Index>(b_.size())) - Q_ * alpha_;
  }

  double lambda_;
  std::vector<Vector> a_;
  std::vector<double> b_;
  Eigen::MatrixXd Q_;
  Vector alpha_;
  std::vector<int> inactive_;  ///< consecutive solves after which the plane's weight was 0
  Vector w_;
  unsigned long qp_iterations_ = 0;
};

}  // namespace dualgap_cutting_plane
