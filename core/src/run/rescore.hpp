// dualgap evaluate: re-scoring finished runs from their saved iterates (see rescore.cpp).
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap {

struct RescoreOptions {
  std::vector<std::string> results;                         ///< run folders or run.json files
  std::vector<std::pair<std::string, std::string>> data;    ///< dataset parameters overridden (--data)
  std::string tag;                                          ///< suffix of the new columns; "" the default
  bool allow_changed_data = false;
  bool wait_lock = false;
};

struct RescoreCounts {
  int done = 0;
  int failed = 0;   ///< could not be re-scored (named on stderr)
  int refused = 0;  ///< data changed since the run (named on stderr)
};

/// Re-scores every run under `options.results`, one line per run on `out`, each experiment
/// folder's lock held meanwhile. Throws ConfigError for a bad tag, LockBusy for a folder in
/// use, std::runtime_error when there is no run.json at all.
DUALGAP_API RescoreCounts rescore_runs(const RescoreOptions& options, std::ostream& out);

}  // namespace dualgap
