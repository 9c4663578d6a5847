// Saved iterates: the models of a run's checkpoints as NumPy .npy files beside run.json
// (record.iterates: none | final | all), and reading them back for `dualgap evaluate`.
//
// Files, in <run_dir>/iterates/, named by the checkpoint's row in the curve (6 digits):
//   w_ROW.npy              structured SVM: float64 (dim,)
//   W_ROW.npy              linear model: float64 (d, K), scores = X W (+ intercept_ROW.npy, (K,))
//   alpha_ROW.npy          boosting: float64 (T, K) with stumps_ROW.json, a list of
//                          {feature, threshold, sign, cls}: F_c(x) = sum_t alpha[t, c] h_t(x),
//                          h_t(x) = sign * (x[feature] > threshold ? 1 : -1)
//   train_scores_ROW.npy   score-only models: float64 (n, K); test_scores_ROW.npy (m, K)
//   w_alpha_ROW.npy        an SSVM dual point's w_alpha when it differs from w
// run.json "iterates": {"mode", "model", "saved": [{"row", "passes", "files": {name: path},
// "l_alpha"}]} with paths relative to the run folder.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dualgap/iterate.hpp"
#include "dualgap/params.hpp"

namespace dualgap {

/// An Iterate that owns its model (a copy kept for `final`, or one read back from disk).
struct OwnedIterate {
  std::string model;  ///< "w", "W", "ensemble", "scores"
  Vector w, w_alpha, intercept;
  DenseMatrix W, train_scores, test_scores;
  Ensemble ensemble;
  bool has_test_scores = false, has_dual = false, separate_w_alpha = false, has_intercept = false;
  double l_alpha = 0;

  void assign(const Iterate& it);
  Iterate view() const;
};

class DUALGAP_API IterateStore {
 public:
  /// mode: "none", "final" or "all".
  IterateStore(std::string run_dir, std::string mode);
  /// Called at every checkpoint with the row index and its passes.
  void keep(const Iterate& it, std::size_t row, double passes);
  /// Writes what `final` kept; returns the run.json "iterates" entry (null for none / nothing).
  json finish();

 private:
  json write(const OwnedIterate& it, std::size_t row, double passes);
  std::string dir_, mode_;
  OwnedIterate last_;
  std::size_t last_row_ = 0;
  double last_passes_ = 0;
  bool have_last_ = false;
  json saved_ = json::array();
  std::string model_;
};

/// Reads the iterate of one "saved" entry of run.json (paths relative to run_dir).
DUALGAP_API OwnedIterate load_iterate(const std::string& run_dir, const json& saved_entry, const std::string& model);

}  // namespace dualgap
