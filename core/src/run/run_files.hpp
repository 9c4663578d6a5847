// Finding the run records (run.json) of a results folder: the one walk that compare, check,
// evaluate and status share, below the layers that read what the records say.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap {

/// run.json files named by `inputs` (files, or directories searched recursively), sorted.
/// Throws std::runtime_error for a path that does not exist.
DUALGAP_API std::vector<std::filesystem::path> find_run_files(const std::vector<std::string>& inputs);

}  // namespace dualgap
