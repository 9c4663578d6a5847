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
  explicit RandomLogits(const Params& p)
      : RandomProjectionGenerator(p.get<int>("num_features"), p.get<int>("pca_dims"),
                                  p.get<double>("bandwidth"), 1.0, p.get<int>("median_sample"),
                                  0x6c6f67ULL),
        gain_(p.get<double>("gain")) {}

 protected:
  DenseMatrix project_and_map(const DenseMatrix& Z, Eigen::Index p, std::mt19937_64& rng) const override {
    const DenseMatrix W = gaussian(Z.cols(), p, gain_ / sigma_, rng);
    std::normal_distribution<double> N(0.0, 1.0);
    Eigen::RowVectorXd b(p);
    for (Eigen::Index j = 0; j < p; ++j) b[j] = N(rng);
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
  return describe_plugin<RandomLogits>(
      Kind::features, "random_logits", "1.0.0",
      "Random logistic-sigmoid features of Gaussian projections (Agarwal et al., ICML 2014, A.2.1)",
      {int_param("num_features", 4000, "features produced by transform()", 1),
       int_param("pca_dims", 0, "PCA to this many dimensions first (0: none)", 0),
       real_param("bandwidth", 0.0, "projection scale s (0: median pairwise distance)", 0.0),
       real_param("gain", 2.0, "multiplies the projections w . (x - mean) / s", 0.0),
       int_param("median_sample", 1000, "training rows sampled for the median pairwise distance", 2)});
}

}  // namespace

DUALGAP_PLUGIN(describe)
