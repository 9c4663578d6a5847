// The data pipeline of the core. A dataset plugin returns the data as read; the core then
// applies, to every plugin alike and in this order:
//   1. the binary cache of what the plugin returned (plugins that read files; cache.hpp),
//   2. max_examples / max_test_examples (file order),
//   3. the seeded train/test split (test_fraction) when there is no test set,
//   4. per-class subsampling of train and test,
//   5. scaling fitted on train,
//   6. checks (consistent sizes, at least two classes), recorded in Data::source,
//   7. the validation hold-out (`data: {validation: F}`), which replaces the test set.
#pragma once

#include <cstdint>

#include "data/options.hpp"
#include "dualgap/data.hpp"
#include "dualgap/dataset.hpp"
#include "plugins/loader.hpp"

namespace dualgap {

/// Steps 2-6 on the data a plugin returned, with the repeat's data seed.
DUALGAP_API Data finish_dataset(Data data, const DatasetOptions& opt, std::uint64_t seed);

/// Step 7: holds out `fraction` of train (stratified, seeded) as the evaluation set; the test
/// set is dropped. Describes the split in info["validation"].
DUALGAP_API void hold_out_validation(Data& data, double fraction, std::uint64_t seed, json& info);

/// The whole pipeline for a `data:` section: `params` are the section's parameters (the
/// plugin's and the core's, schema applied), `validation` the hold-out fraction (0 = none).
DUALGAP_API Data load_data(const LoadedPlugin& plugin, const json& params, const DatasetContext& ctx,
                           double validation = 0, json* info = nullptr);

}  // namespace dualgap
