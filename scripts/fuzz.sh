#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang (ASan + UBSan) into ./build-fuzz and
# runs each for SECONDS (default 60) from its committed seed corpus, new inputs going to a
# temporary folder. A crash stops the script with the input saved as build-fuzz/crash-*: turn
# it into a case of tests/catalog (a file and a line of cases.tsv), then fix it.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DDUALGAP_FUZZ=ON \
  -DCMAKE_CXX_FLAGS="-g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
  ${DUALGAP_CMAKE_ARGS:-} >/dev/null
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  harnesses=(fuzz_libsvm fuzz_dense_text fuzz_idx fuzz_ocr_tsv fuzz_experiment fuzz_set fuzz_run_json)
fi
cmake --build build-fuzz -j"$jobs" --target "${harnesses[@]}"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for h in "${harnesses[@]}"; do
  mkdir -p "$work/$h"
  log="build-fuzz/$h.log"
  # -rss_limit_mb: a parser that allocates from a header's sizes must refuse, not allocate.
  (cd build-fuzz && "./$h" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
     "$work/$h" "../tests/fuzz/corpus/$h" >"$h.log" 2>&1) || { echo "fuzz: $h FAILED (see $log)"; tail -40 "$log"; exit 1; }
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
  echo "fuzz: $h ${seconds}s: $runs executions, $cov, corpus $(ls "$work/$h" | wc -l) new inputs"
done
