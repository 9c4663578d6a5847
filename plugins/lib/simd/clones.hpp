// The one way plugins pick instruction sets at run time: GCC's target_clones. A function marked
// DUALGAP_SIMD_CLONES is compiled twice, for x86-64-v3 (AVX2, FMA, ...) and for the baseline
// x86-64, and the dynamic loader binds the clone the CPU supports once, when the plugin is
// loaded (an ifunc: no test per call, and the plugin still runs on any x86-64). Mark plain,
// auto-vectorizable loops with it (the score sweeps of multiclass_sq_hinge, the max-plus of
// chain_viterbi, the row axpy of bcfw); hand-written intrinsics belong in the core
// (core/src/oracles/unary_scores.cpp, which dispatches the unary score kernels).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DUALGAP_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DUALGAP_SIMD_CLONES
#endif
