#include "experiment/config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <regex>
#include <optional>
#include <set>

#include "data/fetch/registry.hpp"
#include "experiment/config_checks.hpp"
#include "data/options.hpp"
#include "base/json_text.hpp"
#include "base/util.hpp"
#include "base/yaml.hpp"

namespace dualgap {
namespace fs = std::filesystem;

namespace {

/// The location of `pointer` in `where`, else of its closest enclosing value, else `file`.
std::string locate_in(const std::map<std::string, std::string>& where, const std::string& pointer,
                      const std::string& file) {
  auto it = where.find(pointer);
  if (it != where.end()) return it->second;
  // fall back to the closest enclosing value
  std::string p = pointer;
  while (!p.empty()) {
    auto slash = p.rfind('/');
    p = slash == std::string::npos ? "" : p.substr(0, slash);
    it = where.find(p);
    if (it != where.end()) return it->second;
  }
  return file;
}

}  // namespace

std::string LocatedJson::locate(const std::string& pointer) const { return locate_in(where, pointer, file); }

std::string RunSpec::locate(const std::string& pointer) const {
  const std::string file = config.contains("file") && config["file"].is_string() ? config["file"].get<std::string>() : "";
  const auto& own = pointer.rfind("/solver", 0) == 0 ? solver_where : where;
  return own ? locate_in(*own, pointer, file) : file;
}

namespace {

std::string mark_str(const std::string& file, const YAML::Mark& m) {
  if (m.line < 0 || file.rfind("--set '", 0) == 0) return file;  // a --set value: the argument is the place
  return fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1);
}

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string expand_vars(const std::string& s, const std::string& loc) {
  return expand_env_vars(s, [&](const std::string& name) {
    std::string hint = name == "DUALGAP_DATA"
                           ? " (set DUALGAP_DATA to the folder of the shared data sets, e.g. "
                             "export DUALGAP_DATA=../shared/data; see its README.md for provenance)"
                           : "";
    throw ConfigError(fmt::format("{}: environment variable {} is not set{}", loc, name, hint));
  });
}

json scalar_to_json(const YAML::Node& n, const std::string& loc, bool expand) {
  if (n.Tag() == "!") return expand ? expand_vars(n.Scalar(), loc) : n.Scalar();  // quoted: always a string
  const std::string s = expand ? expand_vars(n.Scalar(), loc) : n.Scalar();      // plain: typed after expansion
  if (s == "~" || s == "null" || s == "Null" || s == "NULL" || s.empty()) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex float_re(R"([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, float_re)) return checks::number_from_text(s, loc);
  return s;
}

json convert(const YAML::Node& n, const std::string& file, const std::string& pointer,
             std::map<std::string, std::string>& where, bool expand = true) {
  where[pointer] = mark_str(file, n.Mark());
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Scalar: return scalar_to_json(n, mark_str(file, n.Mark()), expand);
    case YAML::NodeType::Sequence: {
      json a = json::array();
      std::size_t i = 0;
      for (const auto& item : n) {
        a.push_back(convert(item, file, pointer + "/" + std::to_string(i), where, expand));
        ++i;
      }
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) {
        const std::string key = kv.first.as<std::string>();
        if (o.contains(key))
          throw ConfigError(fmt::format("{}: duplicate key '{}'", mark_str(file, kv.first.Mark()), key));
        const std::string p = pointer + "/" + escape_pointer(key);
        o[key] = convert(kv.second, file, p, where, expand);
        where[p + "#key"] = mark_str(file, kv.first.Mark());
      }
      return o;
    }
  }
  return nullptr;
}

}  // namespace

LocatedJson load_yaml(const std::string& path, bool expand) {
  LocatedJson out;
  out.file = path;
  if (!fs::exists(path)) throw ConfigError(path + ": experiment file not found");
  YAML::Node root;
  try {
    // ${VAR} inside a flow mapping ({plugin: x, train: ${DUALGAP_DATA}/a}) is not valid YAML
    // (braces are flow indicators): rewrite it to $(VAR), of the same length so that marks stay
    // exact, and expand $(VAR) in scalars.
    static const std::regex var_re(R"(\$\{([A-Za-z_][A-Za-z0-9_]*)\})");
    root = yaml::load(std::regex_replace(yaml::read_text(path), var_re, "$$($1)"), path);
  } catch (const yaml::Error& e) {
    throw ConfigError(e.what());
  }
  try {
    out.value = convert(root, path, "", out.where, expand);
  } catch (const YAML::Exception& e) {  // e.g. a key that is not a scalar (found by fuzz_experiment)
    throw ConfigError(fmt::format("{}: YAML error: {}", mark_str(path, e.mark), e.msg));
  }
  return out;
}

