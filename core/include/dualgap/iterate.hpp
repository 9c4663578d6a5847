// What a solver hands the core at a checkpoint: its iterate and, where it has
// one, a dual certificate. The core scores them — primal objective, certified dual value, train
// and test error — with one implementation per problem family (core/src/objectives/), so every
// solver of a problem is measured by the same code and a solver cannot report a number of its
// own (cf. benchopt: the Objective, not the Solver, evaluates).
//
// A checkpoint sets exactly one model:
//   w             structured SVM: the joint weight vector (StructuredOracle::dim entries);
//   W             a linear multi-class model, d x K row-major: scores s(x) = W^T x (+ intercept,
//                 K values, when set);
//   ensemble      boosting: F_c(x) = sum_t alpha(t, c) h_t(x) over decision stumps h_t;
//   train_scores  a model known only through its scores (n x K on train, and test_scores on the
//                 test split): least-squares pipelines whose features are drawn inside the solver.
// The pointers need to stay valid only during the checkpoint call.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dualgap/data.hpp"

namespace dualgap {

/// A decision stump h(x) = sign * (x[feature] > threshold ? +1 : -1), values in {-1, +1}.
struct Stump {
  int feature = 0;
  double threshold = 0;  ///< below the smallest training value: a constant stump (h == sign)
  int sign = 1;          ///< +1 or -1
  int cls = -1;          ///< class the stump was selected for (-1: shared / vote stump)
  double edge = 0;       ///< edge at selection time
  double operator()(double v) const { return v > threshold ? sign : -sign; }
};

/// A boosted ensemble: F_c(x) = sum_t alpha(t, c) h_t(x).
struct Ensemble {
  std::vector<Stump> stumps;
  DenseMatrix alpha;  ///< stumps.size() x K
};

/// The dual point of a structural SVM solver, (w_alpha, l_alpha) with w_alpha = A alpha and
/// l_alpha = b^T alpha for a feasible alpha (one distribution over labelings per example):
/// its dual value D = -lambda/2 ||w_alpha||^2 + l_alpha is a lower bound on the optimum.
struct SsvmDualPoint {
  const Vector* w_alpha = nullptr;  ///< nullptr: the iterate w itself
  double l_alpha = 0;
};

struct Iterate {
  // --- the model: set exactly one ---
  const Vector* w = nullptr;
  const DenseMatrix* W = nullptr;
  const Vector* intercept = nullptr;  ///< with W: per-class offsets b, scores W^T x + b
  const Ensemble* ensemble = nullptr;
  const DenseMatrix* train_scores = nullptr;
  const DenseMatrix* test_scores = nullptr;  ///< with train_scores; nullptr when there is no test split

  // --- a dual certificate, where the solver has one ---
  std::optional<SsvmDualPoint> ssvm_dual;

  // --- solver-specific columns (working-set size, step sizes, ...). The names the core
  // computes (primal, dual, gap, train_error, test_error, train_loss, test_loss, the
  // counters) are refused. ---
  std::vector<std::pair<std::string, double>> extra;
  void set(const std::string& name, double value) {
    for (auto& [k, v] : extra)
      if (k == name) {
        v = value;
        return;
      }
    extra.emplace_back(name, value);
  }
};

}  // namespace dualgap
