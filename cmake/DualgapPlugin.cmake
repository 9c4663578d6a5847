# dualgap_add_plugin(<name> <sources>...)
# Builds one plugin library `dualgap_<name>.so` (target dualgap_<name>) with hidden visibility,
# linked against the dualgap core, into the plugin folder the loader searches.
function(dualgap_add_plugin name)
  set(target dualgap_${name})
  add_library(${target} MODULE ${ARGN})
  if(TARGET dualgap::core)
    target_link_libraries(${target} PRIVATE dualgap::core)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME dualgap_${name}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${DUALGAP_PLUGIN_OUTPUT_DIR})
  # Component `plugins`, OPTIONAL: `cmake --install` installs the plugins that were built and
  # skips the others, so a tree in which only some targets were built (the README's quickstart
  # builds four) installs what it has instead of failing on the first plugin it lacks.
  if(DEFINED DUALGAP_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${DUALGAP_PLUGIN_INSTALL_DIR} COMPONENT plugins OPTIONAL)
  endif()
endfunction()
