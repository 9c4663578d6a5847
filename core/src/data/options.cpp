// The core's `data:` keys (options.hpp).
#include "data/options.hpp"

#include <algorithm>

namespace dualgap {

const std::vector<ParamSpec>& core_data_params() {
  static const std::vector<ParamSpec> v = [] {
    std::vector<ParamSpec> p;
    p.push_back(real_param("test_fraction", 0.0, "without a test set: fraction of train held out as test by a seeded split (0 = no split)", 0.0, 1.0));
    p.push_back(bool_param("stratified", true, "split per class (each class contributes test_fraction of its examples; structured examples, with several labels each, are split at random)"));
    p.push_back(bool_param("split_by_group", false, "split whole groups (e.g. folds) instead of examples"));
    p.push_back(int_param("per_class", 0, "keep at most this many random training examples per class (0 = all)", 0.0));
    p.push_back(int_param("per_class_test", 0, "keep at most this many random test examples per class (0 = all)", 0.0));
    p.push_back(int_param("max_examples", 0, "keep only the first N training examples of the file, before any split (0 = all)", 0.0));
    p.push_back(int_param("max_test_examples", 0, "keep only the first N test examples of the file (0 = all)", 0.0));
    p.push_back(choice_param("scale", "none", {"none", "minmax01", "minmax11", "maxabs", "standardize"},
                             "per-feature scaling fitted on train, applied to test (maxabs keeps sparsity)"));
    p.push_back(int_param("seed_offset", 0, "another independent draw of the splits and subsamples for the same repeat seed (0 = the repeat's own)", 0.0));
    p.push_back(bool_param("cache", true, "keep a binary cache of the parsed data in the run's cache folder"));
    return p;
  }();
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
  auto get = [&](const char* key, auto fallback) {
    using T = decltype(fallback);
    if (declares(plugin_params, key) || !params.is_object() || !params.contains(key) || params[key].is_null())
      return fallback;
    return params[key].get<T>();
  };
  DatasetOptions o;
  o.test_fraction = get("test_fraction", 0.0);
  o.stratified = get("stratified", true);
  o.split_by_group = get("split_by_group", false);
  o.per_class = get("per_class", std::int64_t{0});
  o.per_class_test = get("per_class_test", std::int64_t{0});
  o.max_examples = get("max_examples", std::int64_t{0});
  o.max_test_examples = get("max_test_examples", std::int64_t{0});
  o.scale = parse_scaling(get("scale", std::string("none")));
  o.seed_offset = get("seed_offset", std::int64_t{0});
  o.cache = get("cache", true);
  return o;
}

}  // namespace dualgap
