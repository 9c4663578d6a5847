// Pieces shared by the solvers of  F(W) = L(W) + lambda sum_j ||W_j:||_2  (bcd, fista, sparsa,
// fobos): group soft-thresholding (eq. 4 of Blondel et al. 2013), the penalty, the optimality
// violation (eq. 9), and the checkpoint evaluator with the certified dual (README of bcd).
// Included by relative path from the other solver folders.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "dualgap/oracles/block_loss.hpp"
#include "dualgap/solver.hpp"

namespace dualgap::sparse {

/// out = argmin_w 1/2 ||w - v||^2 + t ||w||_2 = max(1 - t/||v||, 0) v   (eq. 4). out may alias v.
inline void group_soft_threshold(const double* v, int K, double t, double* out) {
  double nv = 0;
  for (int r = 0; r < K; ++r) nv += v[r] * v[r];
  nv = std::sqrt(nv);
  const double scale = nv > t ? 1.0 - t / nv : 0.0;
  for (int r = 0; r < K; ++r) out[r] = scale * v[r];
}

inline double row_norm(const double* w, int K) {
  double s = 0;
  for (int r = 0; r < K; ++r) s += w[r] * w[r];
  return std::sqrt(s);
}

/// R(W) = sum_j ||W_j:||_2.
inline double penalty(const DenseMatrix& W) {
  double s = 0;
  const int K = static_cast<int>(W.cols());
  for (Eigen::Index j = 0; j < W.rows(); ++j) s += row_norm(W.data() + j * K, K);
  return s;
}

/// Percentage of non-zero rows of W.
inline double nnz_rows_percent(const DenseMatrix& W) {
  if (W.rows() == 0) return 0.0;
  const int K = static_cast<int>(W.cols());
  Eigen::Index c = 0;
  for (Eigen::Index j = 0; j < W.rows(); ++j) {
    const double* w = W.data() + j * K;
    for (int r = 0; r < K; ++r)
      if (w[r] != 0) { ++c; break; }
  }
  return 100.0 * static_cast<double>(c) / static_cast<double>(W.rows());
}

/// Violation of Proposition 1 for one block, eq. (9).
inline double violation(double grad_norm, double w_norm, double lambda) {
  return w_norm == 0 ? std::max(grad_norm - lambda, 0.0) : std::abs(grad_norm - lambda);
}

/// Fraction of examples of `ex` misclassified by argmax_r x . W_:r (features beyond W ignored).
inline double error_rate(const Examples& ex, const DenseMatrix& W) {
  const std::size_t n = ex.num_examples();
  if (n == 0) return 0.0;
  const int K = static_cast<int>(W.cols());
  const Eigen::Index d = W.rows();
  std::vector<double> s(static_cast<std::size_t>(K));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::fill(s.begin(), s.end(), 0.0);
    if (ex.X.is_sparse()) {
      const auto& X = ex.X.sparse();
      for (SparseMatrix::InnerIterator it(X, static_cast<Eigen::Index>(i)); it; ++it) {
        if (it.col() >= d) continue;
        const double* w = W.data() + it.col() * K;
        for (int r = 0; r < K; ++r) s[r] += it.value() * w[r];
      }
    } else {
      const auto& X = ex.X.dense();
      const Eigen::Index dd = std::min<Eigen::Index>(d, X.cols());
      for (Eigen::Index j = 0; j < dd; ++j) {
        const double x = X(static_cast<Eigen::Index>(i), j);
        if (x == 0) continue;
        const double* w = W.data() + j * K;
        for (int r = 0; r < K; ++r) s[r] += x * w[r];
      }
    }
    if (std::max_element(s.begin(), s.end()) - s.begin() != ex.y[i]) ++wrong;
  }
  return static_cast<double>(wrong) / static_cast<double>(n);
}

/// What a checkpoint found, beyond the Metrics row (for tests and stopping rules).
struct Certificate {
  double primal = 0, dual = 0, max_grad_norm = 0, max_violation = 0, theta = 0;
};

/// Best dual value over theta in [0, theta_max] (the dual is concave in theta): golden section
/// plus both end points. The oracle state must be at the point whose gradient gave theta_max.
inline double best_scaled_dual(const BlockLossOracle& oracle, double theta_max, double* theta_out) {
  double best_t = theta_max, best = oracle.dual_value(theta_max);
  const double phi = 0.5 * (std::sqrt(5.0) - 1.0);
  double a = 0, b = theta_max;
  double c = b - phi * (b - a), d = a + phi * (b - a);
  double fc = oracle.dual_value(c), fd = oracle.dual_value(d);
  for (int it = 0; it < 30; ++it) {
    if (fc > fd) {
      b = d; d = c; fd = fc;
      c = b - phi * (b - a);
      fc = oracle.dual_value(c);
    } else {
      a = c; c = d; fc = fd;
      d = a + phi * (b - a);
      fd = oracle.dual_value(d);
    }
  }
  if (fc > best) { best = fc; best_t = c; }
  if (fd > best) { best = fd; best_t = d; }
  if (theta_out) *theta_out = best_t;
  return best;
}

/// Evaluates W at a checkpoint: primal F(W), certified dual, errors, nnz_rows, max_violation,
/// test_accuracy. Leaves the oracle state at W. G is a d x K work buffer.
inline Certificate evaluate(BlockLossOracle& oracle, const DenseMatrix& W, double lambda,
                            const Data& data, Metrics& m, DenseMatrix& G) {
  Certificate c;
  const double loss = oracle.set_point(W);
  oracle.gradient(G);
  const int K = static_cast<int>(W.cols());
  for (Eigen::Index j = 0; j < W.rows(); ++j) {
    const double gn = row_norm(G.data() + j * K, K);
    c.max_grad_norm = std::max(c.max_grad_norm, gn);
    c.max_violation = std::max(c.max_violation, violation(gn, row_norm(W.data() + j * K, K), lambda));
  }
  c.primal = loss + lambda * penalty(W);
  // Dual point theta * grad_S L(S), feasible when theta * ||G_j:|| <= lambda for every j.
  const double theta_max = c.max_grad_norm > lambda ? lambda / c.max_grad_norm : 1.0;
  c.dual = best_scaled_dual(oracle, theta_max, &c.theta);
  m.primal = c.primal;
  if (lambda > 0) m.dual = c.dual;
  m.train_error = oracle.train_error();
  if (data.test.num_examples() > 0) {
    const double te = error_rate(data.test, W);
    m.test_error = te;
    m.set("test_accuracy", 1.0 - te);
  }
  m.set("nnz_rows", nnz_rows_percent(W));
  m.set("max_violation", c.max_violation);
  return c;
}

/// The oracle of a problem as a block-loss oracle, bound to the training split.
inline BlockLossOracle& bind_oracle(const Problem& pb, const char* solver) {
  auto* o = dynamic_cast<BlockLossOracle*>(pb.oracle);
  if (!o)
    throw std::invalid_argument(std::string(solver) +
                                ": needs an oracle with the 'block_loss' interface "
                                "(multiclass_sq_hinge, multitask_sq_hinge, multiclass_logistic)");
  if (!pb.data) throw std::invalid_argument(std::string(solver) + ": no data");
  o->bind(pb.data->train);
  return *o;
}

}  // namespace dualgap::sparse
