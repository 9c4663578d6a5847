// The boosting objective (family "boosting": weak_learner oracles). The model is an ensemble of
// decision stumps (Iterate::ensemble), F_c(x) = sum_t alpha(t, c) h_t(x), h_t(x) in {-1, +1};
// n training examples, K classes, p = n (K-1).
//
// loss "exp" (MultiBoost-CW, MultiBoost; params {C}), Lin et al., ACCV 2012, eq. (2)/(7):
//
//   P = sum_{t,c} |alpha(t,c)| + (C/p) sum_i sum_{y != y_i} mu_(i,y),   mu_(i,y) = exp(F_y(x_i) - F_{y_i}(x_i))
//
// The first term is ||w||_1 of the paper's w >= 0 (a negative alpha is a positive weight on -h,
// and the stumps are closed under negation).
// Certified dual (NOTES.md section 1): D(lambda) = sum lambda (1 - log(p/C) - log lambda) over
// lambda >= 0 with edge_c(h) <= 1 for every stump h of every class. Computed from the iterate
// alone: the KKT point lambda = (C/p) mu (eq. 5), its edge table (eq. 4)
//   W(i, y_i) = sum_{y != y_i} lambda_(i,y),   W(i, c) = -lambda_(i,c)  (c != y_i),
// ONE best_per_class oracle call for the largest edge e* over all stumps and classes (counted as
// evaluation), s = max(1, e*); lambda / s is feasible, so
//
//   D = (C/(p s)) sum_i sum_{y != y_i} mu_(i,y) (1 + log s - (F_y(x_i) - F_{y_i}(x_i)))
//
// is a lower bound on the optimum of (2) over all stumps and P - D a true duality gap.
//
// loss "exp_hamming" (AdaBoost.MH; no dual), Schapire & Singer 1999: the exponential Hamming loss
//   P = sum_i sum_l d(i,l) exp(-Y(i,l) F_l(x_i)),  Y(i,l) = +1 if l = y_i else -1,
// d(i,l) = 1/(nK) (params {weights: uniform}, the default) or, for {weights: balanced}, 1/(2n)
// on the true label and 1/(2p) on the others: the initial distribution of the solver, so P is
// exactly the loss it greedily minimizes (prod_t Z_t).
//
// loss "exp_pairwise" (AdaBoost.ECC; no dual), Guruswami & Sahai 1999: (2) without the l1 term
// and without C,  P = (1/p) sum_i sum_{y != y_i} mu_(i,y).
//
// loss "exp_code" (AdaBoost.MO; no dual), Schapire & Singer 1999, Sec. 9: an output code
// M in {-1,+1}^{K x L} (params {code: K rows of L entries}, the solver's code matrix; the
// objective is defined by the matrix, so re-scoring needs no solver state). The ensemble has L
// columns, one per code bit (not one per class): F_l(x) = sum_t alpha(t, l) h_t(x), and
//   P = (1/(nL)) sum_i sum_l exp(-M(y_i, l) F_l(x_i)),
// the exponential Hamming loss of the binary problems the code defines (= prod_t Z_t).
// Errors: loss-based decoding, argmin_y sum_l exp(-M(y, l) F_l(x)) (ties up to rounding: the
// first class): the class whose code word the scores would pay least to be relabelled to.
//
// Errors (the other losses): argmax_c F_c(x) (first maximizer) against the label, on train and test.
//
// Cost: the ensemble grows by appending, so the objective keeps every stump's predictions on
// train and test and the scores F of the alpha it last saw; a checkpoint predicts only new
// stumps and adds (alpha - alpha_seen) h_t for the entries that changed: O(n) per changed entry,
// not O(T n) per checkpoint. An ensemble that does not extend the last one is summed afresh.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "dualgap/metrics.hpp"
#include "dualgap/oracles/weak_learner.hpp"
#include "objectives/families.hpp"