json parse_yaml_value(const std::string& text, const std::string& origin) {
  YAML::Node n;
  try {
    n = yaml::load(text, origin);
  } catch (const yaml::Error& e) {
    throw ConfigError(fmt::format("--set value '{}': {}", text, e.problem()));
  }
  std::map<std::string, std::string> where;
  try {
    return convert(n, origin, "", where);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("--set value '{}': YAML error: {}", text, e.msg));
  }
}

std::string set_dotted(json& root, const std::string& dotted, const json& value, const std::string& origin) {
  json* cur = &root;
  std::string pointer;
  std::size_t b = 0;
  std::vector<std::string> parts;
  while (b <= dotted.size()) {
    auto e = dotted.find('.', b);
    if (e == std::string::npos) e = dotted.size();
    parts.push_back(dotted.substr(b, e - b));
    b = e + 1;
  }
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::string& part = parts[k];
    if (part.empty()) throw ConfigError(fmt::format("{}: empty component in key '{}'", origin, dotted));
    const bool last = k + 1 == parts.size();
    if (cur->is_array()) {
      // index, or a solver's name
      json* found = nullptr;
      if (std::all_of(part.begin(), part.end(), ::isdigit)) {
        const auto idx = checks::list_index(part, cur->size(), origin, dotted);
        found = &(*cur)[idx];
        pointer += "/" + std::to_string(idx);
      } else {
        for (std::size_t i = 0; i < cur->size(); ++i) {
          json& item = (*cur)[i];
          if (item.is_object() && item.contains("name") && item["name"] == part) {
            found = &item;
            pointer += "/" + std::to_string(i);
          }
        }
        if (!found)
          throw ConfigError(fmt::format("{}: no list item named '{}' in '{}'", origin, part, dotted));
      }
      if (last) *found = value;
      else cur = found;
      continue;
    }
    if (cur->is_null()) *cur = json::object();
    if (!cur->is_object())
      throw ConfigError(fmt::format("{}: '{}' does not name a mapping at '{}'", origin, dotted, part));
    pointer += "/" + escape_pointer(part);
    if (last) (*cur)[part] = value;
    else cur = &(*cur)[part];
  }
  return pointer;
}

void LocatedJson::relocate(const std::string& pointer, const std::string& location) {
  for (auto it = where.begin(); it != where.end();) {
    const std::string& k = it->first;
    const bool inside = k.rfind(pointer, 0) == 0 && (k.size() == pointer.size() || k[pointer.size()] == '/' ||
                                                     k[pointer.size()] == '#');
    it = inside ? where.erase(it) : std::next(it);
  }
  where[pointer] = location;
  where[pointer + "#key"] = location;
}

