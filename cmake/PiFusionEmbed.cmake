# pi_fusion_embed_files(<target> <namespace-qualified-function> FILES <file>...)
# Generates a .cc that defines `std::string_view <function>(std::string_view name)` returning the
# bytes of the named file (basename) or an empty view. The files stay the single source; the
# binary carries an exact copy, rebuilt whenever a file changes.
function(pi_fusion_embed_files target function)
  cmake_parse_arguments(ARG "" "" "FILES" ${ARGN})
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cc")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DFUNCTION=${function} "-DFILES=${ARG_FILES}"
            -P "${PROJECT_SOURCE_DIR}/cmake/PiFusionEmbedScript.cmake"
    DEPENDS ${ARG_FILES} "${PROJECT_SOURCE_DIR}/cmake/PiFusionEmbedScript.cmake"
    COMMENT "Embedding ${target} files"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
