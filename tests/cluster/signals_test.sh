#!/usr/bin/env bash
# A 12-run sweep killed with SIGTERM, SIGINT, SIGHUP and SIGKILL to the parent `dualgap run`, each
# resumed: every finished run is kept (byte for byte), no child outlives its parent, interrupted
# runs keep their partial curve (status interrupted), and the resume completes the sweep.
# Then the lock: a second `dualgap run` on the same folder exits 2 naming the holder's PID, and
# with --wait-lock starts when the first ends.
# Usage: signals_test.sh DUALGAP_BIN TEST_PLUGIN_DIR
set -uo pipefail
bin=$1; export DUALGAP_PLUGIN_PATH=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
# 12 runs of about 1.1 s (11 evaluations sleeping 0.1 s), 2 at once.
cat > sweep.yaml <<YAML
name: sig
data: {plugin: synthetic_multiclass, n: 30, d: 3, K: 2}
solvers:
  - {name: s, plugin: test_solver, params: {behaviour: budget, eval_sleep: 0.1}}
stop: {max_passes: 10, deadline: 60}
record: {every: 1}   # a row per pass (the default schedule would space rows by the evaluation time)
repeats: 12
YAML
children_of() { pgrep -P "$1" 2>/dev/null; }
for sig in TERM INT HUP KILL; do
  out="res-$sig"
  "$bin" run sweep.yaml --out "$out" --jobs 2 --no-report > "run-$sig.log" 2>&1 &
  parent=$!
  # wait until two runs finished and two more are running, one of which has recorded a checkpoint
  # (a partial log with a row below its header): a child signalled before its first checkpoint
  # has no curve to keep, whatever the machine's load
  for _ in $(seq 600); do
    n=$(ls "$out"/sig/*/run.json 2>/dev/null | wc -l)
    rows=0
    for p in "$out"/sig/*/run.partial.jsonl; do
      [ -f "$p" ] && [ "$(wc -l < "$p")" -ge 2 ] && rows=1
    done
    [ "$n" -ge 2 ] && [ "$rows" = 1 ] && [ "$(children_of $parent | wc -l)" -ge 2 ] && break
    sleep 0.05
  done
  kids=$(children_of $parent | tr '\n' ' ')
  [ -n "$kids" ] || fail "SIG$sig: no children running to interrupt"
  finished=$(grep -l '"status": "budget"' "$out"/sig/*/run.json | sort)
  sums=$(md5sum $finished)
  kill -"$sig" "$parent"
  wait "$parent"; rc=$?
  sleep 0.3
  for k in $kids; do
    # a zombie waiting for init to reap it has ended; anything else is an orphan still running
    st=$(ps -o stat= -p "$k" 2>/dev/null | tr -d ' ')
    [ -z "$st" ] || [[ "$st" == Z* ]] || fail "SIG$sig: child $k outlived its parent (state $st)"
  done
  case $sig in
    KILL) [ "$rc" -eq 137 ] || fail "SIGKILL: parent exit $rc" ;;
    *)
      [ "$rc" -ne 0 ] || fail "SIG$sig: the parent exited 0"
      grep -q "stopped by signal" "run-$sig.log" || fail "SIG$sig: no stop message: $(cat "run-$sig.log")"
      n=$(grep -l '"status": "interrupted"' "$out"/sig/*/run.json 2>/dev/null | wc -l)
      [ "$n" -ge 1 ] || fail "SIG$sig: no run kept as interrupted"
      # the run whose checkpoint the wait above saw kept it
      kept=0
      for f in $(grep -l '"status": "interrupted"' "$out"/sig/*/run.json); do
        grep -q '"passes": \[' "$f" && kept=1
      done
      [ "$kept" = 1 ] || fail "SIG$sig: no interrupted run kept its partial curve"
      ;;
  esac
  echo "$sums" | md5sum -c --quiet - || fail "SIG$sig: a finished run was changed"
  nkept=$(echo "$finished" | grep -c .)
  "$bin" run sweep.yaml --out "$out" --jobs 2 --no-report > "resume-$sig.log" 2>&1 || fail "SIG$sig: resume failed: $(cat "resume-$sig.log")"
  skipped=$(grep -c '^\[skip\]' "resume-$sig.log")
  grep -q "12 runs: $((12 - skipped)) finished (0 converged, $((12 - skipped)) stopped by a budget), $skipped skipped" "resume-$sig.log" \
    || fail "SIG$sig: resume: $(tail -3 "resume-$sig.log")"
  [ "$skipped" -ge "$nkept" ] || fail "SIG$sig: resume reran finished runs"
  echo "$sums" | md5sum -c --quiet - || fail "SIG$sig: the resume changed a finished run"
  n=$(grep -l '"status": "budget"' "$out"/sig/*/run.json | wc -l)
  [ "$n" -eq 12 ] || fail "SIG$sig: $n of 12 finished after the resume"
  echo "SIG$sig: $nkept finished runs kept, 0 orphans, resume completed 12/12"
done

# The lock.
"$bin" run sweep.yaml --out lock --jobs 2 --no-report > first.log 2>&1 &
first=$!
for _ in $(seq 200); do [ -s lock/sig/.lock ] && break; sleep 0.05; done
second=$("$bin" run sweep.yaml --out lock --no-report 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "lock: the second run exited $rc: $second"
echo "$second" | grep -q "in use by another dualgap process (PID $first on host" || fail "lock: message: $second"
waited=$("$bin" run sweep.yaml --out lock --no-report --wait-lock 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "lock: --wait-lock exited $rc: $waited"
echo "$waited" | grep -q "waiting (--wait-lock)" || fail "lock: --wait-lock did not wait: $waited"
echo "$waited" | grep -q "12 runs: 0 finished (0 converged, 0 stopped by a budget), 12 skipped" || fail "lock: after waiting: $waited"
wait "$first" || fail "lock: the first run failed"
echo "ok: signals and lock"
