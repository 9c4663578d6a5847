// Plugin description and the one exported symbol.
//
// Each plugin library exports exactly one symbol, `dualgap_plugin` (BOOST_DLL_ALIAS), a
// function returning a PluginHeader: a plain C struct whose layout never changes, so a loader
// can read the API version of a plugin built against any dualgap before touching anything
// else. The header points to the PluginDescription (kind, name, version, summary, schema,
// factory). Write:
//
//   dualgap::PluginDescription describe() {
//     return dualgap::describe_plugin<MyOracle>(dualgap::Kind::oracle, "my_oracle", "1.0.0",
//         "One line: what it is (Author et al., Venue Year)", { ...ParamSpec... });
//   }
//   DUALGAP_PLUGIN(describe)
#pragma once

#include <boost/dll/alias.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dualgap/api.hpp"
#include "dualgap/dataset.hpp"
#include "dualgap/features.hpp"
#include "dualgap/oracle.hpp"
#include "dualgap/params.hpp"
#include "dualgap/solver.hpp"

namespace dualgap {

enum class Kind { dataset = 0, features = 1, oracle = 2, solver = 3 };
DUALGAP_API const char* to_string(Kind k);
DUALGAP_API bool parse_kind(const std::string& s, Kind& out);

struct PluginDescription {
  Kind kind = Kind::solver;
  std::string name;
  std::string version;
  std::string summary;              ///< one line, citing the paper it follows
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<PluginObject>(const Params&)> create;
  /// Eigen's alignment as the plugin was compiled (dualgap/eigen_abi.hpp): the loader refuses a
  /// plugin whose value differs from the core's, as they would free each other's memory wrongly.
  int eigen_max_align_bytes = kEigenMaxAlignBytes;
};

/// Stable C layout: never reorder or change these fields.
struct PluginHeader {
  int api_version;
  int kind;
  const char* name;
  const PluginDescription* description;  ///< valid only when api_version == kApiVersion
};

template <class T>
PluginDescription describe_plugin(Kind kind, std::string name, std::string version,
                                  std::string summary, std::vector<ParamSpec> params) {
  PluginDescription d;
  d.kind = kind;
  d.name = std::move(name);
  d.version = std::move(version);
  d.summary = std::move(summary);
  d.params = std::move(params);
  d.create = [](const Params& p) -> std::unique_ptr<PluginObject> { return std::make_unique<T>(p); };
  return d;
}

}  // namespace dualgap

#define DUALGAP_PLUGIN(DESCRIBE_FN)                                                         \
  namespace dualgap_plugin_detail {                                                         \
  const ::dualgap::PluginHeader* header() {                                                 \
    static const ::dualgap::PluginDescription description = DESCRIBE_FN();                  \
    static const ::dualgap::PluginHeader h{::dualgap::kApiVersion,                          \
                                           static_cast<int>(description.kind),              \
                                           description.name.c_str(), &description};         \
    return &h;                                                                              \
  }                                                                                         \
  BOOST_DLL_ALIAS(dualgap_plugin_detail::header, dualgap_plugin)                            \
  }
