# CTest `layout_file_writes`: every file the core writes goes through core/src/base/files.cpp
# (AtomicFile / write_file_atomic: a temporary, fsync, rename; open_in_place: O_NOFOLLOW, no
# hard-linked file, for the few files written where they are). This fails, naming file and line,
# on any other way of opening a file for writing or moving one under core/src.
# Usage: cmake -DROOT=<source dir> -P file_writes.cmake
if(NOT ROOT)
  message(FATAL_ERROR "file_writes.cmake: pass -DROOT=<dualgap source dir>")
endif()
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/core/src/*.cpp ${ROOT}/core/src/*.hpp)
# ofstream/fopen/creat/mkstemp, open flags that write, renames and copies, xtensor's file writer
set(pattern "(ofstream|(^|[^a-z_])fstream[ \t]+[a-z_]+\\(|fopen\\(|[^a-z_]creat\\(|mkstemp|mkostemp|O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|[^a-z_]rename(at2?)?\\(|copy_file|fs::copy\\(|dump_npy\\(\"|std::filesystem::copy\\()")
list(REMOVE_ITEM sources core/src/base/files.cpp core/src/base/files.hpp)
include(${CMAKE_CURRENT_LIST_DIR}/scan_lines.cmake)
scan_rule(RULE file_writes FILES ${sources} PATTERN "${pattern}"
  MESSAGE "A file is written without core/src/base/files.hpp (write_file_atomic, AtomicFile, or open_in_place for a file written in place)"
  SUMMARY "core sources, every write goes through base/files.cpp")
