// Random Fourier features of the Gaussian kernel k(x, x') = exp(-||x - x'||^2 / (2 s^2)):
// z_j(x) = sqrt(2/p) cos(w_j . x + b_j), w_j ~ N(0, I / s^2), b_j ~ U[0, 2 pi], so that
// E[z(x) . z(x')] = k(x, x') (Rahimi & Recht, NIPS 2007). Bandwidth s by the median pairwise
// distance of a training sample, optionally after PCA, as in appendix A.2.1 of Agarwal et al.,
// "Least Squares Revisited", ICML 2014 (the generator of Algorithm 3).
#include "dualgap/plugin.hpp"
#include "features/random_features.hpp"

namespace {

using namespace dualgap;

class RandomFourier final : public lsr::RandomProjectionGenerator {
 public:
  struct Options {
    int num_features = 4000;
    int pca_dims = 0;
    double bandwidth = 0.0;
    double bandwidth_scale = 1.0;
    int median_sample = 1000;
    static void bind(Binder<Options>& b) {
      b.field(&Options::num_features, "num_features", "features produced by transform()").min(1);
      b.field(&Options::pca_dims, "pca_dims", "PCA to this many dimensions first (0: none; the paper uses 50)").min(0);
      b.field(&Options::bandwidth, "bandwidth", "kernel bandwidth s (0: median pairwise distance)").min(0.0);
      b.field(&Options::bandwidth_scale, "bandwidth_scale", "multiplies the median-trick bandwidth").min(0.0);
      b.field(&Options::median_sample, "median_sample", "training rows sampled for the median pairwise distance")
          .min(2);
    }
  };
  explicit RandomFourier(const Options& o)
      : RandomProjectionGenerator(o.num_features, o.pca_dims, o.bandwidth, o.bandwidth_scale, o.median_sample,
                                  "fourier") {}

 protected:
  DenseMatrix project_and_map(const DenseMatrix& Z, Eigen::Index p, SplitMix64& rng) const override {
    const DenseMatrix W = gaussian(Z.cols(), p, 1.0 / sigma_, rng);
    Eigen::RowVectorXd b(p);
    for (Eigen::Index j = 0; j < p; ++j) b[j] = 2.0 * M_PI * rng.uniform();
    DenseMatrix out;
    out.noalias() = Z * W;
    const double scale = std::sqrt(2.0 / static_cast<double>(p));
    for (Eigen::Index r = 0; r < out.rows(); ++r)
      for (Eigen::Index j = 0; j < p; ++j) out(r, j) = scale * std::cos(out(r, j) + b[j]);
    return out;
  }
};

PluginDescription describe() {
  return describe_features<RandomFourier>(
      "random_fourier", "1.0.0",
      "Random Fourier features of the Gaussian kernel, median-trick bandwidth, optional PCA first "
      "(Rahimi & Recht, NIPS 2007; Agarwal et al., ICML 2014, A.2.1)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
