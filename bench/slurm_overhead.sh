#!/usr/bin/env bash
# Overhead of `--executor slurm` against a local sweep: 1000 short runs of generated data through
# the local single-node Slurm (scripts/local-slurm.sh) with --runs-per-task 1 and 50, and locally
# with --jobs 2. Prints wall time, overhead per run and time from submit to the first run started.
# Usage (as root, from the build tree's parent): bash bench/slurm_overhead.sh build/bin/dualgap [RUNS]
set -euo pipefail
bin=$(realpath "$1"); runs=${2:-1000}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); state="$work/slurm"
trap 'bash "$src/scripts/local-slurm.sh" stop "$state" >/dev/null 2>&1; rm -rf "$work"' EXIT
eval "$(bash "$src/scripts/local-slurm.sh" start "$state")"
cd "$work"
cat > sweep.yaml <<YAML
name: overhead
data: {plugin: synthetic_multiclass, n: 200, d: 10, K: 4}
oracle: {plugin: multiclass}
solvers: [{name: BCFW, plugin: bcfw}]
stop: {max_passes: 5}
repeats: $runs
YAML
first_start() {  # earliest environment.started of the runs, as epoch seconds
  /usr/bin/python3 - "$1" <<'PY'
import json, glob, sys, datetime
t = min(json.load(open(f))["environment"]["started"] for f in glob.glob(sys.argv[1] + "/*/run.json"))
print(datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp())
PY
}
echo "uptime before: $(uptime)"
t0=$(date +%s.%N); "$bin" run sweep.yaml --out local --jobs 2 --no-report >/dev/null 2>&1; t1=$(date +%s.%N)
echo "local --jobs 2: $(echo "$t1 - $t0" | bc) s wall, first run started $(echo "$(first_start local/overhead) - $t0" | bc) s after start"
local_wall=$(echo "$t1 - $t0" | bc)
for rpt in 50 1; do
  t0=$(date +%s.%N)
  "$bin" run sweep.yaml --out "slurm$rpt" --executor slurm --runs-per-task "$rpt" --wait >/dev/null 2>&1
  t1=$(date +%s.%N)
  wall=$(echo "$t1 - $t0" | bc)
  echo "slurm --runs-per-task $rpt: $wall s wall (report job included), $(echo "scale=4; ($wall - $local_wall) / $runs" | bc) s more per run than local, first run started $(echo "$(first_start "slurm$rpt/overhead") - $t0" | bc) s after submit, $(grep -l '"status": "budget"\|"status": "done"' slurm$rpt/overhead/*/run.json | wc -l) of $runs finished"
done
echo "uptime after: $(uptime)"
