// `dualgap validate` without --no-data: loads each distinct data section of the expanded runs
// once, as `run` would (same plugin, same parameters, the first repeat's data seed), so that a
// malformed data file fails validation with the same file:line message instead of failing
// every run later. Prints the counts, dimensions and classes of each.
#pragma once

#include <ostream>
#include <vector>

#include "experiment/config.hpp"

namespace dualgap {

/// Throws DataError (or the plugin's error) on the first data set that does not load.
DUALGAP_API void check_run_data(const std::vector<RunSpec>& runs, const PluginRegistry& reg, std::ostream& out);

}  // namespace dualgap
