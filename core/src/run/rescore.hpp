// dualgap evaluate: re-scoring finished runs from their saved iterates (see evaluate.cpp).
#pragma once

#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap {

/// The `dualgap evaluate` command; returns the exit status (throws ConfigError on bad usage).
DUALGAP_API int evaluate_main(const std::vector<std::string>& args);

}  // namespace dualgap
