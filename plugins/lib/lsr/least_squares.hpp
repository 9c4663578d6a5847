// Shared least-squares machinery of the solvers gls (Algorithm 1), calibrated_ls (Algorithm 2)
// and stagewise (Algorithm 3) of Agarwal, Kakade, Karampatziakis, Song & Valiant, "Least
// Squares Revisited: Scalable Approaches for Multi-class Prediction", ICML 2014.
// Header-only (target dualgap_lib_lsr), used by the three solver plugins.
//
// Conventions: X is n x d (rows = training units), Y is the n x K one-hot label matrix,
// W is d x K (the paper's W^T). The preconditioner is Sigma = (1/n) X^T X + ridge I, factored
// once by Cholesky (LLT), with the lambda of the problem as ridge (see GramFactor).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/data.hpp"
#include "dualgap/metrics.hpp"
#include "dualgap/random.hpp"

namespace dualgap::lsr {

/// One-hot labels: Y(i, y_i) = 1.
inline DenseMatrix one_hot(const std::vector<int>& y, int K) {
  DenseMatrix Y = DenseMatrix::Zero(static_cast<Eigen::Index>(y.size()), K);
  for (std::size_t i = 0; i < y.size(); ++i) Y(static_cast<Eigen::Index>(i), y[i]) = 1.0;
  return Y;
}

/// Dense view of X: a reference when X is dense, a dense copy when sparse (refused when huge).
inline const DenseMatrix& dense_view(const FeatureMatrix& X, DenseMatrix& storage, const char* who) {
  if (!X.is_sparse()) return X.dense();
  const double bytes = 8.0 * static_cast<double>(X.rows()) * static_cast<double>(X.cols());
  if (bytes > 4e9)
    throw std::runtime_error(std::string(who) + ": a dense " + std::to_string(X.rows()) + " x " +
                             std::to_string(X.cols()) +
                             " design does not fit in memory; use the stagewise solver with blocks");
  storage = DenseMatrix(X.sparse());
  return storage;
}

/// The design [X, A] without materializing it: X is the (possibly large) n x p feature block,
/// held by reference, A a few extra n x m columns (the intercept, calibration features). So a
/// stage of Algorithm 3 holds one block of generated features, never a copy of it.
struct SplitDesign {
  const DenseMatrix* X = nullptr;  ///< n x p, may be null (then only A)
  DenseMatrix A;                   ///< n x m

  Eigen::Index rows() const { return X ? X->rows() : A.rows(); }
  Eigen::Index p() const { return X ? X->cols() : 0; }
  Eigen::Index cols() const { return p() + A.cols(); }

  /// (1/n) [X A]^T [X A], lower triangle filled (symmetric copy).
  Eigen::MatrixXd gram() const {
    const Eigen::Index p = this->p(), m = A.cols();
    const double inv_n = 1.0 / std::max<double>(1, rows());
    Eigen::MatrixXd S = Eigen::MatrixXd::Zero(p + m, p + m);
    if (X) S.topLeftCorner(p, p).selfadjointView<Eigen::Lower>().rankUpdate(X->transpose(), inv_n);
    if (m > 0) {
      if (X) S.bottomLeftCorner(m, p).noalias() = inv_n * (A.transpose() * (*X));
      S.bottomRightCorner(m, m).noalias() = inv_n * (A.transpose() * A);
    }
    S.triangularView<Eigen::StrictlyUpper>() = S.transpose();
    return S;
  }
  /// (1/n) [X A]^T R.
  Eigen::MatrixXd xt(const DenseMatrix& R) const {
    const double inv_n = 1.0 / std::max<double>(1, rows());
    Eigen::MatrixXd G(cols(), R.cols());
    if (X) G.topRows(p()).noalias() = inv_n * (X->transpose() * R);
    if (A.cols() > 0) G.bottomRows(A.cols()).noalias() = inv_n * (A.transpose() * R);
    return G;
  }
  /// out (+)= [X A] W.
  void mul(const Eigen::MatrixXd& W, DenseMatrix& out, bool accumulate) const {
    if (!accumulate) out.setZero(rows(), W.cols());
    if (X) out.noalias() += (*X) * W.topRows(p());
    if (A.cols() > 0) out.noalias() += A * W.bottomRows(A.cols());
  }
};

/// Cholesky factor of M = L (S + r I) + lambda I, S = (1/n) X^T X, r = rel_ridge * mean diag(S)
/// (a tiny ridge for numerical safety), built once and reused by every update. M majorizes
/// the Hessian of the lambda-regularized loss when the link is L-Lipschitz (Theorem 1).
class GramFactor {
 public:
  GramFactor() = default;
  GramFactor(Eigen::MatrixXd S, double lambda, double rel_ridge, double L = 1.0) {
    factor(std::move(S), lambda, rel_ridge, L);
  }
  void factor(Eigen::MatrixXd S, double lambda, double rel_ridge, double L = 1.0) {
    const double mean_diag = S.rows() > 0 ? S.diagonal().mean() : 0.0;
    ridge_ = rel_ridge * std::max(mean_diag, 1e-300);
    S *= L;
    S.diagonal().array() += L * ridge_ + lambda;
    llt_.compute(S);
    if (llt_.info() != Eigen::Success)
      throw std::runtime_error("least squares: Cholesky of Sigma failed (increase rel_ridge or lambda)");
  }
  /// M^{-1} B.
  Eigen::MatrixXd solve(const Eigen::MatrixXd& B) const { return llt_.solve(B); }
  /// L^{-1} B with M = L L^T (so B^T M^{-1} B = V^T V for V = L^{-1} B).
  Eigen::MatrixXd half_solve(const Eigen::MatrixXd& B) const { return llt_.matrixL().solve(B); }
  double ridge() const { return ridge_; }

