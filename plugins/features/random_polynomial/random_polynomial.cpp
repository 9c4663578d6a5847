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
  explicit RandomPolynomial(const Params& p)
      : RandomProjectionGenerator(p.get<int>("num_features"), p.get<int>("pca_dims"),
                                  p.get<double>("bandwidth"), 1.0, p.get<int>("median_sample"),
                                  0x706f6cULL),
        degree_(p.get<int>("degree")) {}

 protected:
  DenseMatrix project_and_map(const DenseMatrix& Z, Eigen::Index p, std::mt19937_64& rng) const override {
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
  return describe_plugin<RandomPolynomial>(
      Kind::features, "random_polynomial", "1.0.0",
      "Random low-degree polynomials of Gaussian projections (Agarwal et al., ICML 2014, A.2.1)",
      {int_param("num_features", 4000, "features produced by transform()", 1),
       int_param("degree", 2, "polynomial degree", 1, 6),
       int_param("pca_dims", 0, "PCA to this many dimensions first (0: none)", 0),
       real_param("bandwidth", 0.0, "projection scale s (0: median pairwise distance)", 0.0),
       int_param("median_sample", 1000, "training rows sampled for the median pairwise distance", 2)});
}

}  // namespace

DUALGAP_PLUGIN(describe)
