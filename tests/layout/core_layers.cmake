# CTest `layout_core_layers`: the folders of core/src are layers, and a file includes only
# headers of its own layer or of the layers below it, so the tree reads bottom-up:
#   base/                        hashing, random streams, files, processes
#   plugins/ objectives/ oracles/  loading plugins; the core's scoring of every problem family
#   data/                        data files, the data pipeline, the registry and downloads
#   experiment/                  experiment files: schema, expansion, selection, config hashes
#   run/                         running, recording, re-scoring, locks, Slurm, status
#   compare/ scaffold/           reading recorded runs into tables, reports, figures; new plugins
#   check/                       the papers' claims, evaluated on compared runs
#   cli/                         the commands
# This fails, naming file and line, on any `#include "<folder>/..."` of a higher layer, and on
# a folder of core/src that has no layer here (a new folder must be placed in the order).
# Usage: cmake -DROOT=<source dir> -P core_layers.cmake
if(NOT ROOT)
  message(FATAL_ERROR "core_layers.cmake: pass -DROOT=<dualgap source dir>")
endif()
set(rank_base 0)
set(rank_plugins 1)
set(rank_objectives 1)
set(rank_oracles 1)
set(rank_data 2)
set(rank_experiment 3)
set(rank_run 4)
set(rank_compare 5)
set(rank_scaffold 5)
set(rank_check 6)
set(rank_cli 7)
set(problems "")
file(GLOB folders LIST_DIRECTORIES true RELATIVE ${ROOT}/core/src ${ROOT}/core/src/*)
foreach(d ${folders})
  if(IS_DIRECTORY ${ROOT}/core/src/${d} AND NOT DEFINED rank_${d})
    string(APPEND problems "  core/src/${d}/: a folder with no layer (add it to core_layers.cmake)\n")
  elseif(NOT IS_DIRECTORY ${ROOT}/core/src/${d})
    string(APPEND problems "  core/src/${d}: a file outside the layers (move it into one)\n")
  endif()
endforeach()
file(GLOB_RECURSE sources RELATIVE ${ROOT}/core/src ${ROOT}/core/src/*.cpp ${ROOT}/core/src/*.hpp)
foreach(f ${sources})
  string(REGEX MATCH "^[^/]+" layer "${f}")
  if(NOT DEFINED rank_${layer})
    continue()
  endif()
  file(STRINGS ${ROOT}/core/src/${f} lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"/]+)/")
      set(to "${CMAKE_MATCH_1}")
      if(DEFINED rank_${to} AND rank_${to} GREATER rank_${layer})
        string(APPEND problems "  core/src/${f}:${n}: ${layer}/ includes ${to}/, a higher layer: ${line}\n")
      endif()
    elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"[^\"/]+\"" AND NOT line MATCHES "\"dualgap/")
      string(APPEND problems "  core/src/${f}:${n}: include by its folder-relative path (\"<layer>/file.hpp\"): ${line}\n")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "core/src breaks its layering (tests/layout/core_layers.cmake):\n${problems}")
endif()
list(LENGTH sources count)
message(STATUS "core_layers: ${count} core sources, each includes only its own layer or those below")
