// Random subsets of raw features, the simplest generator (GEN) of Algorithm 3 of Agarwal et
// al., "Least Squares Revisited", ICML 2014: "sampling m of the original features (with or
// without replacement)". Without replacement, pass k of the blocks walks a fresh seeded
// permutation of the d features in chunks of p (the last chunk of a pass may be shorter);
// with replacement, block b is p uniform draws from the stream (seed, b). Keeps sparsity.
#include "dualgap/plugin.hpp"
#include "features/random_features.hpp"

namespace {

using namespace dualgap;

class RandomSubset final : public FeatureGenerator {
 public:
  struct Options {
    int num_features = 1000;
    bool replace = false;
    static void bind(Binder<Options>& b) {
      b.field(&Options::num_features, "num_features", "features kept by transform() (clipped to d)").min(1);
      b.field(&Options::replace, "replace", "draw with replacement (blocks independent) instead of permutation passes");
    }
  };
  explicit RandomSubset(const Options& o) : num_features_(o.num_features), replace_(o.replace) {}

  void fit(const Examples& train, std::uint64_t seed) override {
    d_ = train.X.cols();
    seed_ = seed;
    fitted_ = true;
  }
  FeatureMatrix transform(const FeatureMatrix& X) const override {
    return block(0, static_cast<std::size_t>(std::min<Eigen::Index>(num_features_, d_)), X);
  }
  bool supports_blocks() const override { return true; }
  FeatureMatrix block(std::size_t b, std::size_t p, const FeatureMatrix& X) const override {
    if (!fitted_) throw std::logic_error("random_subset: used before fit()");
    if (X.cols() != d_)
      throw std::runtime_error("random_subset: fitted on " + std::to_string(d_) + " features, got " +
                               std::to_string(X.cols()));
    return lsr::select_columns(X, columns(b, p));
  }
  /// Column indices of block b (exposed for tests through the same rule).
  std::vector<Eigen::Index> columns(std::size_t b, std::size_t p) const {
    std::vector<Eigen::Index> cols;
    if (replace_) {
      auto rng = lsr::stream(seed_, "subset", b);
      for (std::size_t j = 0; j < p; ++j) cols.push_back(static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(d_))));
      return cols;
    }
    const std::size_t d = static_cast<std::size_t>(d_);
    const std::size_t per_pass = (d + p - 1) / p;
    const std::size_t pass = b / per_pass, j = b % per_pass;
    std::vector<Eigen::Index> perm(d);
    std::iota(perm.begin(), perm.end(), 0);
    auto rng = lsr::stream(seed_, "permutation", pass);
    shuffle(perm, rng);
    for (std::size_t k = j * p; k < std::min(d, (j + 1) * p); ++k) cols.push_back(perm[k]);
    return cols;
  }

 private:
  int num_features_;
  bool replace_;
  bool fitted_ = false;
  Eigen::Index d_ = 0;
  std::uint64_t seed_ = 0;
};

PluginDescription describe() {
  return describe_features<RandomSubset>(
      "random_subset", "1.0.0",
      "Random subsets of raw features, with or without replacement (Agarwal et al., ICML 2014, Algorithm 3 GEN)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
