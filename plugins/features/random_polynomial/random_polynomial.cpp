// Random low-degree polynomial features: z_j(x) = prod_{q=1..degree} (1 + w_{jq} . (x - mean)),
// w_{jq} ~ N(0, I / s^2) with s the median pairwise distance, i.e. a random element of the
// span of monomials of degree <= `degree` in Gaussian projections (Kar & Karnick, AISTATS
// 2012 style). Generator of Algorithm 3 of Agarwal et al., "Least Squares Revisited", ICML
// 2014 (appendix A.2.1: "random low degree polynomials ... give comparable performance").
#include "dualgap/plugin.hpp"
#include "features/random_features.hpp"

namespace {

using namespace dualgap;

class RandomPolynomial final : public lsr::RandomProjectionGenerator {
 public:
  struct Options {
    int num_features = 4000;
    int degree = 2;
    int pca_dims = 0;
    double bandwidth = 0.0;
    int median_sample = 1000;
    static void bind(Binder<Options>& b) {
      b.field(&Options::num_features, "num_features", "features produced by transform()").min(1);
      b.field(&Options::degree, "degree", "polynomial degree").range(1, 6);
      b.field(&Options::pca_dims, "pca_dims", "PCA to this many dimensions first (0: none)").min(0);
      b.field(&Options::bandwidth, "bandwidth", "projection scale s (0: median pairwise distance)").min(0.0);
      b.field(&Options::median_sample, "median_sample", "training rows sampled for the median pairwise distance")
          .min(2);
    }
  };
  explicit RandomPolynomial(const Options& o)
      : RandomProjectionGenerator(o.num_features, o.pca_dims, o.bandwidth, 1.0, o.median_sample, "polynomial"),
        degree_(o.degree) {}

 protected:
  DenseMatrix project_and_map(const DenseMatrix& Z, Eigen::Index p, SplitMix64& rng) const override {
    DenseMatrix out = DenseMatrix::Ones(Z.rows(), p);
    DenseMatrix Zc = Z;
    Zc.rowwise() -= mean_.transpose();
    for (int q = 0; q < degree_; ++q) {
      const DenseMatrix W = gaussian(Z.cols(), p, 1.0 / sigma_, rng);
      DenseMatrix P;
      P.noalias() = Zc * W;
      out.array() *= (1.0 + P.array());
    }
    return out;
  }

 private:
  int degree_;
};

PluginDescription describe() {
  return describe_features<RandomPolynomial>(
      "random_polynomial", "1.0.0",
      "Random low-degree polynomials of Gaussian projections (Agarwal et al., ICML 2014, A.2.1)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
