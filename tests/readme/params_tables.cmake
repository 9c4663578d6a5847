# The parameter table of every plugin README (plugins/<kind>/<name>/README.md, between the lines
# <!-- params:begin --> and <!-- params:end -->) is `dualgap describe <name> --kind <kind>
# --markdown`: written from the plugin's description, never by hand. For each plugin folder this
# runs `dualgap describe <name> --kind <kind> --readme plugins/<kind>/<name>/README.md`, which
# writes the table (MODE=write: the target params_tables) or, with --check, names the README's
# first line that differs (MODE=check: the CTest readme_params). The comparison and the writing
# are dualgap's (core/src/cli/params_table.cpp); this script only visits the folders.
# Usage: cmake -DROOT=<tree with plugins/> -DDUALGAP=<dualgap> -DMODE=check|write -P params_tables.cmake
# (DUALGAP_PLUGIN_PATH empty: the plugins of dualgap's own build tree).
if(NOT ROOT OR NOT DUALGAP OR NOT MODE MATCHES "^(check|write)$")
  message(FATAL_ERROR "params_tables.cmake: pass -DROOT=<source dir> -DDUALGAP=<dualgap> -DMODE=check|write")
endif()
set(problems "")
set(count 0)
file(GLOB dirs LIST_DIRECTORIES true RELATIVE ${ROOT}
     ${ROOT}/plugins/dataset/* ${ROOT}/plugins/features/* ${ROOT}/plugins/oracle/* ${ROOT}/plugins/solver/*)
list(SORT dirs)
foreach(dir ${dirs})
  if(NOT IS_DIRECTORY ${ROOT}/${dir})
    continue()
  endif()
  get_filename_component(name ${dir} NAME)
  get_filename_component(kind_dir ${dir} DIRECTORY)
  get_filename_component(kind ${kind_dir} NAME)
  if(NOT EXISTS ${ROOT}/${dir}/README.md)
    string(APPEND problems "${dir}/README.md: missing (every plugin has a README with its parameter table)\n")
    continue()
  endif()
  set(args describe ${name} --kind ${kind} --readme ${dir}/README.md)
  if(MODE STREQUAL "check")
    list(APPEND args --check)
  endif()
  execute_process(COMMAND ${DUALGAP} ${args} WORKING_DIRECTORY ${ROOT}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND problems "${err}")
  elseif(out)
    message(STATUS "${out}")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(problems)
  # NOTICE prints the messages as dualgap wrote them (FATAL_ERROR would rewrap their lines).
  message(NOTICE "${problems}")
  message(FATAL_ERROR "plugin README parameter tables differ from dualgap describe --markdown "
                      "(cmake --build build --target params_tables rewrites them)")
endif()
message(STATUS "params_tables: the parameter tables of ${count} plugin READMEs are those of dualgap describe --markdown")
