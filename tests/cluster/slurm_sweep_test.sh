#!/usr/bin/env bash
# A real Slurm (scripts/local-slurm.sh) runs a real sweep through `dualgap run --executor slurm`:
# every run.json, one report, `dualgap status`, a resubmission that submits nothing, and a
# scancel in the middle followed by a resubmission that completes with nothing lost.
# Usage: slurm_sweep_test.sh DUALGAP_BIN TEST_PLUGIN_DIR SOURCE_DIR
set -uo pipefail
# A port of our own, so a second test tree on the machine does not meet this Slurm.
source "$(dirname "$0")/slurm_setup.sh" "$1" "$2" "$3" $((20000 + $$ % 20000))
cd "$work"

# 24 runs of about 0.3 s each (11 evaluations sleeping 25 ms): 6 tasks of 4, 2 at once.
cat > sweep.yaml <<YAML
name: sweep
data: {plugin: synthetic_multiclass, n: 30, d: 3, K: 2}
solvers:
  - {name: a, plugin: test_solver, params: {behaviour: budget, eval_sleep: 0.025}}
  - {name: b, plugin: test_solver, params: {behaviour: budget, eval_sleep: 0.025}}
stop: {max_passes: 10, deadline: 60}
repeats: 12
executor: {name: slurm, runs_per_task: 4}
YAML
log=$("$bin" run sweep.yaml --out res --max-concurrent 2 --wait 2>&1) || fail "the sweep failed: $log"
echo "$log" | grep -q "submitted 24 runs (0 finished before, not submitted) as Slurm job array .* (6 tasks of 4 runs, at most 2 at once)" \
  || fail "unexpected submission output: $log"
n=$(ls res/sweep/*/run.json | wc -l); [ "$n" -eq 24 ] || fail "$n run.json files, expected 24"
for f in res/sweep/*/run.json; do
  grep -q '"status": "budget"' "$f" || fail "$f did not finish: $(grep '"status"' "$f")"
done
[ -s res/sweep/report.html ] || fail "no report.html"
grep -q "wrote .*report.html" res/sweep/.slurm/*/report.log || fail "the report job did not write the report"
# Each task ran with --no-report: the report is written once, by the dependent job.
! grep -l "report:" res/sweep/.slurm/*/task-*.log >/dev/null 2>&1 || fail "an array task wrote a report"
st=$("$bin" status res 2>&1)
echo "$st" | grep -q "24 runs: 24 finished (0 converged, 24 stopped by a budget), 0 diverged, 0 failed, 0 timeout, 0 interrupted, 0 running, 0 pending" \
  || fail "status: $st"
echo "$st" | grep -q "array job [0-9]*: not in the queue" || fail "status lists no Slurm job: $st"
again=$("$bin" run sweep.yaml --out res --wait 2>&1) || fail "resubmission failed: $again"
echo "$again" | grep -q "nothing to submit: all 24 runs finished before" || fail "the resubmission submitted: $again"

# scancel in the middle: 24 runs of about 1.2 s, 2 tasks at once of 4 runs each.
sed -i 's/eval_sleep: 0.025/eval_sleep: 0.1/' sweep.yaml
sub=$("$bin" run sweep.yaml --out res2 --max-concurrent 2 2>&1) || fail "submission failed: $sub"
job=$(echo "$sub" | sed -n 's/.*Slurm job array \([0-9]*\).*/\1/p')
[ -n "$job" ] || fail "no job id in: $sub"
for _ in $(seq 600); do
  n=$(ls res2/sweep/*/run.json 2>/dev/null | wc -l)
  [ "$n" -ge 5 ] && break
  sleep 0.1
done
[ "$n" -ge 5 ] || fail "no runs finished within 60 s"
scancel "$job"
for _ in $(seq 300); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.2; done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || fail "job $job still queued after scancel"
kept=$(grep -l '"status": "budget"' res2/sweep/*/run.json | sort)
nkept=$(echo "$kept" | grep -c . || true)
[ "$nkept" -lt 24 ] || fail "scancel came too late: all runs finished"
sums=$(md5sum $kept)
st=$("$bin" status res2 2>&1)
echo "$st" | grep -q "24 runs: $nkept finished (0 converged, $nkept stopped by a budget)" || fail "status after scancel: $st"
# Nobody runs the dualgap processes of the cancelled job any more (no orphan, no watchdog-less child).
sleep 1
pgrep -f "res2 --no-report --slurm-task" >/dev/null && fail "processes of the cancelled job are still running"
res=$("$bin" run sweep.yaml --out res2 --max-concurrent 2 --wait 2>&1) || fail "the resubmission failed: $res"
echo "$res" | grep -q "submitted $((24 - nkept)) runs ($nkept finished before, not submitted)" || fail "resubmission: $res"
n=$(grep -l '"status": "budget"' res2/sweep/*/run.json | wc -l); [ "$n" -eq 24 ] || fail "$n of 24 runs finished after the resubmission"
echo "$sums" | md5sum -c --quiet - || fail "a run finished before the scancel was rewritten"
echo "ok: 24 runs through Slurm, status, resubmission, scancel ($nkept kept) and resume"
