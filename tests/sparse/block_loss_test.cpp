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
