#!/usr/bin/env bash
# dlib vs dualgap on the horse segmentation SSVM (first $DUALGAP_PEER_IMAGES = 100 Weizmann images,
# all train, SLIC superpixels of size 12, Potts weight beta = 1 FIXED, normalized Hamming loss,
# lambda = 1/n), both sides in one command, 1 thread each, run one after the other.
#   bench/peers/dlib_horse.sh BUILD_DIR [dlib eps ...]      (needs DUALGAP_DATA)
# dlib side: bench/dlib_horse (dlib's structural_svm_graph_labeling_problem + oca, the Potts
# edge weight pinned to beta, C = 2/lambda = 2n: exactly dualgap's objective, see dlib_horse.md),
# one training per eps, each timed and scored with OUR primal at dlib's w.
# DUALGAP_PEER_TRAINER=1 also runs the stock structural_graph_labeling_trainer (learned Potts
# weight: a different model) at the first eps, for information.
# dualgap side: dualgap run of BCFW, MP-BCFW and BCFW-PW-gap (graph_cut, beta 1, normalized);
# reports the solver time (evaluation excluded) at which each first reaches each dlib primal.
set -euo pipefail
BUILD=${1:?usage: dlib_horse.sh BUILD_DIR [eps ...]}
shift || true
EPS=("$@")
[ ${#EPS[@]} -eq 0 ] && EPS=(1.0 0.1 0.01)
: "${DUALGAP_DATA:?set DUALGAP_DATA to the shared data folder}"
IMAGES=${DUALGAP_PEER_IMAGES:-100}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
CACHE="$OUT/res/.cache"   # dualgap run's data cache: the superpixel graphs are built once

echo "== load: $(uptime)"
echo "== dlib (1 thread), $IMAGES images, eps: ${EPS[*]}"
"$BUILD/bench/dlib_horse" "$DUALGAP_DATA/weizmann_horse" "$BUILD/plugins" "$IMAGES" "$CACHE" "${EPS[@]}" \
  | tee "$OUT/dlib.jsonl"
if [ "${DUALGAP_PEER_TRAINER:-0}" = 1 ]; then
  echo "== dlib stock trainer (learned Potts weight; NOT dualgap's objective), eps ${EPS[0]}"
  "$BUILD/bench/dlib_horse" "$DUALGAP_DATA/weizmann_horse" "$BUILD/plugins" "$IMAGES" "$CACHE" --trainer "${EPS[0]}"
fi

cat > "$OUT/horse.yaml" <<YAML
name: dlib-peer-horse
data:     {plugin: segmentation, dir: "\${DUALGAP_DATA}/weizmann_horse", num_images: $IMAGES, test_fraction: 0,
           superpixels: slic, superpixel_size: 12}
oracle:   {plugin: graph_cut, beta: 1, loss: normalized}
problem:  {lambda: 1/n}
solvers:
  - {name: BCFW,    plugin: bcfw, params: {train_error: false}}
  - {name: MP-BCFW, plugin: bcfw, params: {multiplane: true, T: 10, N: 1000, M: 1000, train_error: false}}
  - {name: BCFW-PW-gap, plugin: bcfw, params: {multiplane: true, M: 0, inner_steps: 3, sample: gap, train_error: false}}
stop:     {max_time: ${DUALGAP_PEER_TIME:-30}}
record:   {every: 1}
repeats:  1
seed:     0
YAML
echo "== dualgap (1 job at a time)"
"$BUILD/bin/dualgap" run "$OUT/horse.yaml" --out "$OUT/res" --jobs 1 --no-report | tail -2
echo "== load: $(uptime)"

python3 "$(dirname "$0")/dlib_peer_summary.py" "$OUT"
