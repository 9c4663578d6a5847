// Standardization: x_j <- (x_j - mean_j) / std_j with mean and std of the training split
// (std_j = 0 leaves the column unscaled). Sparse input is only scaled (by the root mean square
// of the column), never centred, so that it stays sparse. Preprocessing of Agarwal et al.,
// "Least Squares Revisited", ICML 2014 experiments.
#include "dualgap/plugin.hpp"
#include "features/random_features.hpp"

namespace {

using namespace dualgap;

class Standardize final : public FeatureGenerator {
 public:
  struct Options {
    bool center = true;
    bool scale = true;
    static void bind(Binder<Options>& b) {
      b.field(&Options::center, "center", "subtract the training mean (dense input only)");
      b.field(&Options::scale, "scale", "divide by the training standard deviation (sparse: RMS)");
    }
  };
  explicit Standardize(const Options& o) : center_(o.center), scale_(o.scale) {}

  void fit(const Examples& train, std::uint64_t) override {
    const FeatureMatrix& X = train.X;
    const Eigen::Index d = X.cols();
    const double n = std::max<double>(1, X.rows());
    mean_ = lsr::column_means(X);
    Vector sq = Vector::Zero(d);
    if (X.is_sparse()) {
      const SparseMatrix& S = X.sparse();
      for (Eigen::Index r = 0; r < S.outerSize(); ++r)
        for (SparseMatrix::InnerIterator it(S, r); it; ++it) sq[it.col()] += it.value() * it.value();
    } else {
      sq = X.dense().colwise().squaredNorm().transpose();
    }
    sq /= n;
    inv_scale_.resize(d);
    for (Eigen::Index j = 0; j < d; ++j) {
      // Sparse: root mean square (no centring); dense: standard deviation about the mean.
      const double var = X.is_sparse() || !center_ ? sq[j] : sq[j] - mean_[j] * mean_[j];
      const double s = std::sqrt(std::max(0.0, var));
      inv_scale_[j] = (scale_ && s > 1e-12) ? 1.0 / s : 1.0;
    }
    sparse_fit_ = X.is_sparse();
    fitted_ = true;
  }

  FeatureMatrix transform(const FeatureMatrix& X) const override {
    if (!fitted_) throw std::logic_error("standardize: transform() before fit()");
    if (X.cols() != inv_scale_.size())
      throw std::runtime_error("standardize: fitted on " + std::to_string(inv_scale_.size()) +
                               " features, got " + std::to_string(X.cols()));
    if (X.is_sparse()) {
      SparseMatrix S = X.sparse();
      for (Eigen::Index r = 0; r < S.outerSize(); ++r)
        for (SparseMatrix::InnerIterator it(S, r); it; ++it) it.valueRef() *= inv_scale_[it.col()];
      return FeatureMatrix(std::move(S));
    }
    DenseMatrix D = X.dense();
    if (center_ && !sparse_fit_) D.rowwise() -= mean_.transpose();
    D.array().rowwise() *= inv_scale_.transpose().array();
    return FeatureMatrix(std::move(D));
  }

 private:
  bool center_, scale_;
  bool fitted_ = false, sparse_fit_ = false;
  Vector mean_, inv_scale_;
};

PluginDescription describe() {
  return describe_features<Standardize>("standardize", "1.0.0",
                                         "Per-feature centring and scaling fitted on train (sparse: scaling only)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