namespace {

/// "solvers.B.params.M" -> "B" (a name or an index); nullopt for keys outside solvers.
std::optional<std::string> swept_solver(const std::string& key) {
  if (key.rfind("solvers.", 0) != 0) return std::nullopt;
  const auto end = key.find('.', 8);
  return key.substr(8, end == std::string::npos ? std::string::npos : end - 8);
}
std::string dotted_leaf(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

/// problem.reference: {value: F} or {solver: NAME} naming a solver of the experiment.
void check_reference(const LocatedJson& doc, const json& ref, const json& solvers) {
  const std::string where = doc.locate("/problem/reference");
  const bool value = ref.is_object() && ref.size() == 1 && ref.contains("value") && ref["value"].is_number();
  const bool solver = ref.is_object() && ref.size() == 1 && ref.contains("solver") && ref["solver"].is_string();
  if (!value && !solver)
    throw ConfigError(fmt::format("{}: problem.reference must be {{value: NUMBER}} (a known optimum) or "
                                  "{{solver: NAME}} (a solver of this experiment), got {}",
                                  where, json_text(ref)));
  if (solver) {
    std::vector<std::string> names;
    for (auto& sv : solvers)
      if (sv.is_object() && sv.contains("name") && sv["name"].is_string()) names.push_back(sv["name"]);
    if (std::find(names.begin(), names.end(), ref["solver"].get<std::string>()) == names.end())
      throw ConfigError(fmt::format("{}: problem.reference.solver '{}' is not a solver of this experiment (solvers: {})",
                                    where, ref["solver"].get<std::string>(), fmt::join(names, ", ")));
  }
}

const std::set<std::string> kTopKeys = {"name",    "description", "data",   "features", "oracle", "problem",
                                        "solvers", "stop",        "record", "repeats",  "seed",   "sweep",
                                        "executor"};  // executor: where runs execute (run/slurm.cpp), not what
const std::vector<ParamSpec>& stop_schema() {
  static const std::vector<ParamSpec> s = {
      {"max_passes", ParamType::real, nullptr, 0.0, {}, {}, "stop after this many passes", true},
      {"max_oracle_calls", ParamType::real, nullptr, 0.0, {}, {}, "stop after this many exact oracle calls", true},
      {"max_time", ParamType::real, nullptr, 0.0, {}, {}, "solver time budget in seconds (evaluation excluded)", true},
      {"gap", ParamType::real, nullptr, 0.0, {}, {}, "stop when the duality gap is at most this", true},
      {"rel_gap", ParamType::real, nullptr, 0.0, {}, {}, "stop when gap <= rel_gap * |primal|", true},
      {"deadline", ParamType::real, nullptr, 0.0, {}, {},
       "hard wall-clock limit of one run in seconds; the watchdog kills the run (status timeout)", true},
      {"diverge", ParamType::real, json(1e6), 0.0, {}, {},
       "status diverged when |primal| exceeds this factor times its first value (0: off; non-finite always diverges)"},
  };
  return s;
}
const std::vector<ParamSpec>& record_schema() {
  static const std::vector<ParamSpec> s = {
      {"every", ParamType::real, nullptr, 0.0, {}, {}, "a checkpoint every k passes", true},
      {"geometric", ParamType::real, nullptr, 1.0, {}, {}, "checkpoints at passes growing by this ratio", true},
      {"first", ParamType::real, nullptr, 0.0, {}, {}, "first checkpoint of the geometric schedule", true},
      {"every_time", ParamType::real, nullptr, 0.0, {}, {}, "also a checkpoint every this many solver seconds", true},
      {"iterates", ParamType::choice, json("final"), {}, {}, {"none", "final", "all"},
       "save the iterates as .npy beside run.json: none, the last checkpoint's, or every checkpoint's"},
      {"train_error", ParamType::boolean, json(true), {}, {}, {},
       "record the training error (for structured oracles: n more evaluation oracle calls per checkpoint)"},
  };
  return s;
}
const std::vector<ParamSpec>& problem_schema() {
  static const std::vector<ParamSpec> s = {
      {"lambda", ParamType::real, json("1/n"), 0.0, {}, {},
       "regularization; expressions in n (training examples), d, K, N (units) allowed, e.g. 1/n"},
      {"reference", ParamType::object, nullptr, {}, {}, {},
       "where no certified dual exists: {value: F} (the optimum, known) or {solver: NAME} (that solver's best "
       "primal over the group); compare plots suboptimality against it",
       true},
  };
  return s;
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == '=') ? c : '_';
  return out;
}

// Validates a plugin section {plugin: name, ...params} (params inline or under `params:`).
// `where`, when given, receives the section's location at `as` (its pointer in a run's config)
// and that of each parameter the file gives at `as`/params/KEY: where a rule against the data
// (Options::validate_data, checked once the data are prepared) reports the parameter.
json validate_plugin_section(const LocatedJson& doc, const json& section, const std::string& pointer, Kind kind,
                             const std::string& what, const PluginRegistry& reg, Locations* where_out = nullptr,
                             const std::string& as = "") {
  auto where = [&](const std::string& key) {
    return key.empty() ? doc.locate(pointer) : doc.locate(pointer + "/" + escape_pointer(key) + "#key");
  };
  if (!section.is_object())
    throw ConfigError(fmt::format("{}: {} must be a mapping with a 'plugin' key, got {}", doc.locate(pointer), what,
                                  json_text(section)));
  if (!section.contains("plugin") || !section["plugin"].is_string())
    throw ConfigError(fmt::format("{}: {} needs 'plugin: NAME' (available {} plugins: {})", doc.locate(pointer), what,
                                  to_string(kind), fmt::join(reg.names(kind), ", ")));
  const std::string name = section["plugin"];
  const LoadedPlugin* p = reg.find(kind, name);
  if (!p) {
    const std::string hint = unbuilt_plugin_hint(name, kind);
    const auto names = reg.names(kind);
    throw ConfigError(fmt::format("{}: unknown {} plugin '{}' (available: {}){}", doc.locate(pointer + "/plugin"),
                                  to_string(kind), name, names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", ")),
                                  hint.empty() ? "" : "; " + hint));
  }
  json given = json::object();
  for (auto& [k, v] : section.items()) {
    if (k == "plugin" || k == "name") continue;
    if (k == "params") {
      if (!v.is_object() && !v.is_null())
        throw ConfigError(fmt::format("{}: {}: 'params' must be a mapping", doc.locate(pointer + "/params"), what));
      if (v.is_object())
        for (auto& [pk, pv] : v.items()) given[pk] = pv;
      continue;
    }
    given[k] = v;
  }
  auto where_param = [&](const std::string& key) {
    if (key.empty()) return doc.locate(pointer);
    std::string a = pointer + "/params/" + escape_pointer(key) + "#key";
    if (doc.where.count(a)) return doc.where.at(a);
    return where(key);
  };
  if (where_out) {
    (*where_out)[as] = doc.locate(pointer);
    for (auto& [k, v] : given.items()) (*where_out)[as + "/params/" + escape_pointer(k)] = where_param(k);
  }
  // A dataset's section holds its own keys and the core's (data/options.hpp), checked together.
  const std::vector<ParamSpec> schema = kind == Kind::dataset ? data_schema(p->description->params) : p->description->params;
  json params = apply_schema(schema, given, what + " (plugin " + name + ")", where_param, nullptr);
  // Files named by path parameters must exist (defaults may use ${DUALGAP_DATA}).
  for (auto& spec : schema) {
    if (spec.type != ParamType::path || !params.contains(spec.name) || !params[spec.name].is_string()) continue;
    std::string value = params[spec.name];
    if (value.empty()) continue;
    const bool from_default = !given.contains(spec.name);
    const std::string loc = from_default ? where_param("") : where_param(spec.name);
    if (from_default) {
      value = expand_vars(value, fmt::format("{}: {} (plugin {}): default of parameter '{}'", loc, what, name, spec.name));
      params[spec.name] = value;
    }
    std::error_code ec;
    if (!fs::exists(value, ec)) {
      const char* data = std::getenv("DUALGAP_DATA");
      throw ConfigError(fmt::format(
          "{}: {} (plugin {}): parameter '{}': file not found: {} (DUALGAP_DATA is {}; the shared data sets and "
          "their provenance are described in shared/data/README.md){}",
          loc, what, name, spec.name, value, data ? std::string("'") + data + "'" : std::string("not set"),
          datafetch::fetch_hint(value)));
    }
  }
  // Rules across parameters (the plugin's Options::validate), reported at the plugin's entry.
  if (p->description->validate) {
    std::string problem;
    try {
      problem = p->description->validate(Params(params));
    } catch (const ParamError& e) {
      problem = e.what();
    }
    if (!problem.empty()) throw ConfigError(fmt::format("{}: {} (plugin {}): {}", doc.locate(pointer), what, name, problem));
  }
  return json{{"plugin", name}, {"params", params}};
}

