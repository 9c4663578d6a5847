// `dualgap validate` without --no-data: prepares the data of the expanded runs as `run` would
// (same plugins, same parameters, the first repeat's seeds), once per distinct data section and
// feature chain, so that a malformed data file fails validation with the same file:line message
// instead of failing every run later, and the plugins' rules against the data they receive
// (Options::validate_data) are checked at the line of the parameter at fault. The feature chain is
// applied only as far as such a rule needs it (a feature map can cost more than the loading).
// Prints the counts, dimensions and classes of each data set.
#pragma once

#include <ostream>
#include <vector>

#include "experiment/config.hpp"

namespace dualgap {

/// Throws DataError (or the plugin's error) on the first data set that does not load, ConfigError
/// on the first rule against the data that does not hold.
DUALGAP_API void check_run_data(const std::vector<RunSpec>& runs, const PluginRegistry& reg, std::ostream& out);

}  // namespace dualgap
