# CTest `layout_json_include`: the JSON library is included only through dualgap/json.hpp, which
# defines nlohmann's JSON_ASSERT to throw before the library is read. A source that includes
# <nlohmann/json.hpp> itself gets the library's release-build `assert`, under which a missing key
# of a const object or an end iterator is undefined behaviour on an untrusted file. Fails naming
# file and line of every other include under core/, plugins/, bench/ and tests/.
# Usage: cmake -DROOT=<source dir> -P json_include.cmake
if(NOT ROOT)
  message(FATAL_ERROR "json_include.cmake: pass -DROOT=<dualgap source dir>")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)
set(globs "")
foreach(top core plugins bench tests)
  foreach(ext cpp hpp h cc in)
    list(APPEND globs ${ROOT}/${top}/*.${ext})
  endforeach()
endforeach()
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${globs})
# json.hpp itself, and the SDK fixture that includes the library first to show it does not compile
list(REMOVE_ITEM sources core/include/dualgap/json.hpp tests/sdk/fixtures/json_first.cpp)
include(${CMAKE_CURRENT_LIST_DIR}/scan_lines.cmake)
scan_rule(RULE json_include FILES ${sources} PATTERN "^[ \t]*#[ \t]*include[ \t]*[<\"]nlohmann/"
  MESSAGE "nlohmann/json included without dualgap/json.hpp (its preconditions would not be checked)"
  SUMMARY "sources, all read the JSON library through dualgap/json.hpp")