/// Refuses an experiment that expands to more than kMaxExpandedRuns runs (or sweep points),
/// counted from the sizes alone, unless allowed. A sweep key under solvers.NAME multiplies the
/// runs of that solver only (as expand_experiment emits them).
void check_expansion_size(const LocatedJson& doc, const json& root,
                          const std::vector<std::pair<std::string, std::size_t>>& sweep_sizes, int repeats, bool allowed) {
  // Saturating products: a count past 2^62 is "more than the limit" all the same.
  constexpr std::uint64_t kSaturated = std::uint64_t{1} << 62;
  auto times = [&](std::uint64_t a, std::uint64_t b) { return b != 0 && a > kSaturated / b ? kSaturated : a * b; };
  std::uint64_t points = 1;
  for (const auto& [key, count] : sweep_sizes) points = times(points, count);
  std::uint64_t runs = 0;
  const json& solvers = root["solvers"];
  for (std::size_t s = 0; s < solvers.size(); ++s) {
    const std::string name = solvers[s].is_object() && solvers[s].contains("name") && solvers[s]["name"].is_string()
                                 ? solvers[s]["name"].get<std::string>()
                                 : std::string();
    std::uint64_t own = static_cast<std::uint64_t>(repeats);
    for (const auto& [key, count] : sweep_sizes) {
      const auto target = swept_solver(key);
      if (!target || *target == name || *target == std::to_string(s)) own = times(own, count);
    }
    runs = std::min(kSaturated, runs + own);
  }
  if (allowed || (runs <= kMaxExpandedRuns && points <= kMaxExpandedRuns)) return;
  std::vector<std::string> factors;
  factors.push_back(fmt::format("{} solver{}", solvers.size(), solvers.size() == 1 ? "" : "s"));
  factors.push_back(fmt::format("repeats {} ({})", repeats, root.contains("repeats") ? doc.locate("/repeats") : "default"));
  for (const auto& [key, count] : sweep_sizes) {
    const auto target = swept_solver(key);
    factors.push_back(fmt::format("sweep.{} {} values{} ({})", key, count, target ? " (solver " + *target + " only)" : "",
                                  doc.locate("/sweep/" + escape_pointer(key))));
  }
  auto shown = [&](std::uint64_t n) { return n >= kSaturated ? std::string("more than 2^62") : std::to_string(n); };
  const bool by_points = points > kMaxExpandedRuns && runs <= kMaxExpandedRuns;
  throw ConfigError(fmt::format(
      "{}: the experiment expands to {} {}, more than the {} dualgap expands without --allow-large; the factors: {} "
      "(each expanded run holds its whole configuration in memory: see 'Experiment size' in README.md)",
      doc.file, shown(by_points ? points : runs), by_points ? "sweep points" : "runs", kMaxExpandedRuns,
      fmt::join(factors, " x ")));
}

