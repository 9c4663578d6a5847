// Blocks are visited in random order, so the feature rows of the next block are not in cache
// (OCR: 4.7 MB of rows): the loop asks for them while the current block is processed. A hint
// only; it changes no number.
#pragma once

#include <cstddef>

#include "dualgap/data.hpp"

namespace dualgap_bcfw {

inline void prefetch_example(const dualgap::Examples& ex, std::size_t i) {
  if (ex.X.is_sparse()) {
    // CSR: the values and column indices of the example's rows.
    const auto& X = ex.X.sparse();
    const auto b = X.outerIndexPtr()[ex.unit_begin(i)], e = X.outerIndexPtr()[ex.unit_end(i)];
    for (auto k = b; k < e; k += 8) __builtin_prefetch(X.valuePtr() + k);
    for (auto k = b; k < e; k += 16) __builtin_prefetch(X.innerIndexPtr() + k);
    return;
  }
  const auto& X = ex.X.dense();
  const char* p = reinterpret_cast<const char*>(X.data() + ex.unit_begin(i) * X.outerStride());
  const char* e = reinterpret_cast<const char*>(X.data() + ex.unit_end(i) * X.outerStride());
  for (; p < e; p += 64) __builtin_prefetch(p);
}

}  // namespace dualgap_bcfw
