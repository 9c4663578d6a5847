#include "dualgap/plugin.hpp"

#include <stdexcept>

namespace dualgap {

PluginObject::~PluginObject() = default;
DatasetPlugin::~DatasetPlugin() = default;
FeatureGenerator::~FeatureGenerator() = default;
Solver::~Solver() = default;
Recorder::~Recorder() = default;
void Recorder::begin_restart(const std::string& budget, double) {
  throw std::logic_error("this recorder has no sampling mode (restart with budget '" + budget + "')");
}

const char* to_string(Kind k) {
  switch (k) {
    case Kind::dataset: return "dataset";
    case Kind::features: return "features";
    case Kind::oracle: return "oracle";
    case Kind::solver: return "solver";
  }
  return "?";
}

bool parse_kind(const std::string& s, Kind& out) {
  for (Kind k : {Kind::dataset, Kind::features, Kind::oracle, Kind::solver})
    if (s == to_string(k)) { out = k; return true; }
  return false;
}

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::boolean: return "bool";
    case ParamType::integer: return "int";
    case ParamType::real: return "real";
    case ParamType::string: return "string";
    case ParamType::choice: return "choice";
    case ParamType::path: return "path";
    case ParamType::real_list: return "list of real";
    case ParamType::int_list: return "list of int";
    case ParamType::string_list: return "list of string";
    case ParamType::object: return "mapping";
  }
  return "?";
}

}  // namespace dualgap
