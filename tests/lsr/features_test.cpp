// Feature generators of the least-squares-revisited family: fitted on train only, seeded,
// applied identically to train and test rows; PCA against Eigen's SVD; random Fourier
// features against the exact Gaussian kernel; blocks of raw features cover every column.
#include <set>

#include "lsr_support.hpp"

using namespace dualgap;
using namespace lsr_test;

namespace {

/// Rows [from, to) of a feature matrix.
FeatureMatrix rows_of(const FeatureMatrix& X, std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> r;
  for (auto i = from; i < to; ++i) r.push_back(i);
  return X.select_rows(r);
}

double max_abs_diff(const FeatureMatrix& a, const FeatureMatrix& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return (a.to_dense() - b.to_dense()).cwiseAbs().maxCoeff();
}

/// Transforming a subset of rows gives the same rows as transforming all of them (train and
/// test rows get identical treatment) and the same seed gives the same features.
void check_rowwise_and_deterministic(const std::string& name, const json& params, bool blocks) {
  CAPTURE(name);
  Examples train = blobs(120, 12, 3, 2.0, 1);
  Examples test = blobs(40, 12, 3, 2.0, 2);
  auto g1 = features(name, params);
  auto g2 = features(name, params);
  g1->fit(train, 99);
  g2->fit(train, 99);
  FeatureMatrix all = g1->transform(test.X);
  CHECK(max_abs_diff(all, g2->transform(test.X)) == 0.0);
  CHECK(max_abs_diff(rows_of(all, 10, 30), g1->transform(rows_of(test.X, 10, 30))) < 1e-12);
  REQUIRE(g1->supports_blocks() == blocks);
  if (blocks) {
    FeatureMatrix b3 = g1->block(3, 7, test.X);
    CHECK(b3.cols() <= 7);
    CHECK(max_abs_diff(b3, g2->block(3, 7, test.X)) == 0.0);
    CHECK(max_abs_diff(rows_of(b3, 5, 25), g1->block(3, 7, rows_of(test.X, 5, 25))) < 1e-12);
    // Different blocks are different features (blocks 2 and 4 have 7 columns for every
    // generator: random_subset of d = 12 has 2 blocks per pass, 7 + 5 columns).
    CHECK(max_abs_diff(g1->block(2, 7, test.X), g1->block(4, 7, test.X)) > 1e-6);
    // Another seed, other draws (random generators only).
    if (name != "gradient_ordered") {
      auto g3 = features(name, params);
      g3->fit(train, 100);
      CHECK(max_abs_diff(b3, g3->block(3, 7, test.X)) > 1e-6);
    }
  }
}

}  // namespace

TEST_CASE("lsr features: deterministic for a seed and applied row by row") {
  check_rowwise_and_deterministic("standardize", json::object(), false);
  check_rowwise_and_deterministic("pca", {{"k", 5}}, false);
  check_rowwise_and_deterministic("random_fourier", {{"num_features", 50}}, true);
  check_rowwise_and_deterministic("random_fourier", {{"num_features", 50}, {"pca_dims", 4}}, true);
  check_rowwise_and_deterministic("random_logits", {{"num_features", 50}}, true);
  check_rowwise_and_deterministic("random_polynomial", {{"num_features", 50}, {"degree", 3}}, true);
  check_rowwise_and_deterministic("random_subset", {{"num_features", 5}}, true);
  check_rowwise_and_deterministic("random_subset", {{"num_features", 5}, {"replace", true}}, true);
}

TEST_CASE("lsr standardize: zero mean, unit variance on train; same map on test; sparse kept sparse") {
  Examples train = blobs(200, 6, 2, 3.0, 3);
  Examples test = blobs(50, 6, 2, 3.0, 4);
  auto g = features("standardize");
  g->fit(train, 0);
  DenseMatrix Z = g->transform(train.X).to_dense();
  for (Eigen::Index j = 0; j < Z.cols(); ++j) {
    CHECK(std::abs(Z.col(j).mean()) < 1e-12);
    CHECK(std::abs(Z.col(j).squaredNorm() / Z.rows() - 1.0) < 1e-10);
  }
  // The test map is the train map: recompute it by hand.
  const DenseMatrix& Xtr = train.X.dense();
  Eigen::RowVectorXd mean = Xtr.colwise().mean();
  Eigen::RowVectorXd sd = ((Xtr.rowwise() - mean).colwise().squaredNorm() / Xtr.rows()).cwiseSqrt();
  DenseMatrix expect = (test.X.dense().rowwise() - mean).array().rowwise() / sd.array();
  CHECK((g->transform(test.X).to_dense() - expect).cwiseAbs().maxCoeff() < 1e-12);

  Examples sp = sparse_docs(100, 40, 4, 5);
  auto gs = features("standardize");
  gs->fit(sp, 0);
  FeatureMatrix T = gs->transform(sp.X);
  CHECK(T.is_sparse());
  CHECK(T.nonzeros() == sp.X.nonzeros());
}

