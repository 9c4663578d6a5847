// The core's `data:` keys (options.hpp).
#include "data/options.hpp"

#include <algorithm>

namespace dualgap {

void DatasetOptions::bind(Binder<DatasetOptions>& b) {
  using O = DatasetOptions;
  b.field(&O::test_fraction, "test_fraction",
          "without a test set: fraction of train held out as test by a seeded split (0 = no split)")
      .range(0, 1);
  b.field(&O::stratified, "stratified",
          "split per class (each class contributes test_fraction of its examples; structured examples, with "
          "several labels each, are split at random)");
  b.field(&O::split_by_group, "split_by_group", "split whole groups (e.g. folds) instead of examples");
  b.field(&O::per_class, "per_class", "keep at most this many random training examples per class (0 = all)").min(0);
  b.field(&O::per_class_test, "per_class_test", "keep at most this many random test examples per class (0 = all)")
      .min(0);
  b.field(&O::max_examples, "max_examples",
          "keep only the first N training examples of the file, before any split (0 = all)")
      .min(0);
  b.field(&O::max_test_examples, "max_test_examples", "keep only the first N test examples of the file (0 = all)")
      .min(0);
  b.choice(&O::scale, "scale",
           {{"none", Scaling::none},
            {"minmax01", Scaling::minmax01},
            {"minmax11", Scaling::minmax11},
            {"maxabs", Scaling::maxabs},
            {"standardize", Scaling::standardize}},
           "per-feature scaling fitted on train, applied to test (maxabs keeps sparsity)");
  b.field(&O::seed_offset, "seed_offset",
          "another independent draw of the splits and subsamples for the same repeat seed (0 = the repeat's own)")
      .min(0);
  b.field(&O::cache, "cache", "keep a binary cache of the parsed data in the run's cache folder");
}

const std::vector<ParamSpec>& core_data_params() {
  static const std::vector<ParamSpec> v = binder_of<DatasetOptions>().schema();
  return v;
}

namespace {
bool declares(const std::vector<ParamSpec>& params, const std::string& name) {
  return std::any_of(params.begin(), params.end(), [&](const ParamSpec& s) { return s.name == name; });
}
}  // namespace

std::vector<ParamSpec> data_schema(const std::vector<ParamSpec>& plugin_params) {
  std::vector<ParamSpec> v = plugin_params;
  for (const auto& c : core_data_params())
    if (!declares(plugin_params, c.name)) v.push_back(c);
  return v;
}

json plugin_own_params(const json& params, const std::vector<ParamSpec>& plugin_params) {
  json own = json::object();
  if (!params.is_object()) return own;
  for (auto& [k, v] : params.items())
    if (declares(plugin_params, k) || !declares(core_data_params(), k)) own[k] = v;
  return own;
}

DatasetOptions DatasetOptions::from(const json& params, const std::vector<ParamSpec>& plugin_params) {
  json core = json::object();
  if (params.is_object())
    for (auto& [k, v] : params.items())
      if (!declares(plugin_params, k)) core[k] = v;
  return binder_of<DatasetOptions>().read(Params(std::move(core)));
}

}  // namespace dualgap
