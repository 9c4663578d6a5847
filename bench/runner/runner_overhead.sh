#!/usr/bin/env bash
# Runner overhead per run: process start, plugin load, expansion, data generation, result
# writing, against the solver time of a short run. Usage: bench/runner/runner_overhead.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/exp.yaml" <<'YAML'
name: overhead
data:    {plugin: synthetic_multiclass, n: 500, n_test: 100, d: 20, K: 5}
oracle:  {plugin: multiclass}
solvers: [{name: BCFW, plugin: bcfw, params: {train_error: false}}]
stop:    {max_passes: 10}
repeats: 20
YAML
start=$(date +%s.%N)
"$build/bin/dualgap" run "$tmp/exp.yaml" --out "$tmp/res" --no-report > /dev/null
end=$(date +%s.%N)
/usr/bin/python3 - "$tmp/res/overhead" "$start" "$end" <<'PY'
import json, pathlib, sys
runs = [json.loads(p.read_text()) for p in pathlib.Path(sys.argv[1]).glob("*/run.json")]
wall = float(sys.argv[3]) - float(sys.argv[2])
solver = sum(r["summary"]["time"] for r in runs)
evalt = sum(r["summary"]["eval_time"] for r in runs)
inrun = sum(r["summary"]["wall_time"] for r in runs)
n = len(runs)
print(f"{n} runs in {wall:.2f} s wall: {wall/n*1000:.1f} ms per run")
print(f"  solver time {solver/n*1000:.1f} ms, evaluation {evalt/n*1000:.1f} ms, inside the child {inrun/n*1000:.1f} ms per run")
print(f"  runner overhead (process start, plugin load, expansion, data, writing) {(wall-solver-evalt)/n*1000:.1f} ms per run"
      f" = {100*(wall-solver-evalt)/wall:.0f}% of the wall time of these short runs")
PY
