#!/usr/bin/env bash
# The scaling table: one `dualgap run` of the multi-class SSVM (default `plugin: bcfw`, oracle
# `multiclass`, lambda = 1/n, to a relative gap of 1e-2, the default checkpoint schedule) on 1 and
# on 2 threads, against `liblinear-train -s 4 -e 0.1`, on the generated family (gen_linear.cpp:
# planted linear model, 10 % label noise, d 20 000, 30 nonzeros per row, K 20) at n = $SIZES
# (default 20000 80000 320000 1280000). Per n and program, $REPEATS runs (default 3), one at a
# time: the median [min, max] of
#
#   dualgap   wall = load + solver + evaluation (run.json: data_info.load_time, summary.time and
#             eval_time), each part's median, evaluation / solver, and the run's peak RSS
#             (summary.peak_rss_bytes, the run's own process)
#   LIBLINEAR wall and peak RSS of the whole process (GNU time)
#
# The data cache is off: both programs parse the text file every time, as a first run does.
# Usage: bench/scale/scaling.sh [BUILD_DIR] [WORK_DIR]
# Files and results go to WORK_DIR (default: a new folder under $TMPDIR). A Markdown table on
# stdout. Times: run it on a quiet machine (the 2-thread runs need both cores) and say its load.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
scale_args scaling "$@"
sizes="${SIZES:-20000 80000 320000 1280000}"
reps="${REPEATS:-3}"
dualgap="$build/bin/dualgap"
scale_need "$dualgap" "build first: scripts/build.sh"
scale_need liblinear-train "apt-get install liblinear-tools"
scale_need /usr/bin/time "apt-get install time"
scale_need /usr/bin/python3 "it reads the run records"
scale_compile gen_linear

# ${SCALING_TRAIN} is expanded by dualgap from the environment of the run
cat > "$work/scaling.yaml" <<EOF
name: scale-scaling
data:     {plugin: libsvm, train: "\${SCALING_TRAIN}", cache: false}
oracle:   {plugin: multiclass}
problem:  {lambda: 1/n}
solvers:
  - {name: 1-thread,  plugin: bcfw, params: {threads: 1}}
  - {name: 2-threads, plugin: bcfw, params: {threads: 2}}
stop:     {max_passes: 1000, rel_gap: 1e-2}
repeats:  $reps
seed:     0
EOF

echo "| n | program | wall s | load s | solver s | evaluation s | evaluation / solver | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
for n in $sizes; do
  f="$work/linear-$n.svm"
  [ -s "$f" ] || "$work/gen_linear" "$f" "$n" >/dev/null
  cat "$f" > /dev/null  # into the page cache, for both programs
  rm -rf "$work/results-$n"
  if ! SCALING_TRAIN="$f" "$dualgap" run "$work/scaling.yaml" -o "$work/results-$n" --jobs 1 --no-report \
      > "$work/dualgap-$n.log" 2>&1; then
    echo "scaling.sh: dualgap run on n = $n failed, see $work/dualgap-$n.log" >&2
    exit 1
  fi
  # one line per run: solver wall load solver eval rss_mb
  /usr/bin/python3 - "$work/results-$n" > "$work/runs-$n.tsv" <<'PY'
import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).rglob("run.json")):
    r = json.loads(p.read_text())
    s, load = r["summary"], r["data_info"]["load_time"]
    print(r["solver"], load + s["time"] + s["eval_time"], load, s["time"], s["eval_time"], s["peak_rss_bytes"] / 1e6, sep="\t")
PY
  for solver in 1-thread 2-threads; do
    col() { awk -F'\t' -v s="$solver" -v c="$1" '$1 == s { print $c }' "$work/runs-$n.tsv"; }
    share=$(paste <(col 5) <(col 4) | awk '{ print $1 / $2 }' | scale_stats "%.2f")
    echo "| $n | dualgap bcfw, $solver | $(col 2 | scale_stats "%.2f") | $(col 3 | scale_stats "%.2f") | $(col 4 | scale_stats "%.2f") | $(col 5 | scale_stats "%.2f") | $share | $(col 6 | scale_stats "%.0f") |"
  done
  walls=() rss=()
  for ((r = 0; r < reps; r++)); do
    /usr/bin/time -f "%e %M" -o "$work/liblinear-$n.time" liblinear-train -s 4 -e 0.1 -q "$f" "$work/liblinear-$n.model" > /dev/null
    read -r w k < "$work/liblinear-$n.time"
    walls+=("$w") rss+=("$(awk -v k="$k" 'BEGIN { print k * 1024 / 1e6 }')")
  done
  echo "| $n | liblinear-train -s 4 -e 0.1 | $(printf '%s\n' "${walls[@]}" | scale_stats "%.2f") | | | | | $(printf '%s\n' "${rss[@]}" | scale_stats "%.0f") |"
done
echo "files, logs and results: $work" >&2
