// Weighted averaging of iterates (section 3.5 of Shah, Kolmogorov, Lampert, CVPR 2015):
//   phibar(k) = 2/(k(k+1)) sum_{t=1..k} t phi(t),  i.e.  phibar(k+1) = k/(k+2) phibar(k) + 2/(k+2) phi(k+1),
// where phi(t) is the dual iterate right after the t-th step of the averaged kind (exact steps
// for BCFW-avg; MP-BCFW-avg keeps one average over exact and one over approximate steps).
//
// Why lazy: a step changes w in a few class blocks only, but the average changes everywhere.
// With c_k = k(k+1)/2 and delta_s the change of w at step s (of any kind),
//   sum_{t<=k} t w(t_t) = c_k w(now) - U,   U = sum_s c_{e(s)} delta_s,
// where e(s) is the number of samples taken before step s (this holds also when steps of the
// other kind happened after the last sample). So wbar = w - U / c_k, and each step adds its
// sparse change, scaled by c_{e(s)}, to U: O(touched coordinates) instead of O(dim).
// The averaged point is a convex combination of feasible duals, so F(phibar) is certified and
// -phibar_star / lambda = wbar is a valid primal point.
#pragma once

#include <cstdint>

#include "dual_state.hpp"

namespace dualgap_bcfw {

class Average {
 public:
  explicit Average(Eigen::Index dim) : U_(Vector::Zero(dim)) {}

  /// Called after every step (of any kind), with the state whose last change is to be counted.
  void after_step(const DualState& s) {
    if (samples_ > 0) s.add_last_change(U_.data(), c(samples_));
  }
  /// Called after a step of this average's kind: takes phi(now) as the next sample.
  void sample(const DualState& s) {
    ++samples_;
    const double k = static_cast<double>(samples_);
    circ_ = (k - 1) / (k + 1) * circ_ + 2 / (k + 1) * s.phi_circ;
  }

  std::int64_t samples() const { return samples_; }
  /// wbar = -phibar_star / lambda.
  void weights(const DualState& s, Vector& out) const {
    if (samples_ == 0) {
      out = s.w;
      return;
    }
    out = s.w - U_ / c(samples_);
  }
  double circ(const DualState& s) const { return samples_ ? circ_ : s.phi_circ; }

 private:
  static double c(std::int64_t k) { return 0.5 * static_cast<double>(k) * static_cast<double>(k + 1); }
  Vector U_;
  double circ_ = 0;
  std::int64_t samples_ = 0;
};

/// Best-dual interpolation of two averaged points (MP-BCFW-avg): maximizes over t in [0, 1]
///   F(t) = -lambda/2 ||(1-t) a + t b||^2 + (1-t) ca + t cb,
/// a concave quadratic: t* = ((cb - ca)/lambda - <a, b - a>) / ||b - a||^2, clipped.
inline double best_interpolation(const Vector& a, double ca, const Vector& b, double cb,
                                 double lambda) {
  const Vector diff = b - a;
  const double q = diff.squaredNorm();
  if (q <= 0) return cb > ca ? 1.0 : 0.0;
  const double t = ((cb - ca) / lambda - a.dot(diff)) / q;
  return t < 0 ? 0.0 : (t > 1 ? 1.0 : t);
}

}  // namespace dualgap_bcfw
