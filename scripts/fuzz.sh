#!/usr/bin/env bash
# Runs each libFuzzer harness of tests/fuzz for SECONDS (default 60) from its committed seed
# corpus, new inputs going to a temporary folder, as many at once as there are cores (nproc). The
# harnesses are built in the sanitizer tree ./build-asan (scripts/sanitizer_tree.sh: clang, ASan +
# UBSan, the coverage counters in the core and the plugins they read with): after
# scripts/test_asan.sh there is nothing left to build.
# A crash, a sanitizer report, a timeout or an out-of-memory fails the script, with the input
# saved as build-asan/crash-* (or leak-, timeout-, oom-): turn it into a case of tests/catalog
# (a file and a line of cases.tsv), then fix it. Prints executions and coverage per harness.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
jobs=$(nproc 2>/dev/null || echo 2)
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  # every harness of tests/fuzz (one fuzz_<name>.cpp each), built as one target in parallel
  harnesses=($(cd tests/fuzz && for f in fuzz_*.cpp; do echo "${f%.cpp}"; done))
  bash scripts/sanitizer_tree.sh --target fuzzers
else
  bash scripts/sanitizer_tree.sh --target "${harnesses[@]}"
fi
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One harness: -rss_limit_mb because a parser that allocates from a header's sizes must refuse,
# not allocate; each harness works in its own folder (its temporary input files carry its PID).
fuzz_one() {
  local h=$1
  mkdir -p "$work/$h"
  (cd build-asan && "./tests/fuzz/$h" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
     "$work/$h" "../tests/fuzz/corpus/$h" >"$h.log" 2>&1)
}

report() {
  local h=$1 log="build-asan/$1.log" runs cov
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 || true)
  echo "fuzz: $h ${seconds}s: $runs executions, $cov, $(find "$work/$h" -type f | wc -l) new corpus inputs"
}

failed=()
running=()
finish_oldest() {
  local h=${running[0]%%:*} pid=${running[0]#*:}
  running=("${running[@]:1}")
  if wait "$pid"; then report "$h"; else
    echo "fuzz: $h FAILED (see build-asan/$h.log)"; tail -40 "build-asan/$h.log"; failed+=("$h")
  fi
}
for h in "${harnesses[@]}"; do
  [ ${#running[@]} -lt "$jobs" ] || finish_oldest
  fuzz_one "$h" &
  running+=("$h:$!")
done
while [ ${#running[@]} -gt 0 ]; do finish_oldest; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
