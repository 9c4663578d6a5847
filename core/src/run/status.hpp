// `dualgap status RESULTS`: what is done, running and left of each experiment, and the states
// Slurm reports for its submissions.
#pragma once

#include <string>
#include <vector>

#include "dualgap/json.hpp"

#include "dualgap/api.hpp"

namespace dualgap {

/// The state of each experiment under `folders` (a results folder, or one experiment's
/// folder), one JSON object each (what `status --json` prints). A submission record that cannot
/// be read is appended to `errors` (naming its file) and shown as such. Throws ConfigError for a
/// folder that does not exist.
DUALGAP_API nlohmann::json status_of(const std::vector<std::string>& folders, std::vector<std::string>& errors);

/// The experiments of status_of() as text on stdout.
DUALGAP_API void print_status(const nlohmann::json& experiments);

}  // namespace dualgap
