#!/usr/bin/env bash
# What the machine charges one core for the other core's work, with nothing shared between the
# two: the one-thread run of threads.yaml (exact-1t, its first repeat: the same seed, so the
# same passes every time) on the file named by THREADS_TRAIN, $REPEATS times (default 3) alone
# on CPU 0, and $REPEATS times as two processes at once, pinned to CPUs 0 and 1. A process
# pinned to one CPU scores its checkpoints on that CPU only, so neither takes the other's core.
#
# Two threads that split the same steps cannot do better than one such core each: if a run
# takes r times its time alone when the other core runs the same work, two threads take at
# least r/2 of one thread's time, whatever they share (plugins/solver/bcfw/README.md, "Exact
# steps on several threads"). Per process: the median [min, max] of its solver seconds
# (run.json: summary.time, evaluation excluded), and the median of at once / alone.
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
[ "$(nproc --all)" -ge 2 ] || { echo "pair.sh: needs 2 CPUs" >&2; exit 2; }

# one run of exact-1t__r0 on CPU $1 into $2
one() {
  taskset -c "$1" "$dualgap" run "$here/threads.yaml" --only-id exact-1t__r0 -o "$2" --jobs 1 --no-report \
    > "$2.log" 2>&1 || { echo "pair.sh: the run into $2 failed, see $2.log" >&2; exit 1; }
}
for ((r = 0; r < reps; r++)); do
  one 0 "$work/alone-$r"
  one 0 "$work/cpu0-$r" & a=$!
  one 1 "$work/cpu1-$r" & b=$!
  wait "$a"
  wait "$b"
done

/usr/bin/python3 - "$work" "$reps" <<'PY'
import json, pathlib, statistics, sys
work, reps = pathlib.Path(sys.argv[1]), int(sys.argv[2])
def solver_time(folder):
    (p,) = folder.rglob("run.json")
    return json.loads(p.read_text())["summary"]["time"]
def stats(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]"
alone = [solver_time(work / f"alone-{r}") for r in range(reps)]
print("| process | solver s | at once / alone |")
print("|---|---|---|")
print(f"| alone, CPU 0 | {stats(alone)} | |")
for cpu in (0, 1):
    t = [solver_time(work / f"cpu{cpu}-{r}") for r in range(reps)]
    print(f"| at once, CPU {cpu} | {stats(t)} | {statistics.median(t) / statistics.median(alone):.2f} |")
PY
echo "results: $work" >&2
