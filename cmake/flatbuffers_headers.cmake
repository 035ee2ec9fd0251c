# mkb_flatbuffers_headers(<target> SCHEMAS <file.fbs>... [DEPENDS <schema target>...])
#
# Generates <name>_generated.h for each schema with flatc at build time (generated headers must match
# the installed flatbuffers exactly, so they are never committed) and adds them to an interface
# target whose include folder holds them and nothing else: a layer (cmake/layers.cmake) sees only the
# schemas it names. DEPENDS: the schema targets of the schemas these include.
function(mkb_flatbuffers_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SCHEMAS;DEPENDS")
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/generated/${target})
  set(headers "")
  foreach(schema IN LISTS arg_SCHEMAS)
    get_filename_component(name ${schema} NAME_WE)
    set(header ${out_dir}/${name}_generated.h)
    add_custom_command(
      OUTPUT ${header}
      COMMAND ${MKB_FLATC} --cpp --scoped-enums -o ${out_dir}
              -I ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${schema}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${schema}
      COMMENT "flatc ${schema}"
      VERBATIM)
    list(APPEND headers ${header})
  endforeach()
  add_custom_target(${target}_generate DEPENDS ${headers})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_generate)
  target_include_directories(${target} SYSTEM INTERFACE ${out_dir})
  target_link_libraries(${target} INTERFACE ${arg_DEPENDS})
endfunction()
