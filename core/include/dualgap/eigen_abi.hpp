// Eigen's alignment is part of the plugin ABI: the core and every plugin allocate and free each
// other's Eigen storage (a FeatureMatrix made by a dataset plugin is freed by the core), and
// Eigen's allocator depends on EIGEN_MAX_ALIGN_BYTES (16: plain malloc; 32 or 64 with AVX or
// AVX-512: a hand-aligned block with its offset stored in front). A plugin built with
// -march=native on an AVX-512 CPU and a core built without would free each other's blocks the
// wrong way ("double free or corruption"). So the ABI pins both values to 16 (vectorized code
// stays vectorized, with unaligned loads): the SDK's CMake target dualgap::core defines them
// for every user, this header defines them when that is missing and refuses to compile when an
// earlier Eigen include or a -D chose otherwise, and the loader refuses a plugin whose
// description reports another value (PluginDescription::eigen_max_align_bytes).
#pragma once

#ifndef EIGEN_MAX_ALIGN_BYTES
#define EIGEN_MAX_ALIGN_BYTES 16
#endif
#ifndef EIGEN_MAX_STATIC_ALIGN_BYTES
#define EIGEN_MAX_STATIC_ALIGN_BYTES 16
#endif
// The heap convention is not set by EIGEN_MAX_ALIGN_BYTES alone: Eigen picks its allocator from
// EIGEN_DEFAULT_ALIGN_BYTES, which follows the instruction set (64 with AVX-512) and the
// sanitizer (glibc's malloc is not trusted under ASan). Both sides use plain malloc/free: with
// EIGEN_MAX_ALIGN_BYTES = 16 Eigen never assumes more than malloc's 16-byte alignment.
#ifndef EIGEN_MALLOC_ALREADY_ALIGNED
#define EIGEN_MALLOC_ALREADY_ALIGNED 1
#endif

#include <Eigen/Core>

#if EIGEN_MAX_ALIGN_BYTES != 16 || EIGEN_MAX_STATIC_ALIGN_BYTES != 16 || !EIGEN_MALLOC_ALREADY_ALIGNED
#error "dualgap: EIGEN_MAX_ALIGN_BYTES and EIGEN_MAX_STATIC_ALIGN_BYTES must be 16 and EIGEN_MALLOC_ALREADY_ALIGNED 1 (the plugin ABI): link dualgap::core, or include dualgap headers before Eigen, and do not define them otherwise"
#endif

namespace dualgap {
/// The EIGEN_MAX_ALIGN_BYTES of this translation unit (the plugin ABI's value is 16).
inline constexpr int kEigenMaxAlignBytes = EIGEN_MAX_ALIGN_BYTES;
}  // namespace dualgap