// The steps of expand_experiment (check_expansion_size above is one), in the order it takes
// them. The order is part of the behaviour: of several mistakes in one file, the first step's is
// the one reported.

/// What every run of the experiment carries from its own keys.
struct Header {
  std::string name;
  int repeats = 1;
  std::uint64_t seed = 0;
};

/// The sections the runs of one sweep point share, validated; the solver section is each run's own.
struct Shared {
  json data, features, oracle, problem, stop, record;
  std::string group_text;  ///< what group_key hashes: the problem, up to its seeds
  /// Where data, features and oracle were written, by their pointers in a run's config.
  std::shared_ptr<Locations> where = std::make_shared<Locations>();
};

/// One solver at one sweep point, validated and paired with the experiment's oracle.
struct SolverPoint {
  std::size_t index = 0;
  std::string name;
  json solver;                  ///< {plugin, params, name}
  std::shared_ptr<const Locations> where;  ///< of the solver section, by its pointers in a run's config
  json point = json::object();  ///< the sweep values that apply to this solver
  std::string label;            ///< its series: the name, plus the swept values of its own keys
};

/// "KEY=VALUE" of a swept value, as a run id and a series label show it (strings unquoted).
std::string swept_text(const std::string& key, const json& value) {
  return dotted_leaf(key) + "=" + (value.is_string() ? value.get<std::string>() : json_text(value));
}

/// "file:line:col" of a key in a top-level section ("" = the section itself), for the checks.
checks::Where section_where(const LocatedJson& doc, const std::string& section) {
  return [&doc, section](const std::string& key) {
    return key.empty() ? doc.locate("/" + section) : doc.locate("/" + section + "/" + escape_pointer(key) + "#key");
  };
}


// Checks the top-level keys and reads those that name and seed the runs: the size of the
// expansion (counted next) depends on them.
Header read_header(const LocatedJson& doc) {
  const json& root = doc.value;
  for (auto& [k, v] : root.items())
    if (!kTopKeys.count(k))
      throw ConfigError(fmt::format("{}: unknown key '{}' (valid keys: {})", doc.locate("/" + escape_pointer(k) + "#key"), k,
                                    fmt::join(kTopKeys, ", ")));
  for (const char* required : {"name", "data", "solvers"})
    if (!root.contains(required)) throw ConfigError(fmt::format("{}: missing required key '{}'", doc.file, required));
  if (!root["name"].is_string()) throw ConfigError(fmt::format("{}: 'name' must be a string", doc.locate("/name")));
  Header h;
  h.name = root["name"];
  checks::check_experiment_name(h.name, doc.locate("/name"));
  if (!root["solvers"].is_array() || root["solvers"].empty())
    throw ConfigError(fmt::format("{}: 'solvers' must be a non-empty list of {{name, plugin, params}}", doc.locate("/solvers")));
  if (root.contains("repeats")) h.repeats = checks::repeats_value(root["repeats"], doc.locate("/repeats"));
  if (root.contains("seed")) h.seed = checks::seed_value(root["seed"], doc.locate("/seed"));
  return h;
}

// The sweep's keys and the lengths of their lists, checked: the expansion is counted from these
// before anything is expanded (each expanded run holds its whole configuration, README
// "Experiment size": 100 x 100 x 100 values or repeats: 1000000 would take gigabytes).
std::vector<std::pair<std::string, std::size_t>> sweep_sizes(const LocatedJson& doc) {
  std::vector<std::pair<std::string, std::size_t>> sizes;
  if (!doc.value.contains("sweep")) return sizes;
  const json& sweep = doc.value["sweep"];
  if (!sweep.is_object())
    throw ConfigError(fmt::format("{}: sweep must map dotted keys to lists of values", doc.locate("/sweep")));
  for (auto& [key, values] : sweep.items()) {
    checks::check_sweep_key(key, doc.locate("/sweep/" + escape_pointer(key) + "#key"));
    if (!values.is_array() || values.empty())
      throw ConfigError(fmt::format("{}: sweep.{} must be a non-empty list", doc.locate("/sweep/" + escape_pointer(key)), key));
    sizes.emplace_back(key, values.size());
  }
  return sizes;
}

