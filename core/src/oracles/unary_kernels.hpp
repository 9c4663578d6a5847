// The unary score kernels of StructuredOracle::unary_scores (core-internal; the public header
// declares only unary_scores). S[u*K + k] = <x_u, w_k> for U dense rows x_u and K class rows w_k.
// One dispatcher (simd_level) picks the kernel for the CPU once; the kernels are exported only
// so that tests/structured can check every level the CPU runs against naive dot products.
#pragma once

#include <cstddef>

#include "dualgap/api.hpp"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define DUALGAP_UNARY_AVX2 1
#endif

namespace dualgap::detail {

#ifdef DUALGAP_UNARY_AVX2
/// AVX2 + FMA, register-blocked (3 units x 4 classes per sweep over the features).
DUALGAP_API void unary_scores_avx2(const double* X, const double* W, std::ptrdiff_t U, int K,
                                   std::ptrdiff_t d, double* S);
/// AVX-512F (4 units x 6 classes per sweep).
DUALGAP_API void unary_scores_avx512(const double* X, const double* W, std::ptrdiff_t U, int K,
                                     std::ptrdiff_t d, double* S);
/// 2: AVX-512F, 1: AVX2 + FMA, 0: neither (checked once).
DUALGAP_API int unary_simd_level();
#endif

}  // namespace dualgap::detail
