#include "experiment/config_checks.hpp"
#include "base/json_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "base/util.hpp"
#include "dualgap/parse.hpp"

namespace dualgap::checks {

json number_from_text(const std::string& text, const std::string& loc) {
  static const std::regex int_re(R"([-+]?[0-9]+)");
  if (std::regex_match(text, int_re)) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == 0) return v;
    if (text[0] != '-') {
      errno = 0;
      const unsigned long long u = std::strtoull(text.c_str(), &end, 10);
      if (errno == 0) return u;
    }
    // larger integers are kept as doubles; keys that need an exact integer refuse them
  }
  errno = 0;
  const double d = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(d))
    throw ConfigError(fmt::format("{}: the number {} is out of the range of a double (about 1.8e308)", loc, text));
  return d;
}

std::uint64_t seed_value(const json& v, const std::string& loc) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  throw ConfigError(fmt::format("{}: seed must be an integer in [0, 18446744073709551615], got {}", loc,
                                json_text(v)));
}

int repeats_value(const json& v, const std::string& loc) {
  if (v.is_number_integer() && v.get<std::int64_t>() >= 1 && v.get<std::int64_t>() <= kMaxRepeats)
    return static_cast<int>(v.get<std::int64_t>());
  throw ConfigError(fmt::format("{}: repeats must be an integer in [1, {}], got {}", loc, kMaxRepeats,
                                json_text(v)));
}

std::string path_component_problem(const std::string& s) {
  if (s.empty()) return "is empty";
  if (s == "." || s == "..") return "is not a folder name";
  if (s.find('/') != std::string::npos || s.find('\\') != std::string::npos) return "contains a path separator";
  if (!valid_utf8(s)) return "is not valid UTF-8";
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  if (s.size() > kMaxPathComponent) return fmt::format("is {} bytes long, more than a file name can have ({})", s.size(), kMaxPathComponent);
  return "";
}

void check_experiment_name(const std::string& name, const std::string& loc) {
  std::string why = path_component_problem(name);
  if (why.empty() && name.size() > 200) why = "is longer than 200 bytes";
  if (!why.empty())
    throw ConfigError(fmt::format("{}: name '{}' {}: the name is the results folder under --out, so it must be one "
                                  "folder name (e.g. usps-bcfw)",
                                  loc, printable(name.size() > 300 ? name.substr(0, 300) + "..." : name), why));
}

void check_run_id(const std::string& id, const std::string& built_from, const std::string& loc) {
  const std::string why = path_component_problem(id);
  if (!why.empty())
    throw ConfigError(fmt::format("{}: the run id '{}' built from {} {}: a run id is the run's folder under "
                                  "<out>/<experiment>/, so it must be one folder name (shorten it)",
                                  loc, printable(id.size() > 80 ? id.substr(0, 80) + "..." : id), built_from, why));
}

void check_sweep_key(const std::string& key, const std::string& loc) {
  static const std::set<std::string> kSweepable = {"data", "features", "oracle", "problem", "solvers", "stop", "record"};
  const std::string head = key.substr(0, key.find('.'));
  if (kSweepable.count(head)) return;
  if (head == "seed" || head == "repeats")
    throw ConfigError(fmt::format("{}: sweep.{}: the seeds of a run come from 'seed' and the repeat index, they cannot "
                                  "be swept (every point would reuse the same seeds); use 'repeats: N' for more seeds",
                                  loc, key));
  throw ConfigError(fmt::format("{}: sweep.{}: a sweep varies keys under one of data, features, oracle, problem, "
                                "solvers, stop, record; '{}' is not one of them",
                                loc, key, head));
}

void normalize_durations(json& stop, const Where& where) {
  if (!stop.is_object()) return;
  for (const char* key : {"max_time", "deadline"}) {
    if (!stop.contains(key) || !stop[key].is_string()) continue;
    const std::string s = stop[key];
    static const std::regex re(R"(\s*([0-9.eE+-]+)\s*(s|sec|m|min|h)?\s*)");
    std::smatch m;
    if (!std::regex_match(s, m, re)) continue;  // left to the schema (an expression, or its error)
    const std::string num = m[1];
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(num.c_str(), &end);
    if (end != num.c_str() + num.size() || errno == ERANGE || !std::isfinite(v))
      throw ConfigError(fmt::format("{}: stop.{} = '{}' is not a duration (a finite number of seconds, or with "
                                    "a unit: 90s, 5m, 2h)",
                                    where(key), key, s));
    const std::string u = m[2];
    if (u == "m" || u == "min") v *= 60;
    if (u == "h") v *= 3600;
    stop[key] = v;
  }
}

void check_stop(const json& stop, const Where& where) {
  bool ends = false;
  for (const char* k : {"max_passes", "max_oracle_calls", "max_time", "gap", "rel_gap"})
    if (stop.contains(k) && stop[k].is_number() && stop[k].get<double>() > 0) ends = true;
    else if (stop.contains(k) && stop[k].is_string()) ends = true;  // an expression in n, d, K
  if (!ends)
    throw ConfigError(fmt::format("{}: stop needs at least one of max_passes, max_oracle_calls, max_time, gap, rel_gap "
                                  "greater than 0; otherwise every run goes on until the watchdog's deadline",
                                  where("")));
  if (stop.contains("deadline") && stop["deadline"].is_number() && !(stop["deadline"].get<double>() > 0))
    throw ConfigError(fmt::format("{}: stop.deadline must be greater than 0 seconds (leave it out for the default: "
                                  "3 x max_time + 120 s, or 1 h)",
                                  where("deadline")));
}

void check_record(const json& record, const Where& where) {
  const double g = record.value("geometric", 1.0);
  if (!(g >= 1.0) || !std::isfinite(g))
    throw ConfigError(fmt::format("{}: record.geometric must be at least 1 (1 = no geometric schedule), got {}",
                                  where("geometric"), g));
  // An absent `first` is the recorder's default, 1 pass (Schedule::from_json).
  const double first = record.contains("first") && record["first"].is_number() ? record["first"].get<double>() : 1.0;
  if (g > 1.0 && !(first > 0.0))
    throw ConfigError(fmt::format("{}: record.geometric = {} needs record.first > 0 (the first checkpoint, in passes); "
                                  "a schedule growing from 0 never advances",
                                  where(record.contains("first") ? "first" : "geometric"), g));
  for (const char* k : {"every", "first", "every_time"})
    if (record.contains(k) && record[k].is_number() && !std::isfinite(record[k].get<double>()))
      throw ConfigError(fmt::format("{}: record.{} must be finite", where(k), k));
}

std::size_t list_index(const std::string& part, std::size_t size, const std::string& origin, const std::string& dotted) {
  std::size_t idx = 0;
  bool too_large = part.size() > 9;
  if (!too_large) idx = std::stoul(part);
  if (too_large || idx >= size)
    throw ConfigError(fmt::format("{}: index {} in '{}' is out of range (list has {} items)", origin, part, dotted, size));
  return idx;
}

}  // namespace dualgap::checks
