#!/usr/bin/env bash
# Parse speed against LIBLINEAR: dualgap's `libsvm` and `dense_text` plugins (their load() of a
# plain file, cache off, in dataset_bench --parse) against LIBLINEAR's read_problem (timed inside
# liblinear-train by the LD_PRELOAD probe read_problem_time.c, which ends the process before
# training), both on one core, on the same files, in the page cache (each file is read once
# before the timings). Files:
#
#   generated   planted linear model, 10 % label noise, d 20 000, 30 nonzeros per row, K 20
#               (gen_linear.cpp), n = $SIZES (default 320000: 134 MB of text)
#   sector      ${DUALGAP_DATA}/sector/sector.scale.bz2, decompressed
#   usps        ${DUALGAP_DATA}/usps/zip.train.gz, decompressed: dense text for dualgap, and
#               the same values as LIBSVM (zeros left out) for LIBLINEAR, which reads no other
#               format; their MB differ, so compare examples/s there
#
# Usage: bench/scale/parse.sh [BUILD_DIR] [WORK_DIR]
# BUILD_DIR is a tree built with -DDUALGAP_BUILD_BENCH=ON (target dataset_bench). $REPEATS
# repeats each (default 3): the median [min, max] wall seconds; a Markdown table on stdout. Run
# it on a quiet machine and say its load.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
scale_args parse "$@"
sizes="${SIZES:-320000}"
reps="${REPEATS:-3}"
bench="$build/bench/dataset_bench"
scale_need "$bench" "build with -DDUALGAP_BUILD_BENCH=ON --target dataset_bench"
scale_need liblinear-train "apt-get install liblinear-tools"
scale_compile gen_linear
"${CC:-cc}" -shared -fPIC -O2 -o "$work/read_problem_time.so" "$here/read_problem_time.c"

# rows: "NAME<TAB>FORMAT<TAB>OURS_FILE<TAB>LIBLINEAR_FILE"
rows=()
for n in $sizes; do
  f="$work/linear-$n.svm"
  [ -s "$f" ] || "$work/gen_linear" "$f" "$n" >/dev/null
  rows+=("generated n = $n	libsvm	$f	$f")
done
if [ -n "${DUALGAP_DATA:-}" ]; then
  [ -s "$work/sector.svm" ] || bzcat "$DUALGAP_DATA/sector/sector.scale.bz2" > "$work/sector.svm"
  rows+=("sector	libsvm	$work/sector.svm	$work/sector.svm")
  if [ ! -s "$work/usps.svm" ]; then
    zcat "$DUALGAP_DATA/usps/zip.train.gz" > "$work/usps.txt"
    awk '{ printf "%d", $1; for (i = 2; i <= NF; i++) if ($i + 0 != 0) printf " %d:%s", i - 1, $i; print "" }' \
      "$work/usps.txt" > "$work/usps.svm"
  fi
  rows+=("usps	dense_text	$work/usps.txt	$work/usps.svm")
fi

# stats: median [min, max] of the numbers on stdin, "%.3f [%.3f, %.3f]"-like, and the median alone
med() { sort -g | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

echo "| data | dualgap plugin | MB (ours / LIBLINEAR's file) | examples | dualgap wall s | LIBLINEAR read_problem wall s | dualgap MB/s | LIBLINEAR MB/s | speed-up |"
echo "|---|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  IFS=$'\t' read -r name plugin ours theirs <<<"$row"
  cat "$ours" "$theirs" > /dev/null  # into the page cache
  out=$("$bench" --parse "$plugin" "$reps" "$ours" 2>&1 | tail -n 1)
  IFS=$'\t' read -r _ mb_ours examples _ w_med w_min w_max _ <<<"$out"
  times=()
  for ((r = 0; r < reps; r++)); do
    line=$(LD_PRELOAD="$work/read_problem_time.so" liblinear-train "$theirs" "$work/model" 2>&1 >/dev/null | grep '^read_problem')
    IFS=$'\t' read -r _ l_examples _ l_wall _ <<<"$line"
    [ "$l_examples" = "$examples" ] || { echo "parse.sh: $name: LIBLINEAR read $l_examples examples, dualgap $examples" >&2; exit 1; }
    times+=("$l_wall")
  done
  read -r t_med t_min t_max <<<"$(printf '%s\n' "${times[@]}" | med)"
  mb_theirs=$(awk -v b="$(stat -c %s "$theirs")" 'BEGIN { printf "%.1f", b / 1e6 }')
  awk -v n="$name" -v p="$plugin" -v mo="$mb_ours" -v mt="$mb_theirs" -v e="$examples" \
      -v wm="$w_med" -v wa="$w_min" -v wb="$w_max" -v tm="$t_med" -v ta="$t_min" -v tb="$t_max" 'BEGIN {
    printf "| %s | %s | %s / %s | %s | %.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] | %.0f | %.0f | %.2fx |\n",
           n, p, mo, mt, e, wm, wa, wb, tm, ta, tb, mo / wm, mt / tm, tm / wm }'
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); work folder: $work"