// The sweep's cross product, one point (dotted key -> value) per combination: keys in name order,
// the first varying slowest, each key's values in the order the file lists them. This order is
// the order of the runs, so of --shard's shares.
std::vector<json> sweep_points(const json& root, const std::vector<std::pair<std::string, std::size_t>>& sizes) {
  std::vector<json> points = {json::object()};
  for (const auto& [key, count] : sizes) {
    const json& values = root.at("sweep").at(key);
    std::vector<json> next;
    next.reserve(points.size() * count);
    for (auto& p : points)
      for (auto& v : values) {
        json q = p;
        q[key] = v;
        next.push_back(q);
      }
    points = std::move(next);
  }
  return points;
}

// Every solver has a name, and no two the same: the name makes its run ids and series.
void check_solver_names(const LocatedJson& doc) {
  std::set<std::string> names;
  const json& solvers = doc.value["solvers"];
  for (std::size_t s = 0; s < solvers.size(); ++s) {
    const json& sv = solvers[s];
    const std::string ptr = "/solvers/" + std::to_string(s);
    if (!sv.is_object() || !sv.contains("name") || !sv["name"].is_string())
      throw ConfigError(fmt::format("{}: each solver needs 'name' and 'plugin'", doc.locate(ptr)));
    if (!names.insert(sv["name"].get<std::string>()).second)
      throw ConfigError(fmt::format("{}: duplicate solver name '{}'", doc.locate(ptr + "/name"), sv["name"].get<std::string>()));
  }
}

// The configuration of one sweep point: the file's, with the point's values set, each reported at
// its sweep key from now on. sweep and executor are dropped: neither is part of a run's
// configuration or config hash.
json point_config(LocatedJson& doc, const json& point) {
  json cfg = doc.value;
  cfg.erase("sweep");
  cfg.erase("executor");
  for (auto& [key, value] : point.items()) {
    const std::string at = doc.locate("/sweep/" + escape_pointer(key) + "#key");
    doc.relocate(set_dotted(cfg, key, value, fmt::format("{}: sweep.{}", at, key)), at);
  }
  return cfg;
}

// The data section, validated by its plugin. `validation: F` is the core's, not the plugin's:
// hold out F of the training set as the evaluation set (the test set is dropped), for choosing
// hyperparameters without the test set.
json validate_data(const LocatedJson& doc, const json& cfg, const PluginRegistry& reg, Locations& where) {
  json section = cfg["data"];
  json validation = nullptr;
  if (section.is_object() && section.contains("validation")) {
    validation = section["validation"];
    section.erase("validation");
    if (!validation.is_number() || !(validation.get<double>() > 0.0 && validation.get<double>() < 1.0))
      throw ConfigError(fmt::format("{}: data: 'validation' must be a number in (0, 1) (the fraction of the training "
                                    "set held out as the evaluation set), got {}",
                                    doc.locate("/data/validation"), json_text(validation)));
  }
  json data = validate_plugin_section(doc, section, "/data", Kind::dataset, "data", reg, &where, "/data");
  if (!validation.is_null()) data["validation"] = validation;
  return data;
}

// The features list, each entry validated by its plugin (none: an empty list).
json validate_features(const LocatedJson& doc, const json& cfg, const PluginRegistry& reg, Locations& where) {
  json features = json::array();
  if (!cfg.contains("features") || cfg["features"].is_null()) return features;
  if (!cfg["features"].is_array())
    throw ConfigError(fmt::format("{}: features must be a list of {{plugin: NAME, ...}}", doc.locate("/features")));
  for (std::size_t f = 0; f < cfg["features"].size(); ++f)
    features.push_back(validate_plugin_section(doc, cfg["features"][f], "/features/" + std::to_string(f), Kind::features,
                                               "features[" + std::to_string(f) + "]", reg, &where,
                                               "/features/" + std::to_string(f)));
  return features;
}

