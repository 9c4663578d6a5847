#!/usr/bin/env bash
# Installs, builds everything and runs the whole test suite (CTest). Tests that check paper
# claims read the real data from $DUALGAP_DATA (CI: ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 1800
