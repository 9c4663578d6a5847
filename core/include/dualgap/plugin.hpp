// Plugin description and the one exported symbol.
//
// Each plugin library exports exactly one symbol, `dualgap_plugin` (BOOST_DLL_ALIAS), a
// function returning a PluginHeader: a plain C struct whose layout never changes, so a loader
// can read the API version of a plugin built against any dualgap before touching anything
// else. The header points to the PluginDescription (kind, name, version, summary, schema,
// the oracle interfaces offered or accepted, the options' rules, their rules against the data,
// factory). Write:
//
//   class MySolver final : public dualgap::Solver {
//    public:
//     struct Options { ... static void bind(dualgap::Binder<Options>& b); };  // dualgap/options.hpp
//     explicit MySolver(const Options& o);
//     ...
//   };
//   dualgap::PluginDescription describe() {
//     return dualgap::describe_solver<MySolver>("my_solver", "1.0.0",
//         "One line: what it is (Author et al., Venue Year)", {"structured"});
//   }
//   DUALGAP_PLUGIN(describe)
//
// The schema comes from T::Options (none if T has no Options: T is then default-constructed),
// the factory hands T a filled and validated Options. describe_oracle<T> takes the interfaces
// from the interface class T implements (T::interfaces()); describe_features<T> and
// describe_dataset<T> need nothing more.
#pragma once

#include <boost/dll/alias.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dualgap/api.hpp"
#include "dualgap/dataset.hpp"
#include "dualgap/features.hpp"
#include "dualgap/options.hpp"
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
  std::vector<std::string> accepts;     ///< solvers: oracle interfaces they work with (empty: no oracle needed)
  std::vector<std::string> interfaces;  ///< oracles: the interfaces they implement, e.g. {"structured"}
  /// The options' cross-parameter rules (Options::validate) on schema-checked parameters: ""
  /// when they hold (or the plugin has none), else what is wrong. A real parameter still written
  /// as an expression ("1/n") is unknown before the data is loaded; while one is, the rules are
  /// checked only when the object is created.
  std::function<std::string(const Params&)> validate;
  /// The options' rules against the prepared data (Options::validate_data) on validated,
  /// evaluated parameters: an empty message when they hold. Empty (no function) when the plugin
  /// has none: the core then needs no prepared data to check it.
  std::function<ParamIssue(const Params&, const DataShape&)> validate_data;
  /// Creates the object from validated, evaluated parameters; throws ParamError when the
  /// options' rules fail.
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

namespace plugin_detail {

struct NoOptions {
  static void bind(Binder<NoOptions>&) {}
};
template <class T>
struct options_of {
  using type = NoOptions;
};
template <class T>
  requires requires { typename T::Options; }
struct options_of<T> {
  using type = typename T::Options;
};

/// Schema, rules and factory of T from its Options.
template <class T>
PluginDescription describe_with_options(Kind kind, std::string name, std::string version, std::string summary) {
  using O = typename options_of<T>::type;
  static_assert(BindableOptions<O>, "T::Options needs a default constructor and static void bind(Binder<Options>&)");
  PluginDescription d;
  d.kind = kind;
  d.name = std::move(name);
  d.version = std::move(version);
  d.summary = std::move(summary);
  d.params = binder_of<O>().schema();
  d.validate = [](const Params& p) {
    std::vector<std::string> unresolved;
    const O o = binder_of<O>().read(p, &unresolved);
    return unresolved.empty() ? validation_error(o) : std::string();
  };
  if constexpr (DataValidatedOptions<O>)
    d.validate_data = [](const Params& p, const DataShape& data) {
      return data_validation_issue(binder_of<O>().read(p), data);
    };
  d.create = [plugin = d.name](const Params& p) -> std::unique_ptr<PluginObject> {
    O o;
    try {
      o = read_options<O>(p);
    } catch (const ParamError& e) {
      throw ParamError(plugin + ": " + e.what());
    }
    if constexpr (std::is_constructible_v<T, const O&>) return std::make_unique<T>(o);
    else return std::make_unique<T>();
  };
  return d;
}

}  // namespace plugin_detail

/// A solver plugin; `accepts` names the oracle interfaces it works with ({}: it needs no oracle).
template <class T>
PluginDescription describe_solver(std::string name, std::string version, std::string summary,
                                  std::vector<std::string> accepts) {
  static_assert(std::is_base_of_v<Solver, T>, "describe_solver: T must derive from dualgap::Solver");
  auto d = plugin_detail::describe_with_options<T>(Kind::solver, std::move(name), std::move(version), std::move(summary));
  d.accepts = std::move(accepts);
  return d;
}

/// An oracle plugin; its interfaces are those of the interface class it implements.
template <class T>
PluginDescription describe_oracle(std::string name, std::string version, std::string summary) {
  static_assert(std::is_base_of_v<Oracle, T>, "describe_oracle: T must derive from dualgap::Oracle");
  auto d = plugin_detail::describe_with_options<T>(Kind::oracle, std::move(name), std::move(version), std::move(summary));
  d.interfaces = T::interfaces();
  return d;
}

/// A features plugin.
template <class T>
PluginDescription describe_features(std::string name, std::string version, std::string summary) {
  static_assert(std::is_base_of_v<FeatureGenerator, T>, "describe_features: T must derive from dualgap::FeatureGenerator");
  return plugin_detail::describe_with_options<T>(Kind::features, std::move(name), std::move(version), std::move(summary));
}

/// A dataset plugin. Its Options hold the plugin's own keys; the core's `data:` keys
/// (test_fraction, scale, ...) sit beside them in the same section and are not the plugin's.
template <class T>
PluginDescription describe_dataset(std::string name, std::string version, std::string summary) {
  static_assert(std::is_base_of_v<DatasetPlugin, T>, "describe_dataset: T must derive from dualgap::DatasetPlugin");
  return plugin_detail::describe_with_options<T>(Kind::dataset, std::move(name), std::move(version), std::move(summary));
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
