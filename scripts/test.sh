#!/usr/bin/env bash
# Installs, builds everything and runs the whole test suite (CTest). Tests that check paper
# claims read the real data from $DUALGAP_DATA (CI: ../shared/data). Benchmarks are not built
# here (DUALGAP_BUILD_BENCH=ON builds them too); they are run by hand, see bench/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DUALGAP_CMAKE_ARGS="-DDUALGAP_BUILD_BENCH=${DUALGAP_BUILD_BENCH:-OFF} ${DUALGAP_CMAKE_ARGS:-}" bash scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 1800
