#!/usr/bin/env bash
# Configures and builds dualgap (Release) into ./build. Extra CMake options: DUALGAP_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${DUALGAP_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"$jobs" "$@"
