// Per-feature scaling of the data pipeline, fitted on train and applied to test.
#pragma once

#include <string>

#include "dualgap/api.hpp"
#include "dualgap/data.hpp"

namespace dualgap {

enum class Scaling { none, minmax01, minmax11, maxabs, standardize };
DUALGAP_API const char* to_string(Scaling s);

/// Fits the scaling on `train` and applies it to both (test may be empty). Constant features
/// map to 0. minmax/standardize shift values, so they need dense data (DataError on sparse);
/// maxabs keeps sparsity. Test values are not clipped to the training range.
DUALGAP_API void apply_scaling(Examples& train, Examples& test, Scaling s);

}  // namespace dualgap
