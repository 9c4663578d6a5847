// Random logit features: z_j(x) = 1 / (1 + exp(-(gain * w_j . (x - mean) + b_j))),
// w_j ~ N(0, I / s^2) with s the median pairwise distance (so w_j . (x - x') is O(1) for a
// typical pair: "weights chosen from a Gaussian of appropriate variance, so the features have
// reasonable sensitivity"), b_j ~ N(0, 1). Generator of Algorithm 3 of Agarwal et al.,
// "Least Squares Revisited", ICML 2014 (appendix A.2.1).
#include "dualgap/plugin.hpp"
#include "features/random_features.hpp"

namespace {

using namespace dualgap;

class RandomLogits final : public lsr::RandomProjectionGenerator {
 public:
  struct Options {
    int num_features = 4000;
    int pca_dims = 0;
    double bandwidth = 0.0;
    double gain = 2.0;
    int median_sample = 1000;
    static void bind(Binder<Options>& b) {
      b.field(&Options::num_features, "num_features", "features produced by transform()").min(1);
      b.field(&Options::pca_dims, "pca_dims", "PCA to this many dimensions first (0: none)").min(0);
      b.field(&Options::bandwidth, "bandwidth", "projection scale s (0: median pairwise distance)").min(0.0);
      b.field(&Options::gain, "gain", "multiplies the projections w . (x - mean) / s").min(0.0);
      b.field(&Options::median_sample, "median_sample", "training rows sampled for the median pairwise distance")
          .min(2);
    }
  };
  explicit RandomLogits(const Options& o)
      : RandomProjectionGenerator(o.num_features, o.pca_dims, o.bandwidth, 1.0, o.median_sample, "logits"),
        gain_(o.gain) {}

 protected:
  DenseMatrix project_and_map(const DenseMatrix& Z, Eigen::Index p, SplitMix64& rng) const override {
    const DenseMatrix W = gaussian(Z.cols(), p, gain_ / sigma_, rng);
    Eigen::RowVectorXd b(p);
    for (Eigen::Index j = 0; j < p; ++j) b[j] = rng.normal();
    b -= mean_.transpose() * W;  // centre the projections on the training mean
    DenseMatrix out;
    out.noalias() = Z * W;
    for (Eigen::Index r = 0; r < out.rows(); ++r)
      for (Eigen::Index j = 0; j < p; ++j) out(r, j) = 1.0 / (1.0 + std::exp(-(out(r, j) + b[j])));
    return out;
  }

 private:
  double gain_;
};

PluginDescription describe() {
  return describe_features<RandomLogits>(
      "random_logits", "1.0.0",
      "Random logistic-sigmoid features of Gaussian projections (Agarwal et al., ICML 2014, A.2.1)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
