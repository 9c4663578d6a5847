// Synthetic multi-class data: K Gaussian clusters in R^d. Class means mu_k = separation * u_k
// with u_k a uniformly random unit vector; x = mu_y + noise * N(0, I_d). Labels are balanced
// (n/K per class, the remainder to the first classes) in random order. With sparse: true each
// coordinate of x is kept with probability `density` (at least one per example) and the matrix
// is CSR. Deterministic: everything is drawn from one SplitMix64 stream seeded by the repeat's
// data seed (DatasetContext::seed) and seed_offset, identical on every platform.
#include <algorithm>
#include <cmath>

#include "dualgap/dataset.hpp"
#include "dualgap/random.hpp"
#include "dualgap/plugin.hpp"

namespace {

using namespace dualgap;

class SyntheticMulticlass final : public DatasetPlugin {
 public:
  explicit SyntheticMulticlass(const Params& p)
      : seed_offset_(p.get_or<std::int64_t>("seed_offset", 0)),  // the core data option, shared with the splits
        n_(p.get<std::int64_t>("n")),
        n_test_(p.get<std::int64_t>("n_test")),
        d_(p.get<std::int64_t>("d")),
        K_(p.get<std::int64_t>("K")),
        separation_(p.get<double>("separation")),
        noise_(p.get<double>("noise")),
        sparse_(p.get<bool>("sparse")),
        density_(p.get<double>("density")) {}

  Data load(const DatasetContext& ctx) override {
    SplitMix64 rng(derive_seed(ctx.seed, "synthetic_multiclass", static_cast<std::uint64_t>(seed_offset_)));
    const auto d = static_cast<Eigen::Index>(d_);
    DenseMatrix mu(K_, d);
    for (Eigen::Index k = 0; k < K_; ++k) {
      double norm2 = 0;
      do {
        for (Eigen::Index j = 0; j < d; ++j) mu(k, j) = rng.normal();
        norm2 = mu.row(k).squaredNorm();
      } while (norm2 == 0.0);
      mu.row(k) *= separation_ / std::sqrt(norm2);
    }
    Data data;
    data.name = "synthetic_multiclass";
    data.train = draw(n_, mu, rng);
    if (n_test_ > 0) data.test = draw(n_test_, mu, rng);
    data.source = json{{"plugin", "synthetic_multiclass"}, {"n", n_}, {"n_test", n_test_}, {"d", d_}, {"K", K_},
                       {"separation", separation_}, {"noise", noise_}, {"sparse", sparse_}, {"density", density_},
                       {"seed", ctx.seed}};
    return data;
  }

 private:
  Examples draw(std::int64_t n, const DenseMatrix& mu, SplitMix64& rng) const {
    Examples ex;
    ex.num_classes = static_cast<int>(K_);
    ex.y.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) ex.y[static_cast<std::size_t>(i)] = static_cast<int>(i % K_);
    shuffle(ex.y, rng);
    const Eigen::Index d = mu.cols();
    if (!sparse_) {
      DenseMatrix X(n, d);
      for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < d; ++j) X(i, j) = mu(ex.y[static_cast<std::size_t>(i)], j) + noise_ * rng.normal();
      ex.X = FeatureMatrix(std::move(X));
      return ex;
    }
    std::vector<Eigen::Triplet<double, int>> t;
    for (Eigen::Index i = 0; i < n; ++i) {
      const int y = ex.y[static_cast<std::size_t>(i)];
      bool any = false;
      for (Eigen::Index j = 0; j < d; ++j) {
        if (rng.uniform() >= density_) continue;
        t.emplace_back(static_cast<int>(i), static_cast<int>(j), mu(y, j) + noise_ * rng.normal());
        any = true;
      }
      if (!any) {
        const auto j = static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(d)));
        t.emplace_back(static_cast<int>(i), static_cast<int>(j), mu(y, j) + noise_ * rng.normal());
      }
    }
    SparseMatrix S(n, d);
    S.setFromTriplets(t.begin(), t.end());
    S.makeCompressed();
    ex.X = FeatureMatrix(std::move(S));
    return ex;
  }

  std::int64_t seed_offset_;
  std::int64_t n_, n_test_, d_, K_;
  double separation_, noise_;
  bool sparse_;
  double density_;
};

PluginDescription describe() {
  std::vector<ParamSpec> ps{
      int_param("n", 200, "training examples", 1.0),
      int_param("n_test", 100, "test examples (0 = none; then test_fraction may split train)", 0.0),
      int_param("d", 20, "features", 1.0),
      int_param("K", 4, "classes", 2.0),
      real_param("separation", 3.0, "distance of each class mean from the origin", 0.0),
      real_param("noise", 1.0, "standard deviation of the isotropic Gaussian noise", 0.0),
      bool_param("sparse", false, "sparse CSR features: each coordinate kept with probability density"),
      real_param("density", 0.1, "fraction of nonzero coordinates when sparse", 0.0, 1.0),
  };
  return describe_plugin<SyntheticMulticlass>(Kind::dataset, "synthetic_multiclass", "1.0.0",
                                              "Gaussian class clusters for tests and the quickstart (deterministic in the seed)",
                                              std::move(ps));
}

}  // namespace

DUALGAP_PLUGIN(describe)
