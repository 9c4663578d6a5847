// Choosing a part of an experiment's runs: exact ids (--only-id) and shards (--shard I/N).
#pragma once

#include <string>
#include <vector>

#include "experiment/config.hpp"

namespace dualgap {

/// Keeps the runs whose id is exactly one of `ids` (no glob: '[', '*', '?' are plain characters).
/// An id that names no run is a ConfigError listing the run ids.
DUALGAP_API std::vector<RunSpec> select_ids(const std::vector<RunSpec>& runs, const std::vector<std::string>& ids);

struct Shard {
  int index = 0, count = 1;  ///< 1-based index of count
};
/// Parses "I/N" (1 <= I <= N). Throws ConfigError naming the --shard argument.
DUALGAP_API Shard parse_shard(const std::string& text);
/// The I-th of N disjoint shares, balanced (sizes differ by at most one), covering all runs:
/// run k (in expansion order) belongs to share k mod N, so every share gets every solver.
DUALGAP_API std::vector<RunSpec> select_shard(const std::vector<RunSpec>& runs, Shard shard);

}  // namespace dualgap
