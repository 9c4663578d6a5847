#!/bin/sh
# Fig. 6 of Lin et al. (ACCV 2012) in one command: FCD (tau_max 1, 2, 5, 10) against L-BFGS-B on
# VOWEL and USPS, C = 1e4, in both views (fixed restricted problem from w = 0; column generation),
# then the time each needs to come within 1e-3 .. 1e-6 (relative) of L-BFGS-B's final objective.
#   bench/boosting/fig6.sh [OUT_DIR] [DUALGAP_BINARY]      (needs DUALGAP_DATA; runs one at a time)
set -e
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-results}
bin=${2:-$here/build/bin/dualgap}
for e in vowel-fixed usps-fixed vowel usps; do
  "$bin" run "$here/experiments/multiboost-fig6/$e.yaml" --jobs 1 --out "$out" --no-report >/dev/null
done
for e in vowel-fixed usps-fixed vowel usps; do
  /usr/bin/python3 "$here/bench/boosting/summarize.py" fig6 "$out/multiboost-fig6-$e"
done
