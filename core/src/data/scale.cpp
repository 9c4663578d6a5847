// Per-feature scaling fitted on train (scale.hpp).
#include "data/scale.hpp"

#include <algorithm>
#include <cmath>

#include "dualgap/parse.hpp"

namespace dualgap {

const char* to_string(Scaling s) {
  switch (s) {
    case Scaling::minmax01: return "minmax01";
    case Scaling::minmax11: return "minmax11";
    case Scaling::maxabs: return "maxabs";
    case Scaling::standardize: return "standardize";
    default: return "none";
  }
}

void apply_scaling(Examples& train, Examples& test, Scaling s) {
  if (s == Scaling::none) return;
  const Eigen::Index d = train.X.cols();
  const bool has_test = test.X.rows() > 0;
  if (has_test && test.X.cols() != d)
    throw DataError("scaling: train has " + std::to_string(d) + " features but test has " +
                    std::to_string(test.X.cols()));
  if (s == Scaling::maxabs) {
    std::vector<double> m(static_cast<std::size_t>(d), 0.0);
    auto scan = [&](const FeatureMatrix& X) {
      if (X.is_sparse()) {
        const auto& S = X.sparse();
        for (Eigen::Index k = 0; k < S.nonZeros(); ++k) {
          auto j = static_cast<std::size_t>(S.innerIndexPtr()[k]);
          m[j] = std::max(m[j], std::abs(S.valuePtr()[k]));
        }
      } else {
        const auto& D = X.dense();
        for (Eigen::Index r = 0; r < D.rows(); ++r)
          for (Eigen::Index j = 0; j < d; ++j) m[static_cast<std::size_t>(j)] = std::max(m[static_cast<std::size_t>(j)], std::abs(D(r, j)));
      }
    };
    scan(train.X);
    for (auto& v : m) v = v > 0 ? 1.0 / v : 0.0;
    auto apply = [&](FeatureMatrix& X) {
      if (X.rows() == 0) return;
      if (X.is_sparse()) {
        auto& S = X.sparse_mut();
        S.makeCompressed();
        for (Eigen::Index k = 0; k < S.nonZeros(); ++k) S.valuePtr()[k] *= m[static_cast<std::size_t>(S.innerIndexPtr()[k])];
      } else {
        auto& D = X.dense_mut();
        for (Eigen::Index r = 0; r < D.rows(); ++r)
          for (Eigen::Index j = 0; j < d; ++j) D(r, j) *= m[static_cast<std::size_t>(j)];
      }
    };
    apply(train.X);
    apply(test.X);
    return;
  }
  if (train.X.is_sparse() || (has_test && test.X.is_sparse()))
    throw DataError(std::string("scale '") + to_string(s) +
                    "' shifts feature values and would make sparse data dense; use scale: maxabs, "
                    "or load the data dense (dense: true)");
  const auto& D = train.X.dense();
  std::vector<double> a(static_cast<std::size_t>(d), 0.0), b(static_cast<std::size_t>(d), 0.0);
  for (Eigen::Index j = 0; j < d; ++j) {
    const auto col = D.col(j);
    const auto uj = static_cast<std::size_t>(j);
    if (D.rows() == 0) continue;
    if (s == Scaling::standardize) {
      const double mean = col.mean();
      const double var = (col.array() - mean).square().mean();
      const double sd = std::sqrt(var);
      a[uj] = sd > 0 ? 1.0 / sd : 0.0;
      b[uj] = -mean * a[uj];
    } else {
      const double lo = col.minCoeff(), hi = col.maxCoeff();
      const double width = s == Scaling::minmax01 ? 1.0 : 2.0;
      const double shift = s == Scaling::minmax01 ? 0.0 : -1.0;
      if (hi > lo) {
        a[uj] = width / (hi - lo);
        b[uj] = shift - lo * a[uj];
      }
    }
  }
  auto apply = [&](FeatureMatrix& X) {
    if (X.rows() == 0) return;
    auto& M = X.dense_mut();
    for (Eigen::Index r = 0; r < M.rows(); ++r)
      for (Eigen::Index j = 0; j < d; ++j) M(r, j) = a[static_cast<std::size_t>(j)] * M(r, j) + b[static_cast<std::size_t>(j)];
  };
  apply(train.X);
  apply(test.X);
}

}  // namespace dualgap
