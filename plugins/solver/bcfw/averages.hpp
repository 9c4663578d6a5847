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
#include "dualgap/iterate.hpp"

namespace dualgap_bcfw {

class Average {
 public:
  explicit Average(Eigen::Index dim) : U_(Vector::Zero(dim)) {}

  /// Called after every step (of any kind), with the state whose last change is to be counted
  /// (a block storage: MarginalBlocks, DenseBlocks or SimplexBlocks; or a mini-batch step).
  template <class Blocks>
  void after_step(const Blocks& s) {
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

/// The averages of section 3.5 as the loop uses them: BCFW-avg averages the iterates after exact
/// steps; MP-BCFW-avg keeps a second average over approximate steps and reports the best-dual
/// interpolation of the two.
class IterateAverages {
 public:
  /// on = option averaging; multiplane = whether approximate steps happen (second average).
  IterateAverages(bool on, bool multiplane, Eigen::Index dim)
      : on_(on), multiplane_(multiplane), exact_(on ? dim : 0), approx_(on && multiplane ? dim : 0) {}

  /// After every block step: phibar(k+1) = k/(k+2) phibar(k) + 2/(k+2) phi(k+1) for the average
  /// of the step's kind; the other average only books the change (lazy, see Average).
  template <class Blocks>
  void after_step(const Blocks& st, bool exact) {
    after_step(st, st, exact);
  }
  /// The same when the change of w is not the storage's last block step but `change`'s
  /// (a mini-batch step, minibatch.hpp: anything with add_last_change(target, coef)).
  template <class Change>
  void after_step(const Change& change, const DualState& st, bool exact) {
    if (!on_) return;
    exact_.after_step(change);
    if (multiplane_) approx_.after_step(change);
    if (exact) exact_.sample(st);
    else if (multiplane_) approx_.sample(st);
  }

  /// Points the iterate at the averaged primal point (in w_eval) and returns the averaged dual
  /// offset phibar_circ; returns false, touching nothing, when there is nothing to average yet.
  bool report(const DualState& st, dualgap::Iterate& it, Vector& w_eval, double& circ) {
    if (!on_ || exact_.samples() == 0) return false;
    exact_.weights(st, w_eval);
    circ = exact_.circ(st);
    if (multiplane_ && approx_.samples() > 0) {
      approx_.weights(st, wb_);
      const double cb = approx_.circ(st);
      const double t = best_interpolation(w_eval, circ, wb_, cb, st.lambda());
      w_eval = (1 - t) * w_eval + t * wb_;
      circ = (1 - t) * circ + t * cb;
      it.set("interpolation", t);
    }
    it.set("dual_last", st.dual());
    it.w = &w_eval;
    return true;
  }

 private:
  bool on_, multiplane_;
  Average exact_, approx_;
  Vector wb_;
};

}  // namespace dualgap_bcfw
