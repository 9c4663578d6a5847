#include "experiment/data_rules.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "experiment/schema.hpp"

namespace dualgap {

namespace {

Kind kind_of(const std::string& pointer) {
  if (pointer == "/oracle") return Kind::oracle;
  if (pointer == "/solver") return Kind::solver;
  if (pointer.rfind("/features/", 0) == 0) return Kind::features;
  if (pointer == "/data") return Kind::dataset;
  throw std::logic_error("check_data_rules: no plugin section at " + pointer);
}

/// The section as the experiment's messages name it: "oracle", "solver 'B'", "features[0]".
std::string what_of(const json& section, const std::string& pointer) {
  if (pointer == "/solver") return fmt::format("solver '{}'", section.value("name", std::string()));
  if (pointer.rfind("/features/", 0) == 0) return fmt::format("features[{}]", pointer.substr(10));
  return pointer.substr(1);
}

std::string shape_text(const DataShape& s) {
  std::string units = s.structured ? fmt::format(" ({} units)", s.N) : "";
  return fmt::format("{} training examples{}, {} features, {} classes", s.n, units, s.d, s.K);
}

}  // namespace

DataShape data_shape(const Examples& train, const json& source) {
  DataShape s;
  s.n = static_cast<std::int64_t>(train.num_examples());
  s.N = static_cast<std::int64_t>(train.num_units());
  s.d = static_cast<std::int64_t>(train.num_features());
  s.K = train.num_classes;
  s.structured = train.structured();
  s.edges = train.has_edges();
  s.sparse = train.X.is_sparse();
  const json* map = nullptr;
  if (source.is_object() && source.contains("label_map")) map = &source["label_map"];
  const bool named = map && map->is_array() && map->size() == static_cast<std::size_t>(s.K) &&
                     std::all_of(map->begin(), map->end(), [](const json& n) { return n.is_string(); });
  for (int k = 0; k < s.K; ++k) s.class_names.push_back(named ? (*map)[k].get<std::string>() : std::to_string(k));
  return s;
}

json expression_vars(const DataShape& s) {
  return {{"n", static_cast<double>(s.n)}, {"N", static_cast<double>(s.N)}, {"d", static_cast<double>(s.d)},
          {"K", static_cast<double>(s.K)}};
}

bool has_data_rules(const json& cfg, const std::string& pointer, const PluginRegistry& reg) {
  const json::json_pointer at(pointer);
  if (!cfg.contains(at) || !cfg[at].is_object()) return false;
  const LoadedPlugin* p = reg.find(kind_of(pointer), cfg[at]["plugin"].get<std::string>());
  return p && p->description->validate_data;
}

void check_data_rules(const json& cfg, const std::string& pointer, const DataShape& shape, const PluginRegistry& reg,
                      const Locate& locate) {
  if (!has_data_rules(cfg, pointer, reg)) return;
  const json& section = cfg[json::json_pointer(pointer)];
  const std::string plugin = section["plugin"];
  const LoadedPlugin& p = reg.get(kind_of(pointer), plugin);
  const json given = section.contains("params") ? section["params"] : json::object();
  ParamIssue issue;
  try {
    issue = p.description->validate_data(Params(resolve_expressions(p.description->params, given, expression_vars(shape))), shape);
  } catch (const ParamError& e) {
    issue = {"", e.what()};
  }
  if (issue.message.empty()) return;
  auto where = [&](const std::string& ptr) {
    if (locate) return locate(ptr);
    return cfg.contains("file") && cfg["file"].is_string() ? cfg["file"].get<std::string>() : std::string();
  };
  const bool named = !issue.param.empty();
  const std::string loc = where(named ? pointer + "/params/" + issue.param : pointer);
  throw ConfigError(fmt::format("{}: {} (plugin {}): {}{} (checked against the prepared data: {})", loc,
                                what_of(section, pointer), plugin,
                                named ? "parameter '" + issue.param + "': " : std::string(), issue.message,
                                shape_text(shape)));
}

}  // namespace dualgap