// Validates the sections all solvers of a sweep point share (data, features, oracle, problem,
// stop, record) once per point, before any solver's, and with defaults applied: what run.json
// records and the config hash covers.
Shared validate_sections(const LocatedJson& doc, const json& cfg, const PluginRegistry& reg) {
  Shared s;
  s.data = validate_data(doc, cfg, reg, *s.where);
  s.features = validate_features(doc, cfg, reg, *s.where);
  s.oracle = nullptr;
  if (cfg.contains("oracle") && !cfg["oracle"].is_null())
    s.oracle = validate_plugin_section(doc, cfg["oracle"], "/oracle", Kind::oracle, "oracle", reg, s.where.get(), "/oracle");
  s.problem = apply_schema(problem_schema(), cfg.value("problem", json::object()), "problem",
                           section_where(doc, "problem"), nullptr);
  if (s.problem.contains("reference")) check_reference(doc, s.problem["reference"], cfg["solvers"]);
  json stop_in = cfg.value("stop", json::object());
  checks::normalize_durations(stop_in, section_where(doc, "stop"));
  s.stop = apply_schema(stop_schema(), stop_in, "stop", section_where(doc, "stop"), nullptr);
  checks::check_stop(s.stop, section_where(doc, "stop"));
  s.record = apply_schema(record_schema(), cfg.value("record", json::object()), "record", section_where(doc, "record"),
                          nullptr);
  checks::check_record(s.record, section_where(doc, "record"));
  s.group_text = json_text(json{{"data", s.data}, {"features", s.features}, {"oracle", s.oracle}, {"problem", s.problem}});
  return s;
}

// Validates solver `s` and pairs it with the oracle: a solver that declares the interfaces it
// accepts needs an oracle offering one of them (both are data of the plugins' descriptions).
json pair_solver(const LocatedJson& doc, const json& cfg, std::size_t s, const json& oracle, const PluginRegistry& reg,
                 Locations& where) {
  const json& sv = cfg["solvers"][s];
  const std::string ptr = "/solvers/" + std::to_string(s);
  const std::string name = sv["name"];
  json solver = validate_plugin_section(doc, sv, ptr, Kind::solver, "solver '" + name + "'", reg, &where, "/solver");
  solver["name"] = name;
  std::vector<std::string> offered;
  if (!oracle.is_null()) offered = reg.get(Kind::oracle, oracle["plugin"]).description->interfaces;
  const auto& accepts = reg.get(Kind::solver, solver["plugin"]).description->accepts;
  if (accepts.empty()) return solver;
  for (auto& a : accepts)
    if (std::find(offered.begin(), offered.end(), a) != offered.end()) return solver;
  throw ConfigError(fmt::format(
      "{}: solver '{}' (plugin {}) needs an oracle offering one of [{}], but {} offers [{}]", doc.locate(ptr), name,
      solver["plugin"].get<std::string>(), fmt::join(accepts, ", "),
      oracle.is_null() ? std::string("the experiment (no oracle)") : "oracle '" + oracle["plugin"].get<std::string>() + "'",
      fmt::join(offered, ", ")));
}

// A sweep key under solvers.NAME (or solvers.INDEX) varies that solver only: the other solvers
// run once per value of the remaining keys, and the swept values of its own keys label its series.
SolverPoint solver_point(std::size_t s, json solver, const json& point, Locations where) {
  SolverPoint sp;
  sp.index = s;
  sp.where = std::make_shared<const Locations>(std::move(where));
  sp.name = solver["name"];
  sp.solver = std::move(solver);
  std::vector<std::string> label_parts;
  for (auto& [k, v] : point.items()) {
    const auto target = swept_solver(k);
    if (target && *target != sp.name && *target != std::to_string(s)) continue;
    sp.point[k] = v;
    if (target) label_parts.push_back(swept_text(k, v));
  }
  sp.label = label_parts.empty() ? sp.name : fmt::format("{}[{}]", sp.name, fmt::join(label_parts, ","));
  return sp;
}

// A run's id names its folder: the solver's name, its own swept values and the repeat, each made
// a portable file name. An id that is not one path component is reported at its longest part
// (the solver's name or one swept value), the one to shorten.
std::string run_id(const LocatedJson& doc, const SolverPoint& sp, int repeat) {
  std::string id = sanitize(sp.name);
  for (auto& [k, v] : sp.point.items()) id += "__" + sanitize(swept_text(k, v));
  id += "__r" + std::to_string(repeat);
  if (checks::path_component_problem(id).empty()) return id;
  std::string loc = doc.locate("/solvers/" + std::to_string(sp.index) + "/name"), from = "the solver name";
  std::size_t longest = sanitize(sp.name).size();
  for (auto& [k, v] : sp.point.items()) {
    const std::size_t n = sanitize(swept_text(k, v)).size();
    if (n > longest) {
      longest = n;
      loc = doc.locate("/sweep/" + escape_pointer(k));
      from = "the value of sweep." + k;
    }
  }
  checks::check_run_id(id, from, loc);
  return id;
}