 private:
  Eigen::LLT<Eigen::MatrixXd> llt_;
  double ridge_ = 0;
};

/// Stratified assignment of n rows to `folds` folds: rows are shuffled (seeded), grouped by
/// label, and dealt round-robin, so every fold holds ~1/folds of every class.
inline std::vector<int> stratified_folds(const std::vector<int>& y, int folds, std::uint64_t seed) {
  std::vector<std::size_t> order(y.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  SplitMix64 rng(seed);
  shuffle(order, rng);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  std::vector<int> fold(y.size());
  for (std::size_t r = 0; r < order.size(); ++r) fold[order[r]] = static_cast<int>(r % static_cast<std::size_t>(folds));
  return fold;
}

/// Out-of-fold residuals of the ridge fit M W = (1/n) D^T R (M from GramFactor with L = 1) for
/// every fold at once, without refitting. For fold f with rows D_f, the fit W_{-f} on the rows
/// outside f with the same regularizer satisfies the leave-fold-out identity
///     R_f - D_f W_{-f} = (I - H_ff)^{-1} (R_f - D_f W),   H_ff = (1/n) D_f M^{-1} D_f^T,
/// so one factorization of each n_f x n_f matrix I - H_ff, computed once for a fixed design,
/// turns the in-sample residuals of any right-hand side into out-of-fold ones. Building costs
/// one triangular solve with D_f^T per fold (p^2 n in all, like forming the Gram matrix).
class FoldOutResiduals {
 public:
  FoldOutResiduals(const SplitDesign& D, const GramFactor& M, const std::vector<int>& fold, int folds)
      : rows_(static_cast<std::size_t>(folds)) {
    for (std::size_t i = 0; i < fold.size(); ++i) rows_[static_cast<std::size_t>(fold[i])].push_back(static_cast<Eigen::Index>(i));
    const double inv_n = 1.0 / std::max<double>(1, D.rows());
    const Eigen::Index p = D.p(), m = D.A.cols();
    for (const auto& rows : rows_) {
      const Eigen::Index nf = static_cast<Eigen::Index>(rows.size());
      Eigen::MatrixXd Dt(p + m, nf);  // D_f^T
      for (Eigen::Index r = 0; r < nf; ++r) {
        if (D.X) Dt.col(r).head(p) = D.X->row(rows[static_cast<std::size_t>(r)]).transpose();
        if (m > 0) Dt.col(r).tail(m) = D.A.row(rows[static_cast<std::size_t>(r)]).transpose();
      }
      const Eigen::MatrixXd V = M.half_solve(Dt);
      Eigen::MatrixXd I_H = Eigen::MatrixXd::Identity(nf, nf);
      I_H.noalias() -= inv_n * (V.transpose() * V);
      lu_.emplace_back(I_H);
    }
  }
  /// Out-of-fold residuals from the in-sample residuals E = R - D W (n x K).
  DenseMatrix out_of_fold(const DenseMatrix& E) const {
    DenseMatrix out(E.rows(), E.cols());
    for (std::size_t f = 0; f < rows_.size(); ++f) {
      const auto& rows = rows_[f];
      Eigen::MatrixXd Ef(static_cast<Eigen::Index>(rows.size()), E.cols());
      for (std::size_t r = 0; r < rows.size(); ++r) Ef.row(static_cast<Eigen::Index>(r)) = E.row(rows[r]);
      const Eigen::MatrixXd O = lu_[f].solve(Ef);
      for (std::size_t r = 0; r < rows.size(); ++r) out.row(rows[r]) = O.row(static_cast<Eigen::Index>(r));
    }
    return out;
  }

 private:
  std::vector<std::vector<Eigen::Index>> rows_;
  std::vector<Eigen::PartialPivLU<Eigen::MatrixXd>> lu_;
};

/// Row-wise softmax in place (max-shifted).
inline void softmax_rows(DenseMatrix& F) {
  for (Eigen::Index i = 0; i < F.rows(); ++i) {
    auto r = F.row(i);
    const double m = r.maxCoeff();
    r = (r.array() - m).exp();
    r /= r.sum();
  }
}

/// Multiclass logistic loss (1/n) sum_i [log sum_k exp(F_ik) - F_{i,y_i}].
inline double logistic_loss(const DenseMatrix& F, const std::vector<int>& y) {
  double s = 0;
  for (Eigen::Index i = 0; i < F.rows(); ++i) {
    const double m = F.row(i).maxCoeff();
    s += m + std::log((F.row(i).array() - m).exp().sum()) - F(i, y[static_cast<std::size_t>(i)]);
  }
  return s / std::max<double>(1, F.rows());
}

/// Square loss (1/(2n)) ||P - Y||_F^2.
inline double square_loss(const DenseMatrix& P, const DenseMatrix& Y) {
  return 0.5 * (P - Y).squaredNorm() / std::max<double>(1, P.rows());
}

/// Euclidean projection of v onto the probability simplex {p >= 0, sum p = 1}, sort-based,
/// O(K log K) (Duchi, Shalev-Shwartz, Singer & Chandra, ICML 2008, Fig. 1).
template <class Row>
inline void project_simplex(Row&& v, std::vector<double>& buf) {
  const Eigen::Index K = v.size();
  buf.resize(static_cast<std::size_t>(K));
  for (Eigen::Index k = 0; k < K; ++k) buf[static_cast<std::size_t>(k)] = v[k];
  std::sort(buf.begin(), buf.end(), std::greater<double>());
  double cum = 0, theta = 0;
  for (Eigen::Index k = 0; k < K; ++k) {
    cum += buf[static_cast<std::size_t>(k)];
    const double t = (cum - 1.0) / static_cast<double>(k + 1);
    if (buf[static_cast<std::size_t>(k)] - t > 0) theta = t;
  }
  for (Eigen::Index k = 0; k < K; ++k) v[k] = std::max(0.0, v[k] - theta);
}
inline void project_rows_simplex(DenseMatrix& P) {
  std::vector<double> buf;
  for (Eigen::Index i = 0; i < P.rows(); ++i) project_simplex(P.row(i), buf);
}

/// The calibration basis G(Ytilde) of Algorithm 2: element-wise powers of the predictions,
/// [Ytilde^p1, Ytilde^p2, ..., 1] (n x (|powers| K + 1)).
inline DenseMatrix calibration_basis(const DenseMatrix& Yt, const std::vector<int>& powers) {
  const Eigen::Index n = Yt.rows(), K = Yt.cols();
  DenseMatrix G(n, static_cast<Eigen::Index>(powers.size()) * K + 1);
  for (std::size_t q = 0; q < powers.size(); ++q)
    G.middleCols(static_cast<Eigen::Index>(q) * K, K) = Yt.array().pow(powers[q]).matrix();
  G.col(G.cols() - 1).setOnes();
  return G;
}

/// Least-squares fit of T on the columns of A: (A^T A / n + r I)^{-1} A^T T / n.
inline Eigen::MatrixXd ls_fit(const DenseMatrix& A, const DenseMatrix& T, double rel_ridge) {
  SplitDesign D;
  D.A = A;
  GramFactor f(D.gram(), 0.0, rel_ridge);
  return f.solve(D.xt(T));
}

}  // namespace dualgap::lsr
