#!/usr/bin/env bash
# Peak RSS of one `dualgap run` of the multi-class SSVM (default `plugin: bcfw`, oracle
# `multiclass`, lambda = 1/n, to a relative gap of 1e-2) against `liblinear-train -s 4 -e 0.1`
# on the same LIBSVM file, and a table of both (README.md here):
#
#   generated   planted linear model, 10 % label noise, d 20 000, 30 nonzeros per row, K 20
#               (gen_linear.cpp), n = $SIZES (default 20000 80000 320000 1280000)
#   sector      ${DUALGAP_DATA}/sector/sector.scale.bz2, decompressed (liblinear-train reads plain text)
#   mnist       ${DUALGAP_DATA}/mnist's 10k idx pair as LIBSVM (idx_to_libsvm.cpp), and the same
#               images read by dualgap's own idx plugin, dense (its default) and sparse: true
#
# Usage: bench/scale/memory.sh [BUILD_DIR] [WORK_DIR]
# The data files (1.28 M rows: 590 MB) and results go to WORK_DIR (default: a fresh folder under
# $TMPDIR); the two programs are compiled there with c++. Peak RSS is GNU time's maximum
# resident set size (of the dualgap process tree: the run is a child of the runner), in MB of
# 10^6 bytes. Memory only: no time is printed (a shared machine's load does not change RSS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
scale_args memory "$@"
sizes="${SIZES:-20000 80000 320000 1280000}"
dualgap="$build/bin/dualgap"
scale_need "$dualgap" "build first: scripts/build.sh"
scale_need liblinear-train "apt-get install liblinear-tools"
scale_need /usr/bin/time "apt-get install time"
scale_compile gen_linear
scale_compile idx_to_libsvm

# config FILE NAME DATA: an experiment of one default bcfw run (the multi-class SSVM) on DATA
config() {
  cat > "$work/$1" <<EOF
name: $2
data:     $3
oracle:   {plugin: multiclass}
problem:  {lambda: 1/n}
solvers:
  - {name: bcfw, plugin: bcfw}
stop:     {max_passes: 1000, rel_gap: 1e-2}
seed:     0
EOF
}
# ${MEMORY_TRAIN} and ${MEMORY_LABELS} are expanded by dualgap, from the environment of each run
config memory.yaml scale-memory '{plugin: libsvm, train: "${MEMORY_TRAIN}"}'
for sparse in false true; do
  storage=dense; [ "$sparse" = true ] && storage=sparse
  config "memory-idx-$storage.yaml" "scale-memory-idx-$storage" \
    "{plugin: idx, train: \"\${MEMORY_TRAIN}\", train_labels: \"\${MEMORY_LABELS}\", sparse: $sparse}"
done

# peak_kb LOG: GNU time's "Maximum resident set size (kbytes)"
peak_kb() { sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$1"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }'; }

# ours NAME CONFIG [ENV...]: one dualgap run in a fresh results folder; prints its peak RSS in kB
ours() {
  local name=$1 config=$2; shift 2
  rm -rf "$work/results-$name"
  if ! env "$@" /usr/bin/time -v "$dualgap" run "$config" -o "$work/results-$name" --no-report \
      > "$work/$name.dualgap.log" 2> "$work/$name.dualgap.time"; then
    echo "memory.sh: dualgap run on $name failed, see $work/$name.dualgap.log and .time" >&2
    exit 1
  fi
  grep -q ' 0 failed' "$work/$name.dualgap.log" || { echo "memory.sh: the run on $name failed: $work/$name.dualgap.log" >&2; exit 1; }
  peak_kb "$work/$name.dualgap.time"
}
theirs() {  # theirs NAME FILE
  /usr/bin/time -v liblinear-train -s 4 -e 0.1 -q "$2" "$work/$1.model" > /dev/null 2> "$work/$1.liblinear.time"
  peak_kb "$work/$1.liblinear.time"
}

echo "| data | n | nonzeros | file MB | dualgap peak RSS MB | liblinear-train peak RSS MB | ratio |"
echo "|---|---|---|---|---|---|---|"
# LIBLINEAR's peak and the file's counts, once per file (the MNIST rows share one file)
declare -A peer_kb rows nonzeros
row() {  # row NAME FILE [ours KB]
  local name=$1 file=$2 o=${3:-} t n nnz
  [ -n "$o" ] || o=$(ours "$name" "$work/memory.yaml" MEMORY_TRAIN="$file")
  if [ -z "${peer_kb[$file]:-}" ]; then
    peer_kb[$file]=$(theirs "$name" "$file")
    rows[$file]=$(wc -l < "$file")
    nonzeros[$file]=$(awk '{ c += NF - 1 } END { print c }' "$file")
  fi
  t=${peer_kb[$file]} n=${rows[$file]} nnz=${nonzeros[$file]}
  echo "| $name | $n | $nnz | $(mb "$(( $(stat -L -c %s "$file") / 1024 ))") | $(mb "$o") | $(mb "$t") | $(awk -v a="$o" -v b="$t" 'BEGIN { printf "%.2f", a / b }') |"
}

for n in $sizes; do
  f="$work/linear-$n.svm"
  [ -s "$f" ] || "$work/gen_linear" "$f" "$n"
  row "generated-$n" "$f"
done
if [ -n "${DUALGAP_DATA:-}" ]; then
  if [ -s "$DUALGAP_DATA/sector/sector.scale.bz2" ]; then
    [ -s "$work/sector.scale" ] || bzip2 -dc "$DUALGAP_DATA/sector/sector.scale.bz2" > "$work/sector.scale"
    row sector "$work/sector.scale"
  fi
  if [ -s "$DUALGAP_DATA/mnist/t10k-images-idx3-ubyte.gz" ]; then
    if [ ! -s "$work/mnist.svm" ]; then
      gzip -dc "$DUALGAP_DATA/mnist/t10k-images-idx3-ubyte.gz" > "$work/mnist-images"
      gzip -dc "$DUALGAP_DATA/mnist/t10k-labels-idx1-ubyte.gz" > "$work/mnist-labels"
      "$work/idx_to_libsvm" "$work/mnist-images" "$work/mnist-labels" "$work/mnist.svm"
    fi
    row mnist "$work/mnist.svm"
    # the same images through dualgap's idx plugin (pixels / 255, as in mnist.svm), dense (its
    # default) and sparse: true, against the same liblinear-train
    for storage in dense sparse; do
      row "mnist-idx-$storage" "$work/mnist.svm" "$(ours "mnist-idx-$storage" "$work/memory-idx-$storage.yaml" \
          MEMORY_TRAIN="$DUALGAP_DATA/mnist/t10k-images-idx3-ubyte.gz" MEMORY_LABELS="$DUALGAP_DATA/mnist/t10k-labels-idx1-ubyte.gz")"
    done
  fi
else
  echo "(DUALGAP_DATA unset: sector and MNIST left out)" >&2
fi
echo "files, logs and results: $work" >&2