namespace dualgap {
namespace {

bool same_stump(const Stump& a, const Stump& b) {
  return a.feature == b.feature && a.threshold == b.threshold && a.sign == b.sign;
}

/// F = sum_t alpha(t, :) h_t on one split, kept up to date incrementally (see the header).
class SplitScores {
 public:
  SplitScores(const WeakLearnerOracle& oracle, const FeatureMatrix& X, int K)
      : oracle_(oracle), X_(X), K_(K), F_(DenseMatrix::Zero(X.rows(), K)) {}

  /// Brings F to the ensemble (stumps already validated).
  void update(const Ensemble& e) {
    const std::size_t T = e.stumps.size();
    // An ensemble that is not an extension of the last one (fewer rows, or another stump in a
    // row: re-scoring saved iterates in any order) is summed afresh: subtracting the old rows
    // would leave rounding residues where F should be exactly 0 (ties in the argmax).
    bool afresh = T < stumps_.size();
    for (std::size_t t = 0; t < std::min(T, stumps_.size()); ++t)
      if (!same_stump(stumps_[t], e.stumps[t])) {
        afresh = true;
        stumps_[t] = e.stumps[t];
        oracle_.predict(stumps_[t], X_, h_[t]);
      }
    if (afresh) {
      F_.setZero();
      for (auto& s : seen_) std::fill(s.begin(), s.end(), 0.0);
    }
    if (stumps_.size() > T) {
      stumps_.resize(T);
      h_.resize(T);
      seen_.resize(T);
    }
    for (std::size_t t = stumps_.size(); t < T; ++t) {
      stumps_.push_back(e.stumps[t]);
      h_.emplace_back();
      oracle_.predict(stumps_[t], X_, h_[t]);
      seen_.emplace_back(static_cast<std::size_t>(K_), 0.0);
    }
    std::vector<std::size_t> nonzero(static_cast<std::size_t>(K_), 0);
    for (std::size_t t = 0; t < T; ++t)
      for (int c = 0; c < K_; ++c) {
        const double a = e.alpha(static_cast<Eigen::Index>(t), c);
        if (a != seen_[t][c]) set(t, c, a);
        nonzero[c] += a != 0;
      }
    // A class without weight has F = 0 exactly, whatever residue the increments left.
    for (int c = 0; c < K_; ++c)
      if (nonzero[c] == 0) F_.col(c).setZero();
  }
  const DenseMatrix& F() const { return F_; }

 private:
  /// F(:, c) += (a - alpha seen) h_t; alpha seen = a.
  void set(std::size_t t, int c, double a) {
    const double delta = a - seen_[t][c];
    const signed char* h = h_[t].data();
    for (Eigen::Index i = 0; i < F_.rows(); ++i) F_(i, c) += delta * h[i];
    seen_[t][c] = a;
  }

  const WeakLearnerOracle& oracle_;
  const FeatureMatrix& X_;
  int K_;
  DenseMatrix F_;
  std::vector<Stump> stumps_;
  std::vector<std::vector<signed char>> h_;  ///< h_t on the split's rows
  std::vector<std::vector<double>> seen_;    ///< alpha(t, :) that F includes
};

enum class Loss { exp, exp_hamming, exp_pairwise, exp_code };

class BoostingObjective final : public Objective {
 public:
  /// `code`: the K x L output code of loss exp_code (empty for the other losses).
  BoostingObjective(const Problem& pb, WeakLearnerOracle& oracle, Loss loss, double C, bool balanced,
                    DenseMatrix code = {})
      : data_(*pb.data),
        oracle_(oracle),
        loss_(loss),
        C_(C),
        balanced_(balanced),
        K_(pb.data->train.num_classes),
        code_(std::move(code)),
        cols_(loss == Loss::exp_code ? static_cast<int>(code_.cols()) : K_),
        train_(oracle, pb.data->train.X, cols_),
        test_(oracle, pb.data->test.X, cols_) {
    const Examples& tr = data_.train;
    if (tr.structured()) throw std::runtime_error("the boosting objective needs multi-class (unstructured) data");
    if (K_ < 2) throw std::runtime_error("the boosting objective needs at least 2 classes");
    if (tr.num_units() == 0) throw std::runtime_error("the boosting objective needs training examples");
    // The dual's oracle call needs the sorted training set. The solver prepares the oracle too,
    // but scoring must not depend on it (re-scoring saved iterates runs no solver).
    if (loss_ == Loss::exp) oracle_.prepare(tr);
  }

