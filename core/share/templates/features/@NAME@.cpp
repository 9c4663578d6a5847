// @NAME@: a feature transform. The skeleton is max-abs scaling: fitted on the training split,
// column j is divided by max_i |X_ij| (columns that are zero on train are left as they are),
// so every training feature lies in [-1, 1]; sparse matrices stay sparse. Replace fit() and
// transform() with your transform.
//
// The contract (dualgap/features.hpp):
//   fit(train, seed) sees the TRAINING split only; seed is the repeat's feature seed (random
//     features must be drawn from it: every solver of a repeat sees the same draws).
//   transform(X) applies the fitted transform to any rows (train or test) identically, keeps
//     the number of rows, and does not depend on other rows of X.
//   Stagewise generators also override supports_blocks()/block(b, p, X): block b of p new
//     features, a deterministic function of (fit, seed, b, p).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dualgap/features.hpp"
#include "dualgap/plugin.hpp"

namespace {

class @CLASS@ final : public dualgap::FeatureGenerator {
 public:
  struct Options {  // parameters: defaults here, one bind() line each (dualgap/options.hpp)
    double max_abs = 1.0;
    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::max_abs, "max_abs", "largest absolute value of a training feature after scaling").min(0.0);
    }
  };
  explicit @CLASS@(const Options& o) : o_(o) {}

  void fit(const dualgap::Examples& train, std::uint64_t /*seed*/) override {
    const dualgap::FeatureMatrix& X = train.X;
    std::vector<double> m(static_cast<std::size_t>(X.cols()), 0.0);
    if (X.is_sparse()) {
      const auto& S = X.sparse();
      for (Eigen::Index r = 0; r < S.outerSize(); ++r)
        for (dualgap::SparseMatrix::InnerIterator it(S, r); it; ++it)
          m[it.col()] = std::max(m[it.col()], std::abs(it.value()));
    } else {
      const auto& D = X.dense();
      for (Eigen::Index r = 0; r < D.rows(); ++r)
        for (Eigen::Index c = 0; c < D.cols(); ++c) m[c] = std::max(m[c], std::abs(D(r, c)));
    }
    scale_.resize(m.size());
    for (std::size_t j = 0; j < m.size(); ++j) scale_[j] = m[j] > 0 ? o_.max_abs / m[j] : 1.0;
  }

  dualgap::FeatureMatrix transform(const dualgap::FeatureMatrix& X) const override {
    if (static_cast<std::size_t>(X.cols()) != scale_.size())
      throw std::runtime_error("@NAME@: fitted on " + std::to_string(scale_.size()) +
                               " features, asked to transform " + std::to_string(X.cols()));
    if (X.is_sparse()) {
      dualgap::SparseMatrix S = X.sparse();
      for (Eigen::Index r = 0; r < S.outerSize(); ++r)
        for (dualgap::SparseMatrix::InnerIterator it(S, r); it; ++it) it.valueRef() *= scale_[it.col()];
      return dualgap::FeatureMatrix(std::move(S));
    }
    dualgap::DenseMatrix D = X.dense();
    for (Eigen::Index r = 0; r < D.rows(); ++r)
      for (Eigen::Index c = 0; c < D.cols(); ++c) D(r, c) *= scale_[c];
    return dualgap::FeatureMatrix(std::move(D));
  }

 private:
  Options o_;
  std::vector<double> scale_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_features<@CLASS@>("@NAME@", "0.1.0",
                                            "Max-abs feature scaling fitted on train [dualgap new-plugin skeleton]");
}

}  // namespace

DUALGAP_PLUGIN(describe)
