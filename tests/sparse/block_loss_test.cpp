// Block-loss oracles: values against the paper's formulas written out by brute force, partial
// gradients and curvatures against finite differences, the margin bookkeeping against
// recomputation, Lipschitz constants against observed gradient changes, weak duality.
#include <cmath>

#include "sparse_support.hpp"

using namespace dualgap;
using sparse_test::make_examples;

namespace {

const char* kLosses[] = {"multiclass_sq_hinge", "multitask_sq_hinge", "multiclass_logistic"};

// Eq. (2), (11), (12) of Blondel et al. 2013, from a dense copy, one example at a time.
double brute_loss(const std::string& loss, const Examples& ex, const DenseMatrix& W) {
  const DenseMatrix X = ex.X.to_dense();
  const int K = ex.num_classes;
  const double n = static_cast<double>(ex.y.size());
  double total = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const int y = ex.y[i];
    Eigen::VectorXd s = (X.row(i) * W).transpose();
    if (loss == "multiclass_sq_hinge") {
      for (int r = 0; r < K; ++r)
        if (r != y) total += std::pow(std::max(1 - (s[y] - s[r]), 0.0), 2);
    } else if (loss == "multitask_sq_hinge") {
      for (int r = 0; r < K; ++r) total += std::pow(std::max(1 - (r == y ? 1 : -1) * s[r], 0.0), 2);
    } else {
      double z = 1;
      for (int r = 0; r < K; ++r)
        if (r != y) z += std::exp(s[r] - s[y]);
      total += std::log(z);
    }
  }
  return total / n;
}

DenseMatrix random_W(Eigen::Index d, int K, unsigned seed, double scale = 0.5) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0, scale);
  DenseMatrix W(d, K);
  for (Eigen::Index j = 0; j < d; ++j)
    for (int r = 0; r < K; ++r) W(j, r) = g(rng);
  return W;
}

}  // namespace

