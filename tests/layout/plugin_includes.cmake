# CTest `layout_plugin_includes`: no plugin reaches into another plugin's folder.
# Shared plugin code lives in plugins/lib/<topic>/ and is included by topic ("sparse/...hpp")
# through the target dualgap_lib_<topic> (plugins/lib/README.md). This fails, naming file and
# line, on any `#include "../..."` under plugins/ and on any plugin CMakeLists.txt that names a
# folder under plugins/ (an include path into a sibling).
# Usage: cmake -DROOT=<source dir> -P plugin_includes.cmake
if(NOT ROOT)
  message(FATAL_ERROR "plugin_includes.cmake: pass -DROOT=<dualgap source dir>")
endif()
file(GLOB_RECURSE sources RELATIVE ${ROOT}
  ${ROOT}/plugins/*.cpp ${ROOT}/plugins/*.hpp ${ROOT}/plugins/*.h ${ROOT}/plugins/*.cc)
include(${CMAKE_CURRENT_LIST_DIR}/scan_lines.cmake)
set(problems "")
scan_lines(OUT problems FILES ${sources} PATTERN "^[ \t]*#[ \t]*include[ \t]*[\"<]\\.\\./")
file(GLOB cmakelists RELATIVE ${ROOT} ${ROOT}/plugins/*/*/CMakeLists.txt)
list(FILTER cmakelists EXCLUDE REGEX "^plugins/lib/")
scan_lines(OUT problems FILES ${cmakelists} PATTERN "^[^#]*(/plugins/|\\.\\./)")
if(problems)
  message(FATAL_ERROR "A plugin reaches into a sibling plugin's folder; move the shared code to "
                      "plugins/lib/<topic>/ and link dualgap_lib_<topic> (plugins/lib/README.md):\n${problems}")
endif()
list(LENGTH sources count)
message(STATUS "plugin_includes: ${count} plugin sources, none includes a sibling")
