// Shared helpers of the least-squares-revisited feature generators (standardize, pca,
// random_fourier, random_subset, random_logits, random_polynomial, gradient_ordered).
// Header-only (target dualgap_lib_features): each plugin library compiles its own copy.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dualgap/data.hpp"
#include "dualgap/features.hpp"
#include "dualgap/random.hpp"

namespace dualgap::lsr {

/// Block b of a generator is a deterministic function of (seed, name, b) and nothing else: the
/// core's generator seeded by the core's seed derivation (dualgap/random.hpp).
inline SplitMix64 stream(std::uint64_t seed, std::string_view name, std::uint64_t index) {
  return SplitMix64(derive_seed(seed, name, index));
}

/// Column means of X (dense or sparse).
inline Vector column_means(const FeatureMatrix& X) {
  Vector mean = Vector::Zero(X.cols());
  if (X.rows() == 0) return mean;
  if (X.is_sparse()) {
    const SparseMatrix& S = X.sparse();
    for (Eigen::Index r = 0; r < S.outerSize(); ++r)
      for (SparseMatrix::InnerIterator it(S, r); it; ++it) mean[it.col()] += it.value();
  } else {
    mean = X.dense().colwise().sum().transpose();
  }
  return mean / static_cast<double>(X.rows());
}

/// Dense copy of X, refusing sizes that would not fit a reasonable memory budget.
inline DenseMatrix dense_copy(const FeatureMatrix& X, const char* who, double max_bytes = 2e9) {
  const double bytes = 8.0 * static_cast<double>(X.rows()) * static_cast<double>(X.cols());
  if (bytes > max_bytes)
    throw std::runtime_error(std::string(who) + ": densifying a " + std::to_string(X.rows()) + " x " +
                             std::to_string(X.cols()) + " matrix needs " +
                             std::to_string(static_cast<long long>(bytes / 1e6)) +
                             " MB; use random_subset or gradient_ordered blocks for sparse data");
  return X.to_dense();
}

/// Principal components: centred projection onto the top-k eigenvectors of the covariance.
struct PcaModel {
  Vector mean;       // d
  DenseMatrix V;     // d x k, columns = components, by decreasing variance
  Vector variance;   // k eigenvalues of the covariance

  void fit(const FeatureMatrix& X, int k, const char* who) {
    const Eigen::Index d = X.cols();
    if (k <= 0 || k > d)
      throw std::runtime_error(std::string(who) + ": k = " + std::to_string(k) +
                               " must be in 1.." + std::to_string(d));
    if (d > 20000)
      throw std::runtime_error(std::string(who) + ": PCA of " + std::to_string(d) +
                               " features needs a d x d covariance; reduce d first");
    mean = column_means(X);
    DenseMatrix Xc = dense_copy(X, who);
    Xc.rowwise() -= mean.transpose();
    Eigen::MatrixXd C = Eigen::MatrixXd::Zero(d, d);
    C.selfadjointView<Eigen::Lower>().rankUpdate(Xc.transpose(), 1.0 / std::max<double>(1, X.rows()));
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(C.selfadjointView<Eigen::Lower>());
    // Eigen sorts eigenvalues increasingly; take the last k, reversed.
    V.resize(d, k);
    variance.resize(k);
    for (int j = 0; j < k; ++j) {
      V.col(j) = es.eigenvectors().col(d - 1 - j);
      variance[j] = std::max(0.0, es.eigenvalues()[d - 1 - j]);
      // Sign convention: largest-magnitude loading positive (deterministic output).
      Eigen::Index arg;
      V.col(j).cwiseAbs().maxCoeff(&arg);
      if (V(arg, j) < 0) V.col(j) = -V.col(j);
    }
  }
  DenseMatrix apply(const FeatureMatrix& X) const {
    DenseMatrix out;
    if (X.is_sparse()) {
      out = X.sparse() * V;
    } else {
      out.noalias() = X.dense() * V;
    }
    out.rowwise() -= (V.transpose() * mean).transpose();
    return out;
  }
};

/// Median pairwise Euclidean distance over a seeded sample of at most `sample` rows (the
/// "median trick" of the paper's appendix A.2.1 for the kernel bandwidth).
inline double median_pairwise_distance(const DenseMatrix& Z, int sample, std::uint64_t seed) {
  const Eigen::Index n = Z.rows();
  if (n < 2) return 1.0;
  std::vector<Eigen::Index> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  auto rng = stream(seed, "median", 0);
  shuffle(idx, rng);
  const Eigen::Index m = std::min<Eigen::Index>(n, std::max(2, sample));
  std::vector<double> dist;
  dist.reserve(static_cast<std::size_t>(m * (m - 1) / 2));
  for (Eigen::Index a = 0; a < m; ++a)
    for (Eigen::Index b = a + 1; b < m; ++b)
      dist.push_back((Z.row(idx[a]) - Z.row(idx[b])).norm());
  auto mid = dist.begin() + static_cast<std::ptrdiff_t>(dist.size() / 2);
  std::nth_element(dist.begin(), mid, dist.end());
  return *mid > 0 ? *mid : 1.0;
}

/// Selects columns `cols` of X (in that order) as a matrix of the same storage kind.
inline FeatureMatrix select_columns(const FeatureMatrix& X, const std::vector<Eigen::Index>& cols) {
  const Eigen::Index p = static_cast<Eigen::Index>(cols.size());
  if (!X.is_sparse()) {
    const DenseMatrix& D = X.dense();
    DenseMatrix out(D.rows(), p);
    for (Eigen::Index r = 0; r < D.rows(); ++r)
      for (Eigen::Index j = 0; j < p; ++j) out(r, j) = D(r, cols[j]);
    return FeatureMatrix(std::move(out));
  }
  // CSR: map old column -> new columns (a column drawn twice, with replacement, maps twice).
  const SparseMatrix& S = X.sparse();
  std::vector<std::vector<int>> map(static_cast<std::size_t>(S.cols()));
  for (Eigen::Index j = 0; j < p; ++j) map[static_cast<std::size_t>(cols[j])].push_back(static_cast<int>(j));
  std::vector<Eigen::Triplet<double>> t;
  for (Eigen::Index r = 0; r < S.outerSize(); ++r)
    for (SparseMatrix::InnerIterator it(S, r); it; ++it)
      for (int j : map[static_cast<std::size_t>(it.col())]) t.emplace_back(static_cast<int>(r), j, it.value());
  SparseMatrix out(S.rows(), p);
  out.setFromTriplets(t.begin(), t.end());
  return FeatureMatrix(std::move(out));
}

/// Base of the random-projection generators (Fourier, logits, polynomial): optional PCA first,
/// then a bandwidth from the median pairwise distance, then block b of p features drawn from
/// the stream (seed, b). transform() is block 0 of `num_features` features.
class RandomProjectionGenerator : public FeatureGenerator {
 public:
  RandomProjectionGenerator(int num_features, int pca_dims, double bandwidth, double bandwidth_scale,
                            int median_sample, std::string_view tag)
      : num_features_(num_features), pca_dims_(pca_dims), bandwidth_(bandwidth),
        bandwidth_scale_(bandwidth_scale), median_sample_(median_sample), tag_(tag) {}

