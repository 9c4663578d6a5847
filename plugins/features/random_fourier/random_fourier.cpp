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
  explicit RandomFourier(const Params& p)
      : RandomProjectionGenerator(p.get<int>("num_features"), p.get<int>("pca_dims"),
                                  p.get<double>("bandwidth"), p.get<double>("bandwidth_scale"),
                                  p.get<int>("median_sample"), 0x726666ULL) {}

 protected:
  DenseMatrix project_and_map(const DenseMatrix& Z, Eigen::Index p, std::mt19937_64& rng) const override {
    const DenseMatrix W = gaussian(Z.cols(), p, 1.0 / sigma_, rng);
    std::uniform_real_distribution<double> U(0.0, 2.0 * M_PI);
    Eigen::RowVectorXd b(p);
    for (Eigen::Index j = 0; j < p; ++j) b[j] = U(rng);
    DenseMatrix out;
    out.noalias() = Z * W;
    const double scale = std::sqrt(2.0 / static_cast<double>(p));
    for (Eigen::Index r = 0; r < out.rows(); ++r)
      for (Eigen::Index j = 0; j < p; ++j) out(r, j) = scale * std::cos(out(r, j) + b[j]);
    return out;
  }
};

PluginDescription describe() {
  return describe_plugin<RandomFourier>(
      Kind::features, "random_fourier", "1.0.0",
      "Random Fourier features of the Gaussian kernel, median-trick bandwidth, optional PCA first "
      "(Rahimi & Recht, NIPS 2007; Agarwal et al., ICML 2014, A.2.1)",
      {int_param("num_features", 4000, "features produced by transform()", 1),
       int_param("pca_dims", 0, "PCA to this many dimensions first (0: none; the paper uses 50)", 0),
       real_param("bandwidth", 0.0, "kernel bandwidth s (0: median pairwise distance)", 0.0),
       real_param("bandwidth_scale", 1.0, "multiplies the median-trick bandwidth", 0.0),
       int_param("median_sample", 1000, "training rows sampled for the median pairwise distance", 2)});
}

}  // namespace

DUALGAP_PLUGIN(describe)
