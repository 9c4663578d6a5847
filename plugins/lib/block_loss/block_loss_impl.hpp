// Shared margin bookkeeping of the three block-loss oracles (multiclass_sq_hinge,
// multitask_sq_hinge, multiclass_logistic). Each loss is a policy struct of static inline
// per-example functions, so the per-non-zero loops below are flat (no virtual call inside):
//
//   loss(s, y, K)                   l(s, y), without the 1/n factor
//   grad(s, y, K, g)                g = dl/ds; returns l(s, y)
//   accumulate(s, y, K, x, G, h)    G += x * dl/ds, h += x^2 * (generalized) d^2l/ds_r^2
//   neg_conj(s, y, K, theta)        -l^*(theta * dl/ds(s))
//   update_change(s, y, K, x, delta)  s += x delta; returns l(new s) - l(old s) (one fused loop)
//   optional grad_sweep / update_sweep: the whole column loop of block_gradient / update_block
//                                   in one function (a loss's vectorized kernel), see below
//   block_factor(K), global_factor(K): K_j = block_factor/n * sum_i x_ij^2,
//                                      L   = global_factor/n * ||X||_2^2.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dualgap/oracles/block_loss.hpp"
#include "dualgap/params.hpp"

namespace dualgap::block_loss_detail {

template <class Loss>
class BlockLossImpl final : public BlockLossOracle {
 public:
  std::string loss_name() const override { return Loss::name; }
  Eigen::Index num_examples() const override { return n_; }
  Eigen::Index num_features() const override { return d_; }
  int num_classes() const override { return K_; }
  const SparseMatrix& csr() const override { return *csr_; }
  const SparseColMatrix& csc() const override { return *csc_; }
  double block_lipschitz(Eigen::Index j) const override { return block_L_[j]; }
  double global_lipschitz() const override {
    // Computed on first use: power iteration costs ~120 passes of X.
    if (global_L_ < 0) global_L_ = Loss::global_factor(K_) * spectral_norm_sq() / static_cast<double>(n_);
    return global_L_;
  }

  double train_error() const override {
    if (n_ == 0) return 0.0;
    std::int64_t wrong = 0;
    for (Eigen::Index i = 0; i < n_; ++i) {
      const double* s = S_.data() + i * K_;
      if (std::max_element(s, s + K_) - s != y_[i]) ++wrong;
    }
    return static_cast<double>(wrong) / static_cast<double>(n_);
  }

 protected:
  void do_bind(const Examples& train) override {
    if (train.structured())
      throw std::invalid_argument(std::string(Loss::name) +
                                  ": needs multiclass data (one unit per example), got sequences/graphs");
    if (train.num_classes < 2)
      throw std::invalid_argument(std::string(Loss::name) + ": needs at least 2 classes");
    n_ = static_cast<Eigen::Index>(train.num_examples());
    d_ = train.num_features();
    K_ = train.num_classes;
    y_ = train.y;
    if (train.X.is_sparse()) {
      csr_ = &train.X.sparse();
    } else {
      own_csr_ = train.X.dense().sparseView();
      own_csr_.makeCompressed();
      csr_ = &own_csr_;
    }
    csc_ = &train.X.csc();
    if (!csr_->isCompressed() || !csc_->isCompressed())
      throw std::invalid_argument(std::string(Loss::name) + ": feature matrix must be compressed");
    S_.assign(static_cast<std::size_t>(n_ * K_), 0.0);
    block_L_.assign(static_cast<std::size_t>(d_), 0.0);
    const int* cp = csc_->outerIndexPtr();
    const double* cv = csc_->valuePtr();
    for (Eigen::Index j = 0; j < d_; ++j) {
      double sq = 0;
      for (int k = cp[j]; k < cp[j + 1]; ++k) sq += cv[k] * cv[k];
      block_L_[j] = Loss::block_factor(K_) * sq / static_cast<double>(n_);
    }
    global_L_ = -1;
  }

  void do_block_gradient(Eigen::Index j, double* G, double* h) override {
    std::fill(G, G + K_, 0.0);
    std::fill(h, h + K_, 0.0);
    const int* cp = csc_->outerIndexPtr();
    const int b = cp[j], e = cp[j + 1];
    const int* ci = csc_->innerIndexPtr() + b;
    const double* cv = csc_->valuePtr() + b;
    const int K = K_;
    if constexpr (requires { Loss::grad_sweep(ci, cv, 0, S_.data(), y_.data(), K, G, h); }) {
      // One flat sweep over the non-zeros of column j (the loss's own, vectorized kernel);
      // returns G and h without the loss's constant factor / n.
      const double f = Loss::grad_sweep(ci, cv, e - b, S_.data(), y_.data(), K, G, h) / static_cast<double>(n_);
      for (int r = 0; r < K; ++r) {
        G[r] *= f;
        h[r] *= f;
      }
      return;
    } else {
      for (int k = 0; k < e - b; ++k) {
        const int i = ci[k];
        Loss::accumulate(S_.data() + static_cast<std::size_t>(i) * K, y_[i], K, cv[k], G, h);
      }
      const double inv_n = 1.0 / static_cast<double>(n_);
      for (int r = 0; r < K; ++r) {
        G[r] *= inv_n;
        h[r] *= inv_n;
      }
    }
  }

