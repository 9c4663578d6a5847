#!/usr/bin/env bash
# Configures and builds the sanitizer tree ./build-asan, which both sanitizer steps of CI use
# (scripts/test_asan.sh: the suite; scripts/fuzz.sh: the libFuzzer harnesses): clang with
# AddressSanitizer + UndefinedBehaviorSanitizer in the core, every plugin, the tests and the SDK
# it installs (-DDUALGAP_SANITIZE=ON, CMakeLists.txt), libFuzzer's coverage counters everywhere and
# the harnesses of tests/fuzz (-DDUALGAP_FUZZ=ON). Arguments go to `cmake --build`
# (e.g. --target fuzzers).
#
# One tree, with clang, because it is CI's longest build: clang compiles this code at -O1 with the
# sanitizers in about half gcc's time (a unity batch of the core: 26 s against 52 s), and the
# harnesses, which need clang, then link the same core instead of a third tree compiling it again.
# The tree compiles at -O1 (CMakeLists.txt, DUALGAP_SANITIZE), without debug information (reports
# name the functions; rebuild with -g to get lines), as a unity build, without the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DDUALGAP_SANITIZE=ON \
  -DDUALGAP_FUZZ=ON -DDUALGAP_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD="${DUALGAP_UNITY_BUILD:-ON}" \
  ${DUALGAP_CMAKE_ARGS:-} >/dev/null
cmake --build build-asan -j"$jobs" "$@"