TEST_CASE("block-loss oracles: value, gradient, curvature, updates") {
  // K = 4 and K = 11: the vectorized kernels' main loop and remainder (AVX2: 4 lanes).
  for (int variant = 0; variant < 3; ++variant) {
    const bool dense = variant == 1;
    const int Kc = variant == 2 ? 11 : 4;
    const Examples ex = make_examples(30, 8, Kc, 0.5, 11, dense);
    for (const char* name : kLosses) {
      CAPTURE(name);
      CAPTURE(dense);
      CAPTURE(Kc);
      auto o = test::make<BlockLossOracle>(Kind::oracle, name);
      REQUIRE(o->interfaces() == std::vector<std::string>{"block_loss"});
      o->bind(ex);
      const Eigen::Index d = o->num_features();
      const int K = o->num_classes();
      CHECK(o->value() == doctest::Approx(brute_loss(name, ex, DenseMatrix::Zero(d, K))));
      for (unsigned trial = 0; trial < 3; ++trial) {
        DenseMatrix W = random_W(d, K, 100 + trial);
        const double L = o->set_point(W);
        CHECK(L == doctest::Approx(brute_loss(name, ex, W)).epsilon(1e-12));
        CHECK(o->value() == doctest::Approx(L).epsilon(1e-12));
        DenseMatrix G;
        o->gradient(G);
        // Finite differences of the value (central, step 1e-6).
        const double eps = 1e-6;
        for (Eigen::Index j = 0; j < d; ++j) {
          std::vector<double> Gj(K), hj(K);
          o->set_point(W);
          o->block_gradient(j, Gj.data(), hj.data());
          for (int r = 0; r < K; ++r) {
            CHECK(Gj[r] == doctest::Approx(G(j, r)).epsilon(1e-10).scale(1e-12));
            DenseMatrix Wp = W, Wm = W;
            Wp(j, r) += eps;
            Wm(j, r) -= eps;
            const double fd = (brute_loss(name, ex, Wp) - brute_loss(name, ex, Wm)) / (2 * eps);
            CHECK(G(j, r) == doctest::Approx(fd).epsilon(1e-5).scale(1e-8));
            // Curvature: finite difference of the partial gradient along e_jr.
            DenseMatrix Gp, Gm;
            o->set_point(Wp);
            o->gradient(Gp);
            o->set_point(Wm);
            o->gradient(Gm);
            const double fd2 = (Gp(j, r) - Gm(j, r)) / (2 * eps);
            CHECK(hj[r] == doctest::Approx(fd2).epsilon(1e-4).scale(1e-7));
            // The block constant bounds the curvature.
            CHECK(o->block_lipschitz(j) >= hj[r] - 1e-12);
          }
        }
        // Incremental margin update = recomputation.
        o->set_point(W);
        std::vector<double> delta(K);
        std::mt19937 rng(trial);
        std::normal_distribution<double> g(0, 0.3);
        for (int r = 0; r < K; ++r) delta[r] = g(rng);
        const Eigen::Index j = trial % d;
        const double change = o->update_block(j, delta.data());
        DenseMatrix W2 = W;
        for (int r = 0; r < K; ++r) W2(j, r) += delta[r];
        const double L2 = brute_loss(name, ex, W2);
        CHECK(change == doctest::Approx(L2 - L).epsilon(1e-10).scale(1e-12));
        CHECK(o->value() == doctest::Approx(L2).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("block-loss oracles: per-example gradient against finite differences") {
  const Examples ex = make_examples(10, 5, 3, 0.6, 3);
  for (const char* name : kLosses) {
    CAPTURE(name);
    auto o = test::make<BlockLossOracle>(Kind::oracle, name);
    o->bind(ex);
    std::vector<double> s{0.3, -0.2, 0.9}, g(3), gp(3);
    for (Eigen::Index i = 0; i < 3; ++i) {
      const double l = o->example_gradient(i, s.data(), g.data());
      for (int r = 0; r < 3; ++r) {
        auto sp = s, sm = s;
        sp[r] += 1e-6;
        sm[r] -= 1e-6;
        const double fd = (o->example_gradient(i, sp.data(), gp.data()) -
                           o->example_gradient(i, sm.data(), gp.data())) / 2e-6;
        CHECK(g[r] == doctest::Approx(fd).epsilon(1e-6).scale(1e-8));
      }
      CHECK(l >= 0);
    }
  }
}

TEST_CASE("block-loss oracles: global Lipschitz constant bounds gradient changes") {
  const Examples ex = make_examples(40, 10, 5, 0.4, 5);
  for (const char* name : kLosses) {
    CAPTURE(name);
    auto o = test::make<BlockLossOracle>(Kind::oracle, name);
    o->bind(ex);
    const double Lg = o->global_lipschitz();
    for (unsigned t = 0; t < 10; ++t) {
      DenseMatrix A = random_W(10, 5, 10 + t, 2.0), B = random_W(10, 5, 50 + t, 2.0), GA, GB;
      o->set_point(A);
      o->gradient(GA);
      o->set_point(B);
      o->gradient(GB);
      CHECK((GA - GB).norm() <= Lg * (A - B).norm() * (1 + 1e-9));
    }
  }
}

TEST_CASE("block-loss oracles: scaled dual point is a lower bound of every primal value") {
  const Examples ex = make_examples(30, 8, 4, 0.5, 21);
  const double lambda = 0.05;
  for (const char* name : kLosses) {
    CAPTURE(name);
    auto o = test::make<BlockLossOracle>(Kind::oracle, name);
    o->bind(ex);
    for (unsigned t = 0; t < 5; ++t) {
      DenseMatrix W = random_W(8, 4, 200 + t), G;
      o->set_point(W);
      o->gradient(G);
      const double gmax = G.rowwise().norm().maxCoeff();
      const double theta_max = gmax > lambda ? lambda / gmax : 1.0;
      for (double frac : {0.0, 0.3, 1.0}) {
        o->set_point(W);
        const double D = o->dual_value(frac * theta_max);
        // Weak duality against many primal points.
        for (unsigned u = 0; u < 20; ++u) {
          DenseMatrix V = random_W(8, 4, 1000 + 20 * t + u, 0.1 * u);
          const double P = brute_loss(name, ex, V) + lambda * V.rowwise().norm().sum();
          CHECK(D <= P + 1e-12);
        }
      }
    }
  }
}

TEST_CASE("block-loss oracles: structured data is refused with a clear message") {
  Examples ex = make_examples(6, 3, 2, 1.0, 1);
  ex.unit_offset = {0, 3, 6};
  auto o = test::make<BlockLossOracle>(Kind::oracle, "multiclass_sq_hinge");
  CHECK_THROWS_WITH_AS(o->bind(ex), doctest::Contains("multiclass data"), std::invalid_argument);
}

// The constant-step BCD's K_j = 4(K-1)/n sum_i x_ij^2 (the paper's Appendix A, and the authors'
// lightning) against the exact block Lipschitz constant of the multiclass squared hinge, by brute
// force: the block Hessian is largest with every margin active, H_j = (2/n) sum_i x_ij^2
// sum_{r != y_i} (e_y - e_r)(e_y - e_r)^T, so lambda_max(H_j) is the best constant. K_j is
// 2(K-1)/K times it for a feature seen in one class and K-1 times it for one spread evenly over
// the classes (the bcd-fig2-4 README uses these two end points).
TEST_CASE("multiclass squared hinge: K_j against the exact block Lipschitz constant") {
  const int K = 5, per_class = 3, n = K * per_class;
  // Feature 0 only in class 0; feature 1 equal (1) on every example; feature 2 generated.
  Examples ex;
  ex.num_classes = K;
  DenseMatrix X = DenseMatrix::Zero(n, 3);
  std::mt19937 rng(3);
  std::normal_distribution<double> g(0, 1);
  for (int i = 0; i < n; ++i) {
    ex.y.push_back(i / per_class);
    if (i / per_class == 0) X(i, 0) = 0.5 + i;
    X(i, 1) = 1.0;
    X(i, 2) = g(rng);
  }
  SparseMatrix S = X.sparseView();
  S.makeCompressed();
  ex.X = FeatureMatrix(std::move(S));
  auto o = test::make<BlockLossOracle>(Kind::oracle, "multiclass_sq_hinge");
  o->bind(ex);
  std::vector<double> exact(3);
  for (Eigen::Index j = 0; j < 3; ++j) {
    CAPTURE(j);
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(K, K);
    for (int i = 0; i < n; ++i)
      for (int r = 0; r < K; ++r) {
        if (r == ex.y[i]) continue;
        Eigen::VectorXd e = Eigen::VectorXd::Zero(K);
        e[ex.y[i]] = 1;
        e[r] = -1;
        H += (2.0 / n) * X(i, j) * X(i, j) * e * e.transpose();
      }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(H);
    exact[j] = es.eigenvalues().maxCoeff();
    const double Kj = o->block_lipschitz(j);
    CHECK(Kj == doctest::Approx(4.0 * (K - 1) / n * X.col(j).squaredNorm()).epsilon(1e-14));
    CHECK(Kj >= exact[j] * (1 - 1e-12));
    CHECK(Kj <= (K - 1) * exact[j] * (1 + 1e-12));
    // The exact constant is attained: at W = 0 every margin is 1, and a small step along the top
    // eigenvector keeps them all active, so the block gradient moves by exactly lambda_max.
    Eigen::VectorXd v = es.eigenvectors().col(K - 1) * 1e-3;
    std::vector<double> G0(K), G1(K), h(K);
    o->set_point(DenseMatrix::Zero(3, K));
    o->block_gradient(j, G0.data(), h.data());
    o->update_block(j, v.data());
    o->block_gradient(j, G1.data(), h.data());
    double dg = 0;
    for (int r = 0; r < K; ++r) dg += (G1[r] - G0[r]) * (G1[r] - G0[r]);
    CHECK(std::sqrt(dg) == doctest::Approx(exact[j] * v.norm()).epsilon(1e-9));
    // No point moves the block gradient by more than lambda_max (random W and block steps).
    for (unsigned t = 0; t < 20; ++t) {
      DenseMatrix W = random_W(3, K, 300 + t, 1.0);
      std::vector<double> delta(K);
      for (int r = 0; r < K; ++r) delta[r] = g(rng);
      o->set_point(W);
      o->block_gradient(j, G0.data(), h.data());
      o->update_block(j, delta.data());
      o->block_gradient(j, G1.data(), h.data());
      double dd = 0, dn = 0;
      for (int r = 0; r < K; ++r) {
        dd += (G1[r] - G0[r]) * (G1[r] - G0[r]);
        dn += delta[r] * delta[r];
      }
      CHECK(std::sqrt(dd) <= exact[j] * std::sqrt(dn) * (1 + 1e-9));
    }
  }
  // The two end points of K_j / lambda_max: one class (a star Laplacian, lambda_max = K against
  // the bound 2(K-1)) and every class alike (a complete graph's Laplacian, K-1 times smaller).
  CHECK(o->block_lipschitz(0) / exact[0] == doctest::Approx(2.0 * (K - 1) / K).epsilon(1e-12));
  CHECK(o->block_lipschitz(1) / exact[1] == doctest::Approx(K - 1.0).epsilon(1e-12));
}