  void fit(const Examples& train, std::uint64_t seed) override {
    seed_ = seed;
    DenseMatrix Z;
    if (pca_dims_ > 0 && pca_dims_ < train.X.cols()) {
      pca_.fit(train.X, pca_dims_, "random features");
      use_pca_ = true;
      Z = pca_.apply(train.X);
    } else {
      use_pca_ = false;
      Z = dense_copy(train.X, "random features");
    }
    mean_ = Z.colwise().mean().transpose();
    input_dims_ = Z.cols();
    sigma_ = bandwidth_ > 0 ? bandwidth_ : median_pairwise_distance(Z, median_sample_, seed) * bandwidth_scale_;
    fitted_ = true;
  }
  FeatureMatrix transform(const FeatureMatrix& X) const override {
    return block(0, static_cast<std::size_t>(num_features_), X);
  }
  bool supports_blocks() const override { return true; }
  FeatureMatrix block(std::size_t b, std::size_t p, const FeatureMatrix& X) const override {
    if (!fitted_) throw std::logic_error("feature generator used before fit()");
    DenseMatrix Z = use_pca_ ? pca_.apply(X) : dense_copy(X, "random features");
    if (Z.cols() != input_dims_)
      throw std::runtime_error("random features: fitted on " + std::to_string(input_dims_) +
                               " input dimensions, got " + std::to_string(Z.cols()));
    auto rng = stream(seed_, tag_, b);
    DenseMatrix out = project_and_map(Z, static_cast<Eigen::Index>(p), rng);
    return FeatureMatrix(std::move(out));
  }
  double bandwidth() const { return sigma_; }

 protected:
  /// Draws the block's random parameters from `rng` and returns the n x p features of Z.
  virtual DenseMatrix project_and_map(const DenseMatrix& Z, Eigen::Index p, SplitMix64& rng) const = 0;

  /// Gaussian matrix (input_dims x p) with entries N(0, scale^2), drawn column by column.
  DenseMatrix gaussian(Eigen::Index rows, Eigen::Index p, double scale, SplitMix64& rng) const {
    DenseMatrix W(rows, p);
    for (Eigen::Index j = 0; j < p; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) W(i, j) = scale * rng.normal();
    return W;
  }

  int num_features_;
  int pca_dims_;
  double bandwidth_;
  double bandwidth_scale_;
  int median_sample_;
  std::string_view tag_;  // a string literal of the plugin
  std::uint64_t seed_ = 0;
  bool fitted_ = false;
  bool use_pca_ = false;
  PcaModel pca_;
  Vector mean_;
  Eigen::Index input_dims_ = 0;
  double sigma_ = 1.0;
};

}  // namespace dualgap::lsr
