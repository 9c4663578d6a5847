// Blocks are visited in random order, so the feature rows of the next block are not in cache
// (OCR: 4.7 MB of rows): the loop asks for them while the current block is processed. A hint
// only; it changes no number.
#pragma once

#include <cstddef>

#include "dualgap/data.hpp"

namespace dualgap_bcfw {

/// Rows [r0, r1) of a CSR matrix: their values and column indices.
inline void prefetch_rows(const dualgap::SparseMatrix& X, Eigen::Index r0, Eigen::Index r1) {
  const auto b = X.outerIndexPtr()[r0], e = X.outerIndexPtr()[r1];
  for (auto k = b; k < e; k += 8) __builtin_prefetch(X.valuePtr() + k);
  for (auto k = b; k < e; k += 16) __builtin_prefetch(X.innerIndexPtr() + k);
}

inline void prefetch_example(const dualgap::Examples& ex, std::size_t i) {
  if (ex.X.is_sparse()) {
    prefetch_rows(ex.X.sparse(), ex.unit_begin(i), ex.unit_end(i));
    return;
  }
  const auto& X = ex.X.dense();
  const char* p = reinterpret_cast<const char*>(X.data() + ex.unit_begin(i) * X.outerStride());
  const char* e = reinterpret_cast<const char*>(X.data() + ex.unit_end(i) * X.outerStride());
  for (; p < e; p += 64) __builtin_prefetch(p);
}

}  // namespace dualgap_bcfw
