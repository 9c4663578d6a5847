#!/usr/bin/env bash
# What the machine charges one core for the other core's work, with nothing shared between the
# two: the one-thread run of threads.yaml (exact-1t, its first repeat: the same seed, so the
# same passes every time) on the file named by THREADS_TRAIN, $REPEATS times (default 3) alone
# on the first CPU this script may use, and $REPEATS times as two processes at once, pinned to
# its first two CPUs. A process pinned to one CPU scores its checkpoints on that CPU only, so
# neither takes the other's core.
#
# Two threads that split the same steps cannot do better than one such core each: if a run
# takes r times its time alone when the other core runs the same work, two threads take at
# least r/2 of one thread's time, whatever they share (plugins/solver/bcfw/README.md, "Exact
# steps on several threads"). Per CPU: the median [min, max] of the runs' solver seconds
# (run.json: summary.time, evaluation excluded), and the median at once / the median alone.
#
# Usage: THREADS_TRAIN=FILE bench/scale/pair.sh [BUILD_DIR] [WORK_DIR]
# Results go to WORK_DIR (default: a new folder under $TMPDIR). A Markdown table on stdout.
# Times: run it on a quiet machine with 2 CPUs free and say its load.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
scale_args pair "$@"
reps="${REPEATS:-3}"
dualgap="$build/bin/dualgap"
scale_need "$dualgap" "build first: scripts/build.sh"
scale_need taskset "apt-get install util-linux"
scale_need /usr/bin/python3 "it reads the run records"
[ -n "${THREADS_TRAIN:-}" ] || { echo "pair.sh: set THREADS_TRAIN to a LIBSVM file (threads.yaml)" >&2; exit 2; }
# the first two CPUs of this process's affinity mask (a batch system may hand out any two)
read -r cpu_a cpu_b < <(/usr/bin/python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
[ -n "${cpu_b:-}" ] || { echo "pair.sh: needs 2 CPUs, this process may use CPU $cpu_a only" >&2; exit 2; }

# one run of exact-1t__r0 on CPU $1 into $2
one() {
  taskset -c "$1" "$dualgap" run "$here/threads.yaml" --only-id exact-1t__r0 -o "$2" --jobs 1 --no-report \
    > "$2.log" 2>&1 || { echo "pair.sh: the run into $2 failed, see $2.log" >&2; exit 1; }
}
for ((r = 0; r < reps; r++)); do
  one "$cpu_a" "$work/alone-$r"
  one "$cpu_a" "$work/first-$r" & a=$!
  one "$cpu_b" "$work/second-$r" & b=$!
  wait "$a"
  wait "$b"
done

# the solver seconds of the $reps runs into $work/$1-*, one a line
times() {
  /usr/bin/python3 - "$work" "$1" "$reps" <<'PY'
import json, pathlib, sys
work, name, reps = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for r in range(reps):
    (p,) = (work / f"{name}-{r}").rglob("run.json")
    print(json.loads(p.read_text())["summary"]["time"])
PY
}
alone=$(times alone | scale_median)
echo "| process | solver s | at once / alone |"
echo "|---|---|---|"
echo "| alone, CPU $cpu_a | $(times alone | scale_stats "%.2f") | |"
for run in "first $cpu_a" "second $cpu_b"; do
  read -r name cpu <<<"$run"
  echo "| at once, CPU $cpu | $(times "$name" | scale_stats "%.2f") | $(awk -v t="$(times "$name" | scale_median)" -v a="$alone" 'BEGIN { printf "%.2f", t / a }') |"
done
echo "results: $work" >&2