TEST_CASE("lsr pca: components and variances agree with Eigen's SVD of the centred data") {
  Examples train = blobs(150, 10, 4, 1.5, 6);
  const int k = 4;
  auto g = features("pca", {{"k", k}});
  g->fit(train, 0);
  DenseMatrix Z = g->transform(train.X).to_dense();
  REQUIRE(Z.cols() == k);

  Eigen::MatrixXd Xc = train.X.dense();
  Xc.rowwise() -= Xc.colwise().mean();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Xc, Eigen::ComputeThinU | Eigen::ComputeThinV);
  for (int j = 0; j < k; ++j) {
    // Score column j equals +-(U_j s_j): same up to sign.
    Eigen::VectorXd ref = svd.matrixU().col(j) * svd.singularValues()[j];
    const double plus = (Z.col(j) - ref).cwiseAbs().maxCoeff();
    const double minus = (Z.col(j) + ref).cwiseAbs().maxCoeff();
    CHECK(std::min(plus, minus) < 1e-8 * (1 + ref.cwiseAbs().maxCoeff()));
  }
  // Whitened components have unit variance.
  auto w = features("pca", {{"k", k}, {"whiten", true}});
  w->fit(train, 0);
  DenseMatrix Zw = w->transform(train.X).to_dense();
  for (int j = 0; j < k; ++j) CHECK(std::abs(Zw.col(j).squaredNorm() / Zw.rows() - 1.0) < 1e-8);
}

TEST_CASE("lsr random_fourier: z(x).z(x') approximates the Gaussian kernel, error shrinks with p") {
  Examples train = blobs(200, 5, 2, 1.0, 8);
  const double s = 2.0;
  auto kernel_error = [&](int p) {
    auto g = features("random_fourier", {{"num_features", p}, {"bandwidth", s}});
    g->fit(train, 5);
    FeatureMatrix sub = rows_of(train.X, 0, 60);
    DenseMatrix Z = g->transform(sub).to_dense();
    DenseMatrix X = sub.to_dense();
    double err = 0;
    for (Eigen::Index a = 0; a < X.rows(); ++a)
      for (Eigen::Index b = 0; b < X.rows(); ++b) {
        const double k = std::exp(-(X.row(a) - X.row(b)).squaredNorm() / (2 * s * s));
        err = std::max(err, std::abs(Z.row(a).dot(Z.row(b)) - k));
      }
    return err;
  };
  const double e100 = kernel_error(100), e10000 = kernel_error(10000);
  MESSAGE("max kernel error: p=100 " << e100 << ", p=10000 " << e10000);
  CHECK(e10000 < 0.06);
  CHECK(e10000 < e100 / 3);  // Monte Carlo: ~ 1/sqrt(p) -> a factor 10 expected

  // Median trick: bandwidth = median pairwise distance of the (sampled) training rows.
  auto g = features("random_fourier", {{"num_features", 10}, {"median_sample", 200}});
  g->fit(train, 5);
  std::vector<double> dist;
  const DenseMatrix& X = train.X.dense();
  for (Eigen::Index a = 0; a < X.rows(); ++a)
    for (Eigen::Index b = a + 1; b < X.rows(); ++b) dist.push_back((X.row(a) - X.row(b)).norm());
  std::nth_element(dist.begin(), dist.begin() + dist.size() / 2, dist.end());
  // Row features of a constant input: kernel(x,x) = 1 -> ||z(x)||^2 ~ 1 whatever s; so check
  // the bandwidth through the kernel value of a pair at the median distance instead.
  auto gk = features("random_fourier", {{"num_features", 20000}, {"median_sample", 200}});
  gk->fit(train, 5);
  DenseMatrix Z = gk->transform(rows_of(train.X, 0, 40)).to_dense();
  DenseMatrix Xs = rows_of(train.X, 0, 40).to_dense();
  const double med = dist[dist.size() / 2];
  double worst = 0;
  for (int a = 0; a < 40; ++a)
    for (int b = 0; b < 40; ++b) {
      const double k = std::exp(-(Xs.row(a) - Xs.row(b)).squaredNorm() / (2 * med * med));
      worst = std::max(worst, std::abs(Z.row(a).dot(Z.row(b)) - k));
    }
  CHECK(worst < 0.06);
}

