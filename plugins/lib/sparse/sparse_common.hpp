// Pieces shared by the solvers of  F(W) = L(W) + lambda sum_j ||W_j:||_2  (bcd, fista, sparsa,
// fobos): group soft-thresholding (eq. 4 of Blondel et al. 2013), the penalty and the optimality
// violation (eq. 9). The objective, its certified dual and the errors are the core's
// (core/src/objectives/sparse_multiclass.cpp).
// Header-only (target dualgap_lib_sparse).
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

/// Violation of Proposition 1 for one block, eq. (9).
inline double violation(double grad_norm, double w_norm, double lambda) {
  return w_norm == 0 ? std::max(grad_norm - lambda, 0.0) : std::abs(grad_norm - lambda);
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
