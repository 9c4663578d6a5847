# CTest `layout_json_text`: the core turns JSON into text only through json_text()
# (core/src/base/json_text.hpp). nlohmann's own dump() throws on a string that is not valid
# UTF-8, and such a string can come from any experiment file or results folder (a Latin-1 name):
# one writer means no command fails on it with the library's exception instead of naming the file.
# This fails, naming file and line, on any `.dump(` elsewhere under core/src.
# Usage: cmake -DROOT=<source dir> -P json_text.cmake
if(NOT ROOT)
  message(FATAL_ERROR "json_text.cmake: pass -DROOT=<dualgap source dir>")
endif()
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/core/src/*.cpp ${ROOT}/core/src/*.hpp)
list(REMOVE_ITEM sources core/src/base/json_text.hpp)
include(${CMAKE_CURRENT_LIST_DIR}/scan_lines.cmake)
scan_rule(RULE json_text FILES ${sources} PATTERN "\\.dump\\("
  MESSAGE "JSON turned into text without json_text() (core/src/base/json_text.hpp)"
  SUMMARY "core sources, every dump goes through json_text()")
