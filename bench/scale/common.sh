# Sourced by memory.sh, pair.sh, parse.sh and scaling.sh after they set `here` (their folder): their two
# arguments, the tools they check for, and the helper programs they compile into WORK_DIR.
#
#   scale_args NAME [BUILD_DIR] [WORK_DIR]
#       sets `build` (default: the checkout's build/) and `work` (default: a new folder under
#       $TMPDIR named after NAME), and creates `work`; NAME (memory, pair, parse, scaling) heads the
#       script's messages
#   scale_need FILE_OR_COMMAND HINT
#       exits 2 when FILE_OR_COMMAND is not an executable or a command on PATH, saying HINT
#   scale_compile PROG
#       compiles $here/PROG.cpp into $work/PROG with $CXX (default c++) unless it is up to date

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
