// Checks of an experiment's own keys (name, seed, repeats, stop, record, sweep keys) and of the
// numbers and text that reach them, so that every bad value is a ConfigError at its location
// instead of a hang, a silent alias or an exception without context.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "experiment/schema.hpp"

namespace dualgap::checks {

/// "file:line:col" of a key in a section ("" = the section itself).
using Where = std::function<std::string(const std::string& key)>;

/// A plain YAML scalar that looks like a number, as JSON: int64, then uint64 (seeds up to
/// 2^64-1), else double. Throws ConfigError at `loc` when it overflows a double (1e400).
json number_from_text(const std::string& text, const std::string& loc);

/// The experiment's seed: an integer in [0, 2^64-1] (not 1.5, not 1e30, not a string).
std::uint64_t seed_value(const json& v, const std::string& loc);
/// The experiment's repeats: an integer in [1, kMaxRepeats].
int repeats_value(const json& v, const std::string& loc);
inline constexpr int kMaxRepeats = 1000000;

/// The longest file or folder name (NAME_MAX of Linux file systems, in bytes).
inline constexpr std::size_t kMaxPathComponent = 255;

/// Why `s` cannot be one portable path component (a file or folder name dualgap creates): empty,
/// "." or "..", a '/' or '\\', invalid UTF-8, a control character, more than kMaxPathComponent
/// bytes. "" when it can. The one check of every name that becomes a path.
std::string path_component_problem(const std::string& s);

/// The experiment name becomes a folder under --out: one path component (at most 200 bytes).
void check_experiment_name(const std::string& name, const std::string& loc);

/// A run id (built from a solver name and its sweep values) becomes the run's folder: one path
/// component. `built_from` says what it was built from, `loc` where that is.
void check_run_id(const std::string& id, const std::string& built_from, const std::string& loc);

/// A sweep may vary what a run computes (data, features, oracle, problem, solvers, stop, record),
/// not the keys that name or seed runs (name, seed, repeats, sweep) nor unknown keys.
void check_sweep_key(const std::string& key, const std::string& loc);

/// "5s", "2m", "1h" -> seconds for stop.max_time / stop.deadline (in place).
void normalize_durations(json& stop, const Where& where);
/// stop needs a criterion that ends a run (else it runs to the watchdog); deadline > 0.
void check_stop(const json& stop, const Where& where);
/// record: geometric >= 1, and first > 0 when geometric > 1 (else the schedule never advances).
void check_record(const json& record, const Where& where);

/// The index of a list item named by a --set key component ("3"); ConfigError when too large.
std::size_t list_index(const std::string& part, std::size_t size, const std::string& origin,
                       const std::string& dotted);

}  // namespace dualgap::checks
