#!/usr/bin/env bash
# Every peer comparison (README.md here), one `dualgap run` per workload (ours and the peer side by
# side in one process pool, one run at a time), then one line per workload: peer time, our
# time, ratio (ours / peer; < 1: ours is faster), peak RSS of both, and the machine's load
# (1-minute average from /proc/loadavg) before and after the workload.
#
#   multiclass/*.yaml   multi-class SSVM, lambda = 1/n: bcfw (its default, exact block steps)
#                       against LIBLINEAR -s 4 over the tolerances 0.1, 0.05, 0.02, 0.01, ...;
#                       time to 0.1 % of the optimum (ratio.py: how the optimum is bounded).
#   experiments/bcfw-threads/*.yaml   OCR chain and horse graph cut: bcfw on 1 and 2 threads to a
#                       duality gap of 1e-2 x primal; MP-BCFW and dlib at equal thread counts,
#                       to the primal of dlib's run at eps 0.01.
#
# Usage: bench/peers/run-all.sh [BUILD_DIR] [OUT_DIR] [WORKLOAD...]   (workload: a file name, e.g. usps, ocr)
# Needs DUALGAP_DATA (the real data sets). With 3 repeats (each experiment's `repeats`) all
# workloads took about 30 minutes on the 2-core machine (2026-11-25). Time a quiet machine:
# the load is printed to judge.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
out="${2:-peers-results}"
shift $(( $# > 2 ? 2 : $# )) || true
: "${DUALGAP_DATA:?set DUALGAP_DATA to the folder of the shared data sets}"
dualgap="$build/bin/dualgap"
[ -x "$dualgap" ] || { echo "run-all.sh: no $dualgap (build first: scripts/build.sh)" >&2; exit 2; }
mkdir -p "$out"
load() { cut -d' ' -f1 /proc/loadavg; }

wanted=("$@")
# execute FILE: runs the workload unless not wanted; sets $dir (results) and $loads.
execute() {
  local file=$1 name; name=$(basename "$file" .yaml)
  dir=""
  if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " == *" $name "* ]]; then return; fi
  local before; before=$(load)
  if ! "$dualgap" run "$file" -o "$out" --jobs 1 > "$out/$name.log" 2>&1; then
    echo "$name: dualgap run failed, see $out/$name.log" | tee -a "$out/summary.txt"
    return
  fi
  loads="$before -> $(load)"
  dir="$out/$(sed -n 's/^name: *//p' "$file" | head -1)"
}
report() {  # report OURS PEER [ratio.py options]
  [ -n "$dir" ] || return 0
  python3 "$here/ratio.py" "$dir" "$@" --load "$loads" | tee -a "$out/summary.txt"
}

for f in "$here"/multiclass/*.yaml; do execute "$f"; report BCFW-exact LIBLINEAR --target 1e-3; done
for f in "$here"/../../experiments/bcfw-threads/*.yaml; do
  execute "$f"
  # threads: BCFW with 2 threads (batch 2) against plain BCFW on 1, and the same batch on 1
  report BCFW-b2-2t BCFW-1t --rel-gap 1e-2
  report BCFW-b2-2t BCFW-b2-1t --rel-gap 1e-2
  # dlib at equal threads, to the primal of its run at eps 0.01: the best of ours (MP-BCFW)
  report MP-BCFW-1t dlib-1t --peer-primal
  report MP-BCFW-b2-2t dlib-2t --peer-primal
done
echo "summary: $out/summary.txt"
