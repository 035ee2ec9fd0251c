# mkb_embed_files(<out_var> NAME <function> BASE <dir> FILES <file>...)
#
# Generates a C++ source defining `std::span<const mkb::embedded_file> mkb::embedded::<function>()`
# that holds each file's path (relative to BASE) and bytes, and appends it to <out_var>. The source is
# regenerated when any listed file changes.
set(MKB_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files_script.cmake)

function(mkb_embed_files out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME;BASE" "FILES")
  set(manifest ${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}.manifest)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}.cpp)
  list(JOIN arg_FILES "\n" manifest_text)
  file(CONFIGURE OUTPUT ${manifest} CONTENT "${manifest_text}\n")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DNAME=${arg_NAME} -DBASE=${arg_BASE} -DMANIFEST=${manifest}
            -DOUTPUT=${output} -P ${MKB_EMBED_SCRIPT}
    DEPENDS ${arg_FILES} ${manifest} ${MKB_EMBED_SCRIPT}
    COMMENT "Embedding ${arg_NAME}"
    VERBATIM)
  set(${out_var} ${${out_var}} ${output} PARENT_SCOPE)
endfunction()
