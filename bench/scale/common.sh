# Sourced by memory.sh, pair.sh, parse.sh and scaling.sh after they set `here` (their folder):
# their two arguments, the tools they check for, the helper programs they compile into WORK_DIR,
# and the statistics of their tables.
#
#   scale_args NAME [BUILD_DIR] [WORK_DIR]
#       sets `build` (default: the checkout's build/) and `work` (default: a new folder under
#       $TMPDIR named after NAME), and creates `work`; NAME (memory, pair, parse, scaling)
#       heads the script's messages
#   scale_need FILE_OR_COMMAND HINT
#       exits 2 when FILE_OR_COMMAND is not an executable or a command on PATH, saying HINT
#   scale_compile PROG
#       compiles $here/PROG.cpp into $work/PROG with $CXX (default c++) unless it is up to date
#   scale_stats FORMAT
#       prints "median [min, max]" of the numbers on stdin, each with the printf FORMAT
#   scale_median
#       prints the median of the numbers on stdin (of an even count, the lower middle one)

scale_args() {
  scale_name=$1
  build="${2:-$here/../../build}"
  work="${3:-$(mktemp -d "${TMPDIR:-/tmp}/dualgap-$scale_name.XXXXXX")}"
  mkdir -p "$work"
}

scale_need() {
  command -v "$1" >/dev/null || { echo "$scale_name.sh: no $1 ($2)" >&2; exit 2; }
}

scale_compile() {
  [ "$work/$1" -nt "$here/$1.cpp" ] || "${CXX:-c++}" -O2 -std=c++17 -o "$work/$1" "$here/$1.cpp"
}

scale_stats() {
  sort -g | awk -v f="$1" '{ v[NR] = $1 } END { printf f " [" f ", " f "]", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

scale_median() {
  sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
