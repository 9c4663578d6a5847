// A harness around one dataset plugin compiled into the fuzzer: its DUALGAP_PLUGIN entry point
// gives the description; load() parses the files named by the parameters.
#pragma once

#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"
#include "fuzz_support.hpp"

namespace dualgap_plugin_detail {
const dualgap::PluginHeader* header();
}

namespace fuzz {

/// Loads the data set with `params` (paths already written); true when it loaded.
inline bool load_dataset(const dualgap::json& params) {
  const auto* d = dualgap_plugin_detail::header()->description;
  dualgap::json given = params;
  for (const auto& spec : d->params)
    if (!given.contains(spec.name) && !spec.default_value.is_null()) given[spec.name] = spec.default_value;
  try {
    auto obj = d->create(dualgap::Params(given));
    auto* ds = dynamic_cast<dualgap::DatasetPlugin*>(obj.get());
    dualgap::Data data = ds->load(dualgap::DatasetContext{});
    data.train.check("train");
    return true;
  } catch (const dualgap::DataError&) {
  } catch (const dualgap::ParamError&) {
  }
  return false;
}

}  // namespace fuzz
