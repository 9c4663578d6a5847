#include "experiment/selection.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <set>

namespace dualgap {

std::vector<RunSpec> select_ids(const std::vector<RunSpec>& runs, const std::vector<std::string>& ids) {
  if (ids.empty()) return runs;
  const std::set<std::string> wanted(ids.begin(), ids.end());
  std::set<std::string> seen;
  std::vector<RunSpec> kept;
  for (const auto& r : runs)
    if (wanted.count(r.run_id)) {
      kept.push_back(r);
      seen.insert(r.run_id);
    }
  for (const auto& id : ids)
    if (!seen.count(id)) {
      std::vector<std::string> all;
      for (const auto& r : runs) all.push_back(r.run_id);
      std::sort(all.begin(), all.end());
      throw ConfigError(fmt::format("--only-id '{}' names no run; the run ids are: {}", id, fmt::join(all, ", ")));
    }
  return kept;
}

Shard parse_shard(const std::string& text) {
  Shard s;
  const auto slash = text.find('/');
  auto number = [&](std::string_view part, int& out) {
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && p == part.data() + part.size();
  };
  const std::string_view t(text);
  if (slash == std::string::npos || !number(t.substr(0, slash), s.index) || !number(t.substr(slash + 1), s.count) ||
      s.count < 1 || s.index < 1 || s.index > s.count)
    throw ConfigError(fmt::format("--shard '{}': expected I/N with 1 <= I <= N, e.g. --shard 2/8", text));
  return s;
}

std::vector<RunSpec> select_shard(const std::vector<RunSpec>& runs, Shard shard) {
  std::vector<RunSpec> kept;
  for (std::size_t k = 0; k < runs.size(); ++k)
    if (static_cast<int>(k % static_cast<std::size_t>(shard.count)) == shard.index - 1) kept.push_back(runs[k]);
  return kept;
}

}  // namespace dualgap
