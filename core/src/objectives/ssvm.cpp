// The structural SVM objective (family "ssvm": any structured oracle).
//
//   P(w) = lambda/2 ||w||^2 + (1/n) sum_i H_i(w),
//   H_i(w) = max_y [ Delta(y_i, y) + c(y) - c(y_i) + <w, phi(x_i, y) - phi(x_i, y_i)> ]
//
// (Shah, Kolmogorov, Lampert, CVPR 2015, eqs. (1)-(2); c is the w-independent score of a fixed
// Potts term, 0 otherwise). H_i needs one loss-augmented max-oracle call per example: the n calls
// of a primal count as evaluation. Since y = y_i is a candidate, H_i >= Delta(y_i, y_i) = 0; the
// max keeps that true for approximate oracles too.
//
// Dual certificate (SsvmDualPoint): a feasible alpha gives w_alpha = A alpha, l_alpha = b^T alpha
// and the dual value D(alpha) = -lambda/2 ||w_alpha||^2 + l_alpha <= min P (eq. (5)). The core
// cannot see alpha, so it checks what weak duality implies, D <= P(w) for every w; a certificate
// that breaks it fails the run. With an approximate oracle (alpha-expansion) P is only an
// estimate and the check is skipped.
//
// Errors: the decoded labeling (no loss term) against the truth, per unit (Hamming), on the
// training split (record.train_error, n more oracle calls) and the test split. Beside them the
// task loss, the columns train_loss / test_loss: the mean over examples of the oracle's own
// Delta(y_i, y_hat) at that prediction (a weighted, hierarchical or unnormalized loss is what
// the model is trained for; the errors stay 0-1 / Hamming whatever it is).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "dualgap/oracles/structured.hpp"
#include "objectives/families.hpp"

namespace dualgap {
namespace {

class SsvmObjective final : public Objective {
 public:
  SsvmObjective(const Problem& pb, StructuredOracle& oracle, ScoreOptions opt)
      : data_(*pb.data), oracle_(oracle), lambda_(pb.lambda), opt_(opt) {
    const Examples& ex = data_.train;
    dim_ = oracle_.dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes);
    truth_constant_.resize(ex.num_examples());
    bool constants = false;
    for (std::size_t i = 0; i < ex.num_examples(); ++i) {
      truth_constant_[i] = oracle_.constant(ex, i, ex.y.data() + ex.unit_begin(i));
      constants = constants || truth_constant_[i] != 0.0;
    }
    // An oracle without a constant term keeps no table (n doubles less during the whole run).
    if (!constants) truth_constant_ = std::vector<double>();
  }

  json describe() const override {
    return {{"family", "ssvm"}, {"loss", "structured_hinge"}, {"lambda", lambda_}, {"exact_oracle", oracle_.exact()}};
  }
  const char* model_kind() const override { return "w"; }

  void score(const Iterate& it, Scores& out) override {
    if (!it.w) throw std::runtime_error("the ssvm objective scores a joint weight vector w; the checkpoint set another model");
    const Vector& w = *it.w;
    check_dim(w, "w");
    const Examples& ex = data_.train;
    const std::size_t n = ex.num_examples();
    double hinge = 0, task_loss = 0;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const int* yi = ex.y.data() + ex.unit_begin(i);
      oracle_.max_oracle(ex, i, w, lab_, scores_);
      const double v = lab_.loss + lab_.constant - (truth_constant_.empty() ? 0.0 : truth_constant_[i]) +
                       oracle_.joint_score(ex, i, lab_.labels.data(), scores_.data(), w) -
                       oracle_.joint_score(ex, i, yi, scores_.data(), w);
      hinge += std::max(v, oracle_.loss(ex, i, yi));
      if (opt_.train_error) wrong += decode_errors(ex, i, w, task_loss);
    }
    out.primal = 0.5 * lambda_ * w.squaredNorm() + hinge / static_cast<double>(n);
    out.approximate = !oracle_.exact();
    if (opt_.train_error) {
      out.train_error = static_cast<double>(wrong) / static_cast<double>(ex.num_units());
      out.set("train_loss", task_loss / static_cast<double>(n));
    }
    const Examples& test = data_.test;
    if (test.num_examples() > 0) {
      std::size_t twrong = 0;
      double tloss = 0;
      for (std::size_t i = 0; i < test.num_examples(); ++i) twrong += decode_errors(test, i, w, tloss);
      out.test_error = static_cast<double>(twrong) / static_cast<double>(test.num_units());
      out.set("test_loss", tloss / static_cast<double>(test.num_examples()));
    }
    if (it.ssvm_dual) {
      const Vector& wa = it.ssvm_dual->w_alpha ? *it.ssvm_dual->w_alpha : w;
      check_dim(wa, "the dual point's w_alpha");
      const double dual = -0.5 * lambda_ * wa.squaredNorm() + it.ssvm_dual->l_alpha;
      if (oracle_.exact() && std::isfinite(dual) && std::isfinite(*out.primal) &&
          dual > *out.primal + 1e-9 * std::max(1.0, std::abs(*out.primal)))
        throw std::runtime_error(fmt::format(
            "the solver's dual certificate is not valid: its dual value {:.17g} exceeds the primal {:.17g} of its "
            "iterate (weak duality)",
            dual, *out.primal));
      out.dual = dual;
    }
  }

 private:
  void check_dim(const Vector& w, const char* what) const {
    if (static_cast<std::size_t>(w.size()) != dim_)
      throw std::runtime_error(fmt::format("{} has {} entries; the oracle's joint feature map has {}", what, w.size(), dim_));
  }
  // Decodes example i: returns its wrong units and adds the oracle's loss of the prediction
  // (decode fills Labeling::loss = Delta(y_i, y_hat)) to `task_loss`.
  std::size_t decode_errors(const Examples& ex, std::size_t i, const Vector& w, double& task_loss) {
    oracle_.decode(ex, i, w, lab_, scores_);
    task_loss += lab_.loss;
    const int* yi = ex.y.data() + ex.unit_begin(i);
    std::size_t wrong = 0;
    for (int u = 0; u < ex.units_of(i); ++u) wrong += lab_.labels[static_cast<std::size_t>(u)] != yi[u];
    return wrong;
  }

  const Data& data_;
  StructuredOracle& oracle_;
  double lambda_;
  ScoreOptions opt_;
  std::size_t dim_ = 0;
  std::vector<double> truth_constant_;  ///< c(y_i); empty when every c(y_i) is 0
  Labeling lab_;
  std::vector<double> scores_;
};

}  // namespace

std::unique_ptr<Objective> make_ssvm_objective(const Problem& pb, const ObjectiveSpec& spec, const ScoreOptions& opt) {
  auto* oracle = dynamic_cast<StructuredOracle*>(pb.oracle);
  if (!oracle) throw std::runtime_error("the ssvm objective needs a structured oracle");
  if (!spec.loss.empty() && spec.loss != "structured_hinge")
    throw std::runtime_error("the ssvm objective has one loss, structured_hinge; the solver asked for '" + spec.loss + "'");
  return std::make_unique<SsvmObjective>(pb, *oracle, opt);
}

}  // namespace dualgap
