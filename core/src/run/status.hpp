// `dualgap status RESULTS`: what is done, running and left of each experiment, and the states
// Slurm reports for its submissions.
#pragma once

#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap {

/// Entry point of `dualgap status ARGS...`. Returns the exit status (0, or 2 for bad usage).
DUALGAP_API int status_main(const std::vector<std::string>& args);

}  // namespace dualgap
