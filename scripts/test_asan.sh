#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (issue 15): a second
# build tree, ./build-asan (-DDUALGAP_SANITIZE=ON: the core, every plugin, the tests and the SDK
# it installs for the SDK group), any report stops the process (halt_on_error) and fails its test.
# Leak checking is off: this check is about memory errors and undefined behaviour, not leaks.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DDUALGAP_SANITIZE=ON -DDUALGAP_BUILD_BENCH=OFF \
  ${DUALGAP_CMAKE_ARGS:-} >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd build-asan
ctest --output-on-failure -j"$jobs" --timeout 3600