  json describe() const override {
    json d = {{"family", "boosting"}, {"loss", loss_name()}};
    if (loss_ == Loss::exp) d["C"] = C_;
    if (loss_ == Loss::exp_hamming) d["weights"] = balanced_ ? "balanced" : "uniform";
    if (loss_ == Loss::exp_code) d["code"] = code_json(code_);
    return d;
  }
  const char* model_kind() const override { return "ensemble"; }

  void score(const Iterate& it, Scores& out) override {
    if (!it.ensemble)
      throw std::runtime_error("the boosting objective scores a stump ensemble; the checkpoint set another model");
    const Ensemble& e = *it.ensemble;
    check(e);
    train_.update(e);
    const DenseMatrix& F = train_.F();
    const std::vector<int>& y = data_.train.y;
    const double n = static_cast<double>(F.rows()), p = n * (K_ - 1);
    switch (loss_) {
      case Loss::exp: score_exp(e, F, y, p, out); break;
      case Loss::exp_pairwise: out.primal = pairwise_sum(F, y) / p; break;
      case Loss::exp_hamming: {
        const double on = balanced_ ? 0.5 / n : 1.0 / (n * K_), off = balanced_ ? 0.5 / p : on;
        double s = 0;
        for (Eigen::Index i = 0; i < F.rows(); ++i)
          for (int l = 0; l < K_; ++l) s += l == y[i] ? on * std::exp(-F(i, l)) : off * std::exp(F(i, l));
        out.primal = s;
        break;
      }
      case Loss::exp_code: {
        double s = 0;
        for (Eigen::Index i = 0; i < F.rows(); ++i)
          for (int l = 0; l < cols_; ++l) s += std::exp(-code_(y[i], l) * F(i, l));
        out.primal = s / (n * cols_);
        break;
      }
    }
    out.train_error = error(F, y);
    if (data_.test.num_units() > 0) {
      test_.update(e);
      out.test_error = error(test_.F(), data_.test.y);
    }
  }

