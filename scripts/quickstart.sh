#!/usr/bin/env bash
# Installs, builds and runs the quickstart experiment (generated data, seconds); prints where
# its results and report are.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "building (first time: a few minutes)..."
bash scripts/build.sh --target dualgap dualgap_synthetic_multiclass dualgap_multiclass dualgap_bcfw >/dev/null
./build/bin/dualgap run configs/quickstart.yaml --out runs --jobs "$(nproc 2>/dev/null || echo 2)"
