// Small evaluation helpers shared by solvers.
#pragma once

#include <vector>

#include "dualgap/data.hpp"

namespace dualgap {

/// Fraction of rows of a score matrix (rows = examples, columns = classes) whose argmax (the
/// first maximizer) differs from the label; 0 for no rows.
inline double argmax_error(const DenseMatrix& scores, const std::vector<int>& y) {
  if (scores.rows() == 0) return 0.0;
  std::size_t wrong = 0;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    Eigen::Index best;
    scores.row(i).maxCoeff(&best);
    wrong += best != y[static_cast<std::size_t>(i)];
  }
  return static_cast<double>(wrong) / static_cast<double>(scores.rows());
}

}  // namespace dualgap
