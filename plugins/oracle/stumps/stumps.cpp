// Decision-stump weak-learner oracle: h(x) = s * sign(x_f - theta), values in {-1, +1}; for a
// weight table W (n x K) returns the stump of largest edge sum_i W(i,c) h(x_i) for each class
// (MultiBoost-CW, eq. 4 of Lin et al., ACCV 2012), over all classes (eq. 6, Shen & Hao, CVPR 2011)
// or of largest sum_c |edge_c| (AdaBoost.MH vote stumps, Schapire & Singer 1999).
//
// Each feature is sorted once (prepare). For threshold theta between sorted values k and k+1,
// edge_c = s * (T_c - 2 L_c) with T_c = sum_i W(i,c) and L_c = sum of W(i,c) over the k+1
// smallest values: one sweep per feature accumulates L for all K classes at once, O(n K) per
// feature, O(n d K) per call. The constant stump (theta below every value) is included.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "dualgap/oracles/weak_learner.hpp"
#include "dualgap/plugin.hpp"

namespace {

using dualgap::DenseMatrix;
using dualgap::Stump;

class StumpsOracle final : public dualgap::WeakLearnerOracle {
 public:
  void predict(const Stump& h, const dualgap::FeatureMatrix& X,
               std::vector<signed char>& out) const override {
    out.resize(static_cast<std::size_t>(X.rows()));
    const signed char pos = static_cast<signed char>(h.sign), neg = static_cast<signed char>(-h.sign);
    if (!X.is_sparse()) {
      const auto& D = X.dense();
      for (Eigen::Index r = 0; r < D.rows(); ++r) out[r] = D(r, h.feature) > h.threshold ? pos : neg;
    } else {
      const auto& S = X.sparse();
      for (Eigen::Index r = 0; r < S.rows(); ++r) out[r] = S.coeff(r, h.feature) > h.threshold ? pos : neg;
    }
  }

 protected:
  void do_prepare(const dualgap::Examples& train) override {
    if (train.structured())
      throw std::invalid_argument("stumps: structured examples (sequences/graphs) are not supported");
    n_ = static_cast<std::int64_t>(train.num_units());
    d_ = train.num_features();
    K_ = train.num_classes;
    if (n_ == 0 || d_ == 0) throw std::invalid_argument("stumps: empty training set");
    // Densify (sparse data is presorted with its zeros; the boosting experiments' data sets are
    // dense).
    const DenseMatrix X = train.X.is_sparse() ? train.X.to_dense() : DenseMatrix();
    const DenseMatrix& Xd = train.X.is_sparse() ? X : train.X.dense();
    order_.resize(static_cast<std::size_t>(n_ * d_));
    value_.resize(order_.size());
    std::vector<std::int32_t> idx(static_cast<std::size_t>(n_));
    for (Eigen::Index f = 0; f < d_; ++f) {
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(),
                       [&](std::int32_t a, std::int32_t b) { return Xd(a, f) < Xd(b, f); });
      for (std::int64_t k = 0; k < n_; ++k) {
        order_[f * n_ + k] = idx[k];
        value_[f * n_ + k] = Xd(idx[k], f);
      }
    }
  }

  void do_best_per_class(const DenseMatrix& W, std::vector<Stump>& out) override {
    check(W);
    out.assign(static_cast<std::size_t>(K_), Stump{});
    best_.assign(static_cast<std::size_t>(K_), -1.0);
    sweep([&](Eigen::Index f, double theta, const double* T, const double* L) {
      for (int c = 0; c < K_; ++c) {
        const double e = T[c] - 2.0 * L[c];
        const double a = std::abs(e);
        if (a > best_[c]) {
          best_[c] = a;
          out[c] = Stump{static_cast<int>(f), theta, e >= 0 ? 1 : -1, c, a};
        }
      }
    });
  }

  void do_best_vote(const DenseMatrix& W, Stump& out, std::vector<int>& votes) override {
    check(W);
    double best = -1.0;
    votes.assign(static_cast<std::size_t>(K_), 1);
    sweep([&](Eigen::Index f, double theta, const double* T, const double* L) {
      double s = 0;
      for (int c = 0; c < K_; ++c) s += std::abs(T[c] - 2.0 * L[c]);
      if (s > best) {
        best = s;
        out = Stump{static_cast<int>(f), theta, 1, -1, s};
        for (int c = 0; c < K_; ++c) votes[c] = T[c] - 2.0 * L[c] >= 0 ? 1 : -1;
      }
    });
  }

 private:
  void check(const DenseMatrix& W) {
    if (order_.empty()) throw std::logic_error("stumps: prepare(train) was not called");
    if (W.rows() != n_ || W.cols() != K_)
      throw std::invalid_argument("stumps: weight table is " + std::to_string(W.rows()) + "x" +
                                  std::to_string(W.cols()) + ", expected " + std::to_string(n_) +
                                  "x" + std::to_string(K_));
    Wp_ = W.data();
  }

  // Calls visit(f, theta, T, L) for every distinct split of every feature: the constant stump
  // (L = 0) and the thresholds halfway between consecutive distinct sorted values.
  template <class Visit>
  void sweep(Visit&& visit) {
    const int K = K_;
    T_.assign(static_cast<std::size_t>(K), 0.0);
    L_.assign(static_cast<std::size_t>(K), 0.0);
    const double* w = nullptr;
    for (std::int64_t i = 0; i < n_; ++i) {
      w = W_row(i);
      for (int c = 0; c < K; ++c) T_[c] += w[c];
    }
    for (Eigen::Index f = 0; f < d_; ++f) {
      const std::int32_t* ord = order_.data() + f * n_;
      const double* val = value_.data() + f * n_;
      std::fill(L_.begin(), L_.end(), 0.0);
      visit(f, val[0] - 1.0, T_.data(), L_.data());  // constant stump
      double* L = L_.data();
      for (std::int64_t k = 0; k + 1 < n_; ++k) {
        w = W_row(ord[k]);
        for (int c = 0; c < K; ++c) L[c] += w[c];
        if (val[k] < val[k + 1]) visit(f, 0.5 * (val[k] + val[k + 1]), T_.data(), L);
      }
    }
  }
  const double* W_row(std::int64_t i) const { return Wp_ + i * K_; }

  std::int64_t n_ = 0;
  Eigen::Index d_ = 0;
  int K_ = 0;
  std::vector<std::int32_t> order_;  // d blocks of n: example indices sorted by feature value
  std::vector<double> value_;        // the sorted values, same layout
  std::vector<double> T_, L_, best_;
  const double* Wp_ = nullptr;       // the weight table of the current call (row-major n x K)
};

dualgap::PluginDescription describe() {
  return dualgap::describe_oracle<StumpsOracle>(
      "stumps", "1.0.0",
      "Decision-stump weak learners, best per class / shared / vote (Lin et al., ACCV 2012, eq. 4, 6)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