  double do_update_block(Eigen::Index j, const double* delta, bool want_change) override {
    const int* cp = csc_->outerIndexPtr();
    const int b = cp[j], e = cp[j + 1];
    const int* ci = csc_->innerIndexPtr() + b;
    const double* cv = csc_->valuePtr() + b;
    const int K = K_;
    if (!want_change) {
      for (int k = 0; k < e - b; ++k) {
        double* s = S_.data() + static_cast<std::size_t>(ci[k]) * K;
        const double x = cv[k];
        for (int r = 0; r < K; ++r) s[r] += x * delta[r];
      }
      return 0.0;
    }
    double change = 0;
    if constexpr (requires { Loss::update_sweep(ci, cv, 0, S_.data(), y_.data(), K, delta); }) {
      change = Loss::update_sweep(ci, cv, e - b, S_.data(), y_.data(), K, delta);
    } else {
      for (int k = 0; k < e - b; ++k) {
        const int i = ci[k];
        change += Loss::update_change(S_.data() + static_cast<std::size_t>(i) * K, y_[i], K, cv[k], delta);
      }
    }
    return change / static_cast<double>(n_);
  }

  double do_set_point(const DenseMatrix& W) override {
    if (W.rows() != d_ || W.cols() != K_)
      throw std::invalid_argument(std::string(Loss::name) + ": W must be d x K");
    const int* rp = csr_->outerIndexPtr();
    const int* ri = csr_->innerIndexPtr();
    const double* rv = csr_->valuePtr();
    const int K = K_;
    const double* w = W.data();
    double total = 0;
    for (Eigen::Index i = 0; i < n_; ++i) {
      double* s = S_.data() + i * K;
      std::fill(s, s + K, 0.0);
      for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const double x = rv[k];
        const double* wj = w + static_cast<std::size_t>(ri[k]) * K;
        for (int r = 0; r < K; ++r) s[r] += x * wj[r];
      }
      total += Loss::loss(s, y_[i], K);
    }
    return total / static_cast<double>(n_);
  }

  void do_gradient(DenseMatrix& G) override {
    G.setZero(d_, K_);
    const int* rp = csr_->outerIndexPtr();
    const int* ri = csr_->innerIndexPtr();
    const double* rv = csr_->valuePtr();
    const int K = K_;
    g_.resize(static_cast<std::size_t>(K));
    double* out = G.data();
    const double inv_n = 1.0 / static_cast<double>(n_);
    for (Eigen::Index i = 0; i < n_; ++i) {
      Loss::grad(S_.data() + i * K, y_[i], K, g_.data());
      for (int r = 0; r < K; ++r) g_[r] *= inv_n;
      for (int k = rp[i]; k < rp[i + 1]; ++k) {
        const double x = rv[k];
        double* gj = out + static_cast<std::size_t>(ri[k]) * K;
        for (int r = 0; r < K; ++r) gj[r] += x * g_[r];
      }
    }
  }

  double do_value() const override {
    double total = 0;
    for (Eigen::Index i = 0; i < n_; ++i) total += Loss::loss(S_.data() + i * K_, y_[i], K_);
    return total / static_cast<double>(n_);
  }

  double do_example_gradient(Eigen::Index i, const double* scores, double* g) override {
    return Loss::grad(scores, y_[i], K_, g);
  }

  double do_dual_value(double theta) const override {
    double total = 0;
    for (Eigen::Index i = 0; i < n_; ++i) total += Loss::neg_conj(S_.data() + i * K_, y_[i], K_, theta);
    return total / static_cast<double>(n_);
  }

 private:
  // ||X||_2^2 by power iteration on X^T X (60 steps from a positive start), times 1.02: the
  // iteration approaches the largest eigenvalue from below, the margin keeps 1/L a safe step.
  double spectral_norm_sq() const {
    if (d_ == 0 || n_ == 0) return 0.0;
    Eigen::VectorXd v = Eigen::VectorXd::Ones(d_) / std::sqrt(static_cast<double>(d_));
    double est = 0;
    for (int it = 0; it < 60; ++it) {
      Eigen::VectorXd u = (*csr_) * v;
      Eigen::VectorXd w = csr_->transpose() * u;
      const double nw = w.norm();
      if (nw == 0) return 0.0;
      est = v.dot(w);
      v = w / nw;
    }
    return 1.02 * est;
  }

  Eigen::Index n_ = 0, d_ = 0;
  int K_ = 0;
  std::vector<int> y_;
  const SparseMatrix* csr_ = nullptr;
  const SparseColMatrix* csc_ = nullptr;
  SparseMatrix own_csr_;
  std::vector<double> S_;  // n x K scores, row-major
  std::vector<double> block_L_;
  std::vector<double> g_;
  mutable double global_L_ = -1;
};

}  // namespace dualgap::block_loss_detail
