// The core's `data:` keys: the options every dataset plugin accepts, applied by the core
// (pipeline.hpp) to the data a plugin returns. Declared once, in DatasetOptions::bind, as a
// plugin declares its own; a plugin's own keys sit beside them in the same section, and an
// unknown key is a located configuration error.
#pragma once

#include <cstdint>
#include <vector>

#include "data/scale.hpp"
#include "dualgap/api.hpp"
#include "dualgap/options.hpp"
#include "dualgap/params.hpp"

namespace dualgap {

struct DUALGAP_API DatasetOptions {
  double test_fraction = 0;         ///< split train when there is no test set (0 = no split)
  bool stratified = true;
  bool split_by_group = false;
  std::int64_t per_class = 0;       ///< 0 = keep all
  std::int64_t per_class_test = 0;
  std::int64_t max_examples = 0;    ///< keep the first N parsed training examples (0 = all)
  std::int64_t max_test_examples = 0;
  Scaling scale = Scaling::none;
  std::int64_t seed_offset = 0;
  bool cache = true;

  static void bind(Binder<DatasetOptions>& b);

  /// The core's options from a `data:` section's parameters; names the plugin declares itself
  /// are the plugin's and leave the option at its default.
  static DatasetOptions from(const json& params, const std::vector<ParamSpec>& plugin_params);
};

/// The schema of DatasetOptions: test_fraction, stratified, split_by_group, per_class,
/// per_class_test, max_examples, max_test_examples, scale, seed_offset, cache.
DUALGAP_API const std::vector<ParamSpec>& core_data_params();

/// The schema of a `data:` section for a plugin: its own parameters, then the core's that it
/// does not declare itself (a plugin that declares a core name keeps its meaning, and the core
/// leaves that option at its default).
DUALGAP_API std::vector<ParamSpec> data_schema(const std::vector<ParamSpec>& plugin_params);

/// The parameters of `params` that belong to the plugin (the core's keys removed).
DUALGAP_API json plugin_own_params(const json& params, const std::vector<ParamSpec>& plugin_params);

}  // namespace dualgap