// The runs of one solver at one sweep point, one per repeat: the configuration run.json records;
// the seeds, derived from the experiment's seed and the repeat (not from the run's position, so
// that --only and shards keep them); and the keys compare groups runs by.
std::vector<RunSpec> make_runs(const LocatedJson& doc, const Header& h, const std::vector<std::string>& sets,
                               const Shared& shared, const SolverPoint& sp) {
  std::vector<RunSpec> runs;
  for (int r = 0; r < h.repeats; ++r) {
    RunSpec run;
    run.where = shared.where;
    run.solver_where = sp.where;
    run.experiment = h.name;
    run.solver_name = sp.name;
    run.label = sp.label;
    run.repeat = r;
    run.sweep_point = sp.point;
    json seeds = {{"data", derive_seed(h.seed, "data", r)},
                  {"features", derive_seed(h.seed, "features", r)},
                  {"solver", derive_seed(h.seed, "solver:" + sp.name, r)}};
    run.config = {{"name", h.name},          {"file", doc.file},         {"data", shared.data},
                  {"features", shared.features}, {"oracle", shared.oracle}, {"problem", shared.problem},
                  {"solver", sp.solver},     {"stop", shared.stop},      {"record", shared.record},
                  {"seed", h.seed},          {"repeat", r},              {"seeds", seeds},
                  {"sweep_point", sp.point}, {"label", sp.label},        {"sets", sets}};
    run.run_id = run_id(doc, sp, r);
    Hash64 g;
    g.add(shared.group_text);
    run.group_key = g.hex();
    g.add(json_text(seeds["data"]));
    g.add(json_text(seeds["features"]));
    run.problem_key = g.hex();
    runs.push_back(std::move(run));
  }
  return runs;
}

// Run ids name folders: two runs with one id would write over each other.
void check_unique_ids(const std::vector<RunSpec>& runs, const std::string& path) {
  std::set<std::string> ids;
  for (auto& r : runs)
    if (!ids.insert(r.run_id).second)
      throw ConfigError(fmt::format("{}: two runs would share the id '{}' (rename a solver)", path, r.run_id));
}

}  // namespace

// Before anything is checked: an overridden value is validated as if the file said it, and
// reported at its argument.
void apply_overrides(LocatedJson& doc, const std::vector<std::string>& sets) {
  for (const auto& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(fmt::format("--set '{}': expected key=value (e.g. stop.max_passes=10)", s));
    const std::string key = s.substr(0, eq);
    json value = parse_yaml_value(s.substr(eq + 1), fmt::format("--set '{}'", s));
    // A sweep's keys are dotted paths themselves: `sweep.problem.lambda=[1e-5]` sets (or adds)
    // the sweep key `problem.lambda`, it does not build a nested `sweep.problem` mapping.
    if (key.rfind("sweep.", 0) == 0 && key.size() > 6) {
      json& sweep = doc.value["sweep"];
      if (sweep.is_null()) sweep = json::object();
      if (!sweep.is_object()) throw ConfigError(fmt::format("--set {}: 'sweep' is not a mapping", s));
      sweep[key.substr(6)] = std::move(value);
      doc.relocate("/sweep/" + escape_pointer(key.substr(6)), fmt::format("--set '{}'", s));
    } else {
      doc.relocate(set_dotted(doc.value, key, value, fmt::format("--set '{}'", s)), fmt::format("--set '{}'", s));
    }
  }
}

std::vector<RunSpec> expand_experiment(const std::string& path, const ExpandOptions& opts, const PluginRegistry& reg) {
  LocatedJson doc = load_yaml(path);
  if (!doc.value.is_object()) throw ConfigError(path + ": an experiment file must be a YAML mapping");
  apply_overrides(doc, opts.sets);
  const Header header = read_header(doc);
  const auto sizes = sweep_sizes(doc);
  check_expansion_size(doc, doc.value, sizes, header.repeats, opts.allow_large);
  const std::vector<json> points = sweep_points(doc.value, sizes);
  check_solver_names(doc);
  std::vector<RunSpec> runs;
  std::set<std::string> emitted;  // a solver with its own sweep point: its runs once, whatever the others' keys
  for (const json& point : points) {
    const json cfg = point_config(doc, point);
    const Shared shared = validate_sections(doc, cfg, reg);
    for (std::size_t s = 0; s < cfg["solvers"].size(); ++s) {
      Locations where;
      json solver = pair_solver(doc, cfg, s, shared.oracle, reg, where);
      const SolverPoint sp = solver_point(s, std::move(solver), point, std::move(where));
      if (!emitted.insert(sp.name + "\n" + json_text(sp.point)).second) continue;
      for (RunSpec& run : make_runs(doc, header, opts.sets, shared, sp)) runs.push_back(std::move(run));
    }
  }
  check_unique_ids(runs, path);
  return runs;
}

}  // namespace dualgap
