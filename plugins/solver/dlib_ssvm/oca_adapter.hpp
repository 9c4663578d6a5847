// An oca_problem that forwards to a dlib structural SVM problem, counts its risk evaluations
// (oca's iterations) and can present the weights with the first `shift` of them moved to the end.
// The shift is what pins the graph problem's Potts weight: oca's force_weight_to_1 = k pins
// index k and zeroes every later one, and the graph problem stores its edge weight first.
#pragma once

#include <dlib/optimization.h>

namespace dlib_ssvm {

using column = dlib::matrix<double, 0, 1>;

class OcaAdapter : public dlib::oca_problem<column> {
 public:
  /// `shift`: how many leading weights of `in` to present last (0: none).
  OcaAdapter(const dlib::oca_problem<column>& in, long shift) : in_(in), shift_(shift) {}
  bool risk_has_lower_bound(double& lb) const override { return in_.risk_has_lower_bound(lb); }
  bool optimization_status(double obj, double obj_gap, double risk, double risk_gap, unsigned long planes,
                           unsigned long iter) const override {
    return in_.optimization_status(obj, obj_gap, risk, risk_gap, planes, iter);
  }
  double get_c() const override { return in_.get_c(); }
  long get_num_dimensions() const override { return in_.get_num_dimensions(); }
  void get_risk(column& w, double& risk, column& grad) const override {
    ++risk_evals;
    if (shift_ == 0) return in_.get_risk(w, risk, grad);
    const long n = w.size(), m = n - shift_;
    wi_.set_size(n);
    dlib::set_rowm(wi_, dlib::range(0, shift_ - 1)) = dlib::rowm(w, dlib::range(m, n - 1));
    dlib::set_rowm(wi_, dlib::range(shift_, n - 1)) = dlib::rowm(w, dlib::range(0, m - 1));
    in_.get_risk(wi_, risk, gi_);
    grad.set_size(n);
    dlib::set_rowm(grad, dlib::range(m, n - 1)) = dlib::rowm(gi_, dlib::range(0, shift_ - 1));
    dlib::set_rowm(grad, dlib::range(0, m - 1)) = dlib::rowm(gi_, dlib::range(shift_, n - 1));
  }

  mutable unsigned long risk_evals = 0;

 private:
  const dlib::oca_problem<column>& in_;
  long shift_;
  mutable column wi_, gi_;
};

}  // namespace dlib_ssvm
