// Synthetic multi-class data: K Gaussian clusters in R^d. Class means mu_k = separation * u_k
// with u_k a uniformly random unit vector; x = mu_y + noise * N(0, I_d). Labels are balanced
// (n/K per class, the remainder to the first classes) in random order. With sparse: true each
// coordinate of x is kept with probability `density` (at least one per example) and the matrix
// is CSR. Deterministic: everything is drawn from one SplitMix64 stream seeded by the repeat's
// data seed and seed_offset (DatasetContext), identical on every platform.
#include <algorithm>
#include <cmath>

#include "dualgap/dataset.hpp"
#include "dualgap/random.hpp"
#include "dualgap/plugin.hpp"

namespace {

using namespace dualgap;

class SyntheticMulticlass final : public DatasetPlugin {
 public:
  struct Options {
    std::int64_t n = 200;
    std::int64_t n_test = 100;
    std::int64_t d = 20;
    std::int64_t K = 4;
    double separation = 3.0;
    double noise = 1.0;
    bool sparse = false;
    double density = 0.1;

    static void bind(Binder<Options>& b) {
      b.field(&Options::n, "n", "training examples").min(1);
      b.field(&Options::n_test, "n_test", "test examples (0 = none; then test_fraction may split train)").min(0);
      b.field(&Options::d, "d", "features").min(1);
      b.field(&Options::K, "K", "classes").min(2);
      b.field(&Options::separation, "separation", "distance of each class mean from the origin").min(0);
      b.field(&Options::noise, "noise", "standard deviation of the isotropic Gaussian noise").min(0);
      b.field(&Options::sparse, "sparse", "sparse CSR features: each coordinate kept with probability density");
      b.field(&Options::density, "density", "fraction of nonzero coordinates when sparse").range(0, 1);
    }
  };

  explicit SyntheticMulticlass(const Options& o)
      : n_(o.n), n_test_(o.n_test), d_(o.d), K_(o.K), separation_(o.separation), noise_(o.noise), sparse_(o.sparse),
        density_(o.density) {}

  Data load(const DatasetContext& ctx) override {
    SplitMix64 rng(derive_seed(ctx.seed, "synthetic_multiclass", ctx.seed_offset));
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

  std::int64_t n_, n_test_, d_, K_;
  double separation_, noise_;
  bool sparse_;
  double density_;
};

PluginDescription describe() {
  return describe_dataset<SyntheticMulticlass>(
      "synthetic_multiclass", "1.0.0", "Gaussian class clusters for tests and the quickstart (deterministic in the seed)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
