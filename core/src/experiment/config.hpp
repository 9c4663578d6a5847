// Experiment files: YAML -> validated, expanded runs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugins/loader.hpp"
#include "experiment/schema.hpp"

namespace dualgap {

/// A JSON document with the source location of every value ("file:line:col").
struct LocatedJson {
  json value;
  std::map<std::string, std::string> where;  ///< JSON pointer -> location
  std::string file;
  std::string locate(const std::string& pointer) const;
  /// Reports the value at `pointer` (and everything below it) at `location` from now on: a value
  /// replaced by --set or a sweep is reported there, not at the file's original key.
  void relocate(const std::string& pointer, const std::string& location);
};

/// Parses a YAML file into JSON, keeping locations; ${VAR} expanded in strings (`expand` false:
/// kept as "$(VAR)", for a reader that needs no path, e.g. check comparing a run's protocol).
/// Throws ConfigError naming file:line:column (YAML syntax, undefined variable).
DUALGAP_API LocatedJson load_yaml(const std::string& path, bool expand = true);

/// Applies --set overrides ("key=value": dotted keys, `sweep.KEY` sets a sweep's list) to an
/// experiment document, each value reported at its argument from now on. Throws ConfigError.
DUALGAP_API void apply_overrides(LocatedJson& doc, const std::vector<std::string>& sets);
/// Parses a YAML scalar/flow value given on the command line (e.g. "1e-3", "[1, 2]").
DUALGAP_API json parse_yaml_value(const std::string& text, const std::string& origin = "--set");

/// Where each value of a run's config was written: JSON pointer into RunSpec::config
/// ("/oracle", "/oracle/params/class_cost", "/solver/params/M") -> "file:line:col", or the
/// --set argument or sweep entry that gave it.
using Locations = std::map<std::string, std::string>;

/// One run of an experiment: everything resolved except expressions in n, d, K.
struct RunSpec {
  std::string experiment;
  std::string run_id;
  std::string solver_name;
  std::string label;                  ///< the series: solver name, plus swept values of its own parameters ("B[M=2]")
  int repeat = 0;
  json sweep_point = json::object();  ///< dotted key -> value
  json config;                        ///< the resolved configuration (what run.json records)
  std::string problem_key;            ///< same problem, same seeds (for reference bounds)
  std::string group_key;              ///< same problem up to seeds (for bands over repeats)
  /// The plugin sections' locations: those every run of its sweep point shares (data, features,
  /// oracle), and its solver's (shared by its repeats); null: none known.
  std::shared_ptr<const Locations> where, solver_where;
  /// The location of `pointer` in the config, else of its closest enclosing value, else the
  /// experiment file.
  std::string locate(const std::string& pointer) const;
};

/// Most runs (and sweep points) an experiment expands to without ExpandOptions::allow_large:
/// the count is taken from the sizes of repeats, solvers and sweep lists before anything is
/// expanded (README.md, "Experiment size", states the memory per expanded run).
inline constexpr std::uint64_t kMaxExpandedRuns = 100000;

struct ExpandOptions {
  std::vector<std::string> sets;  ///< "key=value" overrides
  bool allow_large = false;       ///< expand more than kMaxExpandedRuns runs (--allow-large)
};

/// Loads, overrides, validates and expands an experiment. Throws ConfigError.
DUALGAP_API std::vector<RunSpec> expand_experiment(const std::string& path, const ExpandOptions& opts,
                                                   const PluginRegistry& registry);

/// Applies one dotted-key assignment (solvers may be addressed by index or by name); returns the
/// JSON pointer of the value it set.
DUALGAP_API std::string set_dotted(json& root, const std::string& dotted, const json& value,
                            const std::string& origin);

}  // namespace dualgap
