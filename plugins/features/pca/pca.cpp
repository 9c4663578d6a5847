// Principal component analysis to k dimensions: x <- V_k^T (x - mean), V_k the top-k
// eigenvectors of the training covariance (1/n) sum (x - mean)(x - mean)^T, optionally
// whitened by 1/sqrt(eigenvalue). Preprocessing of appendix A.2.1 of Agarwal et al., "Least
// Squares Revisited", ICML 2014 (MNIST is PCA-ed to 50 dimensions before random features).
#include "dualgap/plugin.hpp"
#include "features/random_features.hpp"

namespace {

using namespace dualgap;

class Pca final : public FeatureGenerator {
 public:
  struct Options {
    int k = 50;
    bool whiten = false;
    static void bind(Binder<Options>& b) {
      b.field(&Options::k, "k", "output dimensions (clipped to the input dimension)").min(1);
      b.field(&Options::whiten, "whiten", "divide each component by its standard deviation");
    }
  };
  explicit Pca(const Options& o) : k_(o.k), whiten_(o.whiten) {}

  void fit(const Examples& train, std::uint64_t) override {
    const int k = static_cast<int>(std::min<Eigen::Index>(k_, train.X.cols()));
    model_.fit(train.X, k, "pca");
    fitted_ = true;
  }
  FeatureMatrix transform(const FeatureMatrix& X) const override {
    if (!fitted_) throw std::logic_error("pca: transform() before fit()");
    if (X.cols() != model_.mean.size())
      throw std::runtime_error("pca: fitted on " + std::to_string(model_.mean.size()) +
                               " features, got " + std::to_string(X.cols()));
    DenseMatrix Z = model_.apply(X);
    if (whiten_)
      for (Eigen::Index j = 0; j < Z.cols(); ++j)
        Z.col(j) /= std::sqrt(std::max(model_.variance[j], 1e-12));
    return FeatureMatrix(std::move(Z));
  }

 private:
  int k_;
  bool whiten_;
  bool fitted_ = false;
  lsr::PcaModel model_;
};

PluginDescription describe() {
  return describe_features<Pca>(
      "pca", "1.0.0",
      "Principal component projection to k dimensions, fitted on train (Agarwal et al., ICML 2014, A.2.1)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
