# The line scan the layout rules share: every line of FILES (relative to ROOT) that matches
# PATTERN, outside lines that are // comments when SKIP_COMMENTS, appended to OUT as
# "  file:line: text" (the form every layout rule prints).
# Usage: include(scan_lines.cmake); scan_lines(OUT problems FILES ${f} PATTERN "re" [SKIP_COMMENTS])
# A whole rule over code (// comments skipped): scan_rule(RULE name FILES ${f} PATTERN "re"
# MESSAGE "what is wrong" SUMMARY "what holds") fails with MESSAGE and the lines found, or prints
# "name: <number of files> SUMMARY".
# The lines of `text` as a CMake list in OUT: `;`, `\`, `[` and `]` would split, escape or group
# list items (file(STRINGS) joins every line after an unbalanced `[`), so they travel as
# placeholders; decoded_line(OUT coded) gives one line back as it was.
function(encoded_lines out text)
  string(REPLACE "\\" "<bs>" text "${text}")
  string(REPLACE "[" "<lb>" text "${text}")
  string(REPLACE "]" "<rb>" text "${text}")
  string(REPLACE ";" "<sc>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()
function(decoded_line out coded)
  string(REPLACE "<sc>" ";" line "${coded}")
  string(REPLACE "<lb>" "[" line "${line}")
  string(REPLACE "<rb>" "]" line "${line}")
  string(REPLACE "<bs>" "\\" line "${line}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

function(scan_lines)
  cmake_parse_arguments(S "SKIP_COMMENTS" "OUT;PATTERN" "FILES" ${ARGN})
  set(found "${${S_OUT}}")
  foreach(f ${S_FILES})
    file(READ ${ROOT}/${f} text)
    encoded_lines(lines "${text}")
    set(n 0)
    foreach(coded IN LISTS lines)
      math(EXPR n "${n} + 1")
      decoded_line(line "${coded}")
      if(S_SKIP_COMMENTS AND line MATCHES "^[ \t]*//")
        continue()
      endif()
      if(line MATCHES "${S_PATTERN}")
        string(APPEND found "  ${f}:${n}: ${line}\n")
      endif()
    endforeach()
  endforeach()
  set(${S_OUT} "${found}" PARENT_SCOPE)
endfunction()

function(scan_rule)
  cmake_parse_arguments(R "" "RULE;PATTERN;MESSAGE;SUMMARY" "FILES" ${ARGN})
  set(problems "")
  scan_lines(OUT problems FILES ${R_FILES} PATTERN "${R_PATTERN}" SKIP_COMMENTS)
  if(problems)
    message(FATAL_ERROR "${R_MESSAGE}:\n${problems}")
  endif()
  list(LENGTH R_FILES count)
  message(STATUS "${R_RULE}: ${count} ${R_SUMMARY}")
endfunction()
