// The plugins' rules against the prepared data (Options::validate_data, dualgap/options.hpp):
// the shape a plugin sees, and the check of one plugin section of a run's configuration. Run by
// `dualgap validate` once it has prepared the data and by every run before it solves.
#pragma once

#include <functional>
#include <string>

#include "dualgap/data.hpp"
#include "dualgap/params.hpp"
#include "plugins/loader.hpp"

namespace dualgap {

/// The shape of `train` as the rules see it; the class names are the dataset's label_map in
/// `source` (Data::source) when it names every class, else the class indices.
DUALGAP_API DataShape data_shape(const Examples& train, const json& source);

/// n, N, d, K of the shape: the variables of the expressions in parameters ("1/n", "10/d").
DUALGAP_API json expression_vars(const DataShape& shape);

/// Where a value of a run's config was written, by its JSON pointer (RunSpec::locate).
using Locate = std::function<std::string(const std::string& pointer)>;

/// Whether the plugin of the section at `pointer` ("/features/0", "/oracle", "/solver") of a
/// run's config has rules against the data.
DUALGAP_API bool has_data_rules(const json& cfg, const std::string& pointer, const PluginRegistry& reg);

/// Checks that section's parameters (expressions evaluated with the shape's n, N, d, K) against
/// `shape` by its plugin's rules. Throws ConfigError at the location of the parameter at fault
/// (`locate`; without one, the experiment file), naming the plugin, the parameter, what was
/// expected and the data checked against.
DUALGAP_API void check_data_rules(const json& cfg, const std::string& pointer, const DataShape& shape,
                                  const PluginRegistry& reg, const Locate& locate);

}  // namespace dualgap
