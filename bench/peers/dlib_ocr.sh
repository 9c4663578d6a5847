#!/usr/bin/env bash
# dlib vs dualgap on the OCR chain SSVM (train fold 0, 626 words, lambda = 1/n, Hamming COUNT
# loss), both sides in one command, 1 thread each, run one after the other on the same machine.
#   bench/peers/dlib_ocr.sh BUILD_DIR [dlib eps ...]      (needs DUALGAP_DATA)
# dlib side: bench/dlib_ocr (structural_sequence_labeling_trainer, C = 1/lambda = n), one
# training per eps, each timed and scored with OUR primal at dlib's w.
# dualgap side: dualgap run of BCFW and MP-BCFW (chain_viterbi, loss: count); reports the
# solver time (evaluation excluded) at which each first reaches each dlib primal value.
set -euo pipefail
BUILD=${1:?usage: dlib_ocr.sh BUILD_DIR [eps ...]}
shift || true
EPS=("$@")
[ ${#EPS[@]} -eq 0 ] && EPS=(1.0 0.5 0.25)
: "${DUALGAP_DATA:?set DUALGAP_DATA to the shared data folder}"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== dlib (1 thread), eps: ${EPS[*]}"
"$BUILD/bench/dlib_ocr" "$DUALGAP_DATA/ocr/ocr_letters.tsv.gz" "$BUILD/plugins" "${EPS[@]}" | tee "$OUT/dlib.jsonl"

cat > "$OUT/ocr-count.yaml" <<YAML
name: dlib-peer-ocr
data:     {plugin: ocr_letters, path: "\${DUALGAP_DATA}/ocr/ocr_letters.tsv.gz", train_folds: [0], max_test_words: 1}
oracle:   {plugin: chain_viterbi, loss: count}
problem:  {lambda: 1/n}
solvers:
  - {name: BCFW,    plugin: bcfw, params: {train_error: false}}
  - {name: MP-BCFW, plugin: bcfw, params: {multiplane: true, T: 10, N: 1000, M: 1000, train_error: false}}
  - {name: BCFW-PW-gap, plugin: bcfw, params: {multiplane: true, M: 0, inner_steps: 3, sample: gap, train_error: false}}
stop:     {max_time: ${DUALGAP_PEER_TIME:-20}}
record:   {every: 1}
repeats:  1
seed:     0
YAML
echo "== dualgap (1 job at a time)"
"$BUILD/bin/dualgap" run "$OUT/ocr-count.yaml" --out "$OUT/res" --jobs 1 --no-report | tail -2

python3 "$(dirname "$0")/dlib_peer_summary.py" "$OUT"