TEST_CASE("lsr random_subset: a pass of blocks without replacement covers every feature once") {
  Examples train = blobs(30, 23, 2, 1.0, 9);
  auto g = features("random_subset");
  g->fit(train, 3);
  std::multiset<long> seen;
  const DenseMatrix& X = train.X.dense();
  for (std::size_t b = 0; b < 5; ++b) {  // ceil(23 / 5) = 5 blocks per pass
    DenseMatrix B = g->block(b, 5, train.X).to_dense();
    CHECK(B.cols() == (b < 4 ? 5 : 3));
    for (Eigen::Index c = 0; c < B.cols(); ++c)
      for (Eigen::Index j = 0; j < X.cols(); ++j)
        if ((X.col(j) - B.col(c)).cwiseAbs().maxCoeff() == 0) seen.insert(j);
  }
  CHECK(seen.size() == 23);
  CHECK(std::set<long>(seen.begin(), seen.end()).size() == 23);
  // Sparse input stays sparse and matches the dense selection.
  Examples sp = sparse_docs(50, 30, 3, 4);
  auto gs = features("random_subset");
  gs->fit(sp, 3);
  FeatureMatrix Bs = gs->block(2, 7, sp.X);
  CHECK(Bs.is_sparse());
  Examples spd = sp;
  spd.X = FeatureMatrix(sp.X.to_dense());
  CHECK(max_abs_diff(Bs, gs->block(2, 7, spd.X)) == 0.0);
}

TEST_CASE("lsr gradient_ordered: blocks follow ||X_j^T R|| and drawn blocks keep their columns") {
  Examples sp = sparse_docs(200, 60, 5, 11);
  auto g = features("gradient_ordered", {{"reorder", "stage"}});
  g->fit(sp, 0);
  DenseMatrix X = sp.X.to_dense();
  // Before any residual: by decreasing column norm.
  {
    DenseMatrix B = g->block(0, 4, sp.X).to_dense();
    Eigen::VectorXd norms = X.colwise().squaredNorm().transpose();
    std::vector<double> top(norms.data(), norms.data() + norms.size());
    std::sort(top.rbegin(), top.rend());
    for (int c = 0; c < 4; ++c) CHECK(B.col(c).squaredNorm() == doctest::Approx(top[c]));
  }
  std::mt19937_64 rng(4);
  std::normal_distribution<double> N(0, 1);
  DenseMatrix R(200, 5);
  for (Eigen::Index i = 0; i < R.size(); ++i) R.data()[i] = N(rng);
  g->observe_residual(0, 4, R);
  DenseMatrix B0 = g->block(0, 4, sp.X).to_dense();
  Eigen::VectorXd score = (X.transpose() * R).rowwise().squaredNorm();
  std::vector<double> s(score.data(), score.data() + score.size());
  std::sort(s.rbegin(), s.rend());
  for (int c = 0; c < 4; ++c)
    CHECK((B0.col(c).transpose() * R).squaredNorm() == doctest::Approx(s[c]).epsilon(1e-9));
  // Reordering for block 1 must not change block 0 (test rows replay it later).
  DenseMatrix R2 = R.reverse();
  g->observe_residual(1, 4, R2);
  CHECK((g->block(0, 4, sp.X).to_dense() - B0).cwiseAbs().maxCoeff() == 0.0);
  DenseMatrix B1 = g->block(1, 4, sp.X).to_dense();
  // Block 1 holds the best features for R2 among those not in block 0.
  std::vector<double> rest;
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    bool in0 = false;
    for (int c = 0; c < 4; ++c) in0 |= (X.col(j) - B0.col(c)).cwiseAbs().maxCoeff() == 0;
    if (!in0) rest.push_back((X.col(j).transpose() * R2).squaredNorm());
  }
  std::sort(rest.rbegin(), rest.rend());
  for (int c = 0; c < 4; ++c)
    CHECK((B1.col(c).transpose() * R2).squaredNorm() == doctest::Approx(rest[c]).epsilon(1e-9));
}
