#!/usr/bin/env bash
# Installs, builds and runs the quickstart experiment (generated data, seconds); prints where
# its results and report are.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "building (first time: a few minutes)..."
# The build's progress as one line per 10 %, its warnings and errors as they come.
bash scripts/build.sh --target dualgap dualgap_synthetic_multiclass dualgap_multiclass dualgap_bcfw |
  awk '/^\[ *[0-9]+%\]/ { p = substr($0, 2, index($0, "%") - 2) + 0; if (p >= next_p) { printf "building: %3d%%\n", p; fflush(); next_p = p - p % 10 + 10 } next }
       /^(Consolidate compiler|Scanning dependencies)/ { next }
       { print; fflush() }'
./build/bin/dualgap run configs/quickstart.yaml --out runs --jobs "$(nproc 2>/dev/null || echo 2)"