  static json code_json(const DenseMatrix& M) {
    json rows = json::array();
    for (Eigen::Index k = 0; k < M.rows(); ++k) {
      json row = json::array();
      for (Eigen::Index l = 0; l < M.cols(); ++l) row.push_back(static_cast<int>(M(k, l)));
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  const char* loss_name() const {
    switch (loss_) {
      case Loss::exp: return "exp";
      case Loss::exp_hamming: return "exp_hamming";
      case Loss::exp_pairwise: return "exp_pairwise";
      case Loss::exp_code: return "exp_code";
    }
    return "?";
  }

  double error(const DenseMatrix& F, const std::vector<int>& y) const {
    return loss_ == Loss::exp_code ? decoding_error(F, y) : argmax_error(F, y);
  }

  /// Loss-based decoding: argmin_k sum_l exp(-M(k, l) F_l(x)) against the label. Every class's
  /// sum is scaled by the same exp(-max_l |F_l(x)|), which leaves the argmin unchanged and keeps
  /// large scores from overflowing to a tie at infinity. Exact ties are common (one-vs-all after
  /// one round: every F_l is +-alpha) and rounding would break them by summation order, so a
  /// class wins only when its sum is smaller by more than a relative 1e-12: ties go to the
  /// first class, whatever the order of the arithmetic.
  double decoding_error(const DenseMatrix& F, const std::vector<int>& y) const {
    std::size_t wrong = 0;
    for (Eigen::Index i = 0; i < F.rows(); ++i) {
      const double shift = F.row(i).cwiseAbs().maxCoeff();
      int best = 0;
      double best_loss = 0;
      for (int k = 0; k < K_; ++k) {
        double loss = 0;
        for (int l = 0; l < cols_; ++l) loss += std::exp(-code_(k, l) * F(i, l) - shift);
        if (k == 0 || loss < best_loss * (1 - 1e-12)) best = k, best_loss = loss;
      }
      wrong += best != y[static_cast<std::size_t>(i)];
    }
    return F.rows() > 0 ? static_cast<double>(wrong) / static_cast<double>(F.rows()) : 0.0;
  }

  void check(const Ensemble& e) const {
    if (e.alpha.rows() != static_cast<Eigen::Index>(e.stumps.size()) || e.alpha.cols() != cols_)
      throw std::runtime_error(fmt::format("the ensemble has {} stumps and alpha is {} x {}; expected {} x {} = {}",
                                           e.stumps.size(), e.alpha.rows(), e.alpha.cols(), e.stumps.size(),
                                           loss_ == Loss::exp_code ? "L (code columns)" : "K", cols_));
    const Eigen::Index d = std::min(data_.train.num_features(),
                                    data_.test.num_units() > 0 ? data_.test.num_features() : data_.train.num_features());
    for (std::size_t t = 0; t < e.stumps.size(); ++t) {
      const Stump& s = e.stumps[t];
      if (s.feature < 0 || s.feature >= d || (s.sign != 1 && s.sign != -1))
        throw std::runtime_error(fmt::format("stump {} of the ensemble has feature {} and sign {}; expected a feature "
                                             "in [0, {}) and a sign of +1 or -1",
                                             t, s.feature, s.sign, d));
    }
  }

  /// sum_i sum_{y != y_i} exp(F_y(x_i) - F_{y_i}(x_i)).
  double pairwise_sum(const DenseMatrix& F, const std::vector<int>& y) const {
    double s = 0;
    for (Eigen::Index i = 0; i < F.rows(); ++i) {
      const double fy = F(i, y[i]);
      for (int c = 0; c < K_; ++c)
        if (c != y[i]) s += std::exp(F(i, c) - fy);
    }
    return s;
  }

  void score_exp(const Ensemble& e, const DenseMatrix& F, const std::vector<int>& y, double p, Scores& out) {
    const double cp = C_ / p;
    double l1 = 0;
    for (Eigen::Index t = 0; t < e.alpha.rows(); ++t)
      for (int c = 0; c < K_; ++c) l1 += std::abs(e.alpha(t, c));
    const double primal = l1 + cp * pairwise_sum(F, y);
    out.primal = primal;
    if (!std::isfinite(primal)) return;  // no certificate for a diverged iterate
    // The edge table (4) of lambda = (C/p) mu.
    W_.setZero(F.rows(), K_);
    for (Eigen::Index i = 0; i < F.rows(); ++i) {
      const double fy = F(i, y[i]);
      for (int c = 0; c < K_; ++c) {
        if (c == y[i]) continue;
        const double lambda = cp * std::exp(F(i, c) - fy);
        W_(i, c) = -lambda;
        W_(i, y[i]) += lambda;
      }
    }
    oracle_.best_per_class(W_, best_);
    double max_edge = 0;
    for (const Stump& s : best_) max_edge = std::max(max_edge, s.edge);
    const double s = std::max(1.0, max_edge), ls = std::log(s);
    double sum = 0;
    for (Eigen::Index i = 0; i < F.rows(); ++i) {
      const double fy = F(i, y[i]);
      for (int c = 0; c < K_; ++c) {
        if (c == y[i]) continue;
        const double diff = F(i, c) - fy;
        sum += std::exp(diff) * (1.0 + ls - diff);
      }
    }
    out.dual = cp / s * sum;
  }

  const Data& data_;
  WeakLearnerOracle& oracle_;
  Loss loss_;
  double C_;
  bool balanced_;
  int K_;
  DenseMatrix code_;  ///< K x L, entries +-1 (exp_code only)
  int cols_;          ///< columns of alpha and F: L for exp_code, else K
  SplitScores train_, test_;
  DenseMatrix W_;
  std::vector<Stump> best_;
};

/// The output code of loss exp_code: params.code, K rows (one per class) of L >= 1 entries, each
/// +1 or -1. Distinct rows are not required here (the solver draws them so); the loss is
/// defined for any such matrix.
DenseMatrix parse_code(const json& params, int K) {
  const char* expected = "params {code: K rows of L entries, each +1 or -1} from the solver";
  if (!params.contains("code") || !params["code"].is_array())
    throw std::runtime_error(std::string("the boosting loss 'exp_code' needs ") + expected);
  const json& rows = params["code"];
  if (static_cast<int>(rows.size()) != K || K < 1 || !rows[0].is_array() || rows[0].empty())
    throw std::runtime_error(fmt::format("the boosting loss 'exp_code' has a code of {} rows; expected {} (one per "
                                         "class), each a non-empty list",
                                         rows.size(), K));
  const std::size_t L = rows[0].size();
  DenseMatrix M(K, static_cast<Eigen::Index>(L));
  for (int k = 0; k < K; ++k) {
    const json& row = rows[static_cast<std::size_t>(k)];
    if (!row.is_array() || row.size() != L)
      throw std::runtime_error(fmt::format("the boosting loss 'exp_code': code row {} is not a list of {} entries", k, L));
    for (std::size_t l = 0; l < L; ++l) {
      const json& v = row[l];
      // compared as 64-bit: a narrowing get<int> would read 2^32 + 1 as 1
      if (!v.is_number_integer() || (v.get<std::int64_t>() != 1 && v.get<std::int64_t>() != -1))
        throw std::runtime_error(
            fmt::format("the boosting loss 'exp_code': code entry ({}, {}) is {}; expected +1 or -1", k, l, json_text(v)));
      M(k, static_cast<Eigen::Index>(l)) = static_cast<double>(v.get<std::int64_t>());
    }
  }
  return M;
}

}  // namespace

std::unique_ptr<Objective> make_boosting_objective(const Problem& pb, const ObjectiveSpec& spec, const ScoreOptions&) {
  auto* oracle = dynamic_cast<WeakLearnerOracle*>(pb.oracle);
  if (!oracle) throw std::runtime_error("the boosting objective needs a weak_learner oracle (e.g. plugin stumps)");
  const json& params = spec.params.is_object() ? spec.params : json::object();
  if (spec.loss == "exp") {
    if (!params.contains("C") || !params["C"].is_number())
      throw std::runtime_error("the boosting objective with loss 'exp' needs params {C: number} from the solver");
    const double C = params["C"].get<double>();
    if (!(C > 0) || !std::isfinite(C))
      throw std::runtime_error(fmt::format("the boosting objective needs C > 0 (C = 1/problem.lambda), got {}", C));
    return std::make_unique<BoostingObjective>(pb, *oracle, Loss::exp, C, false);
  }
  if (spec.loss == "exp_hamming") {
    const std::string weights = params.value("weights", std::string("uniform"));
    if (weights != "uniform" && weights != "balanced")
      throw std::runtime_error("the boosting loss 'exp_hamming' has weights 'uniform' or 'balanced', not '" + weights +
                               "'");
    return std::make_unique<BoostingObjective>(pb, *oracle, Loss::exp_hamming, 0.0, weights == "balanced");
  }
  if (spec.loss == "exp_pairwise") return std::make_unique<BoostingObjective>(pb, *oracle, Loss::exp_pairwise, 0.0, false);
  if (spec.loss == "exp_code")
    return std::make_unique<BoostingObjective>(pb, *oracle, Loss::exp_code, 0.0, false,
                                               parse_code(params, pb.data->train.num_classes));
  throw std::runtime_error("unknown boosting loss '" + spec.loss + "' (known: exp, exp_hamming, exp_pairwise, exp_code)");
}

}  // namespace dualgap
