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

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dualgap/iterate.hpp"
#include "dualgap/params.hpp"

namespace dualgap {

class AtomicFile;

/// An Iterate that owns its model (one read back from disk).
struct OwnedIterate {
  std::string model;  ///< "w", "W", "ensemble", "scores"
  Vector w, w_alpha, intercept;
  DenseMatrix W, train_scores, test_scores;
  Ensemble ensemble;
  bool has_test_scores = false, has_dual = false, separate_w_alpha = false, has_intercept = false;
  double l_alpha = 0;

  Iterate view() const;
};

/// The iterates of one run. `final` writes each checkpoint's model to its files at once but
/// commits them (AtomicFile) only in finish(), each checkpoint's replacing the last's: the model
/// is never copied in memory, where a copy of w (d x K doubles; sector: 46 MB) would weigh as
/// much as the solver's own. A killed run leaves its pending temporaries, which the next attempt
/// of the run removes.
class DUALGAP_API IterateStore {
 public:
  /// mode: "none", "final" or "all".
  IterateStore(std::string run_dir, std::string mode);
  ~IterateStore();
  /// Called at every checkpoint with the row index and its passes.
  void keep(const Iterate& it, std::size_t row, double passes);
  /// Commits what `final` kept; returns the run.json "iterates" entry (null for none / nothing).
  /// Throws when writing it failed.
  json finish();

 private:
  struct Written {
    json entry;  ///< the run.json "saved" entry
    std::string model;
    std::vector<std::unique_ptr<AtomicFile>> files;  ///< not committed yet
  };
  Written write(const Iterate& it, std::size_t row, double passes);
  std::string dir_, mode_;
  Written pending_;    ///< final: the last checkpoint's files
  std::string error_;  ///< final: why the last checkpoint's files could not be written
  json saved_ = json::array();
  std::string model_;
};

/// Reads the iterate of one "saved" entry of run.json (paths relative to run_dir).
DUALGAP_API OwnedIterate load_iterate(const std::string& run_dir, const json& saved_entry, const std::string& model);

}  // namespace dualgap
