# The layers of src/ (docs/ARCHITECTURE.md) as targets: one OBJECT library per layer, whose sources see
# only their own folder and the folders of the layers it uses, so that a wrong-way include fails to
# compile ("No such file or directory") instead of waiting for a review.
#
# mkb_layer(<target> <folder> [USES <layer>...] [SCHEMAS <schema target>...]
#           [PRIVATE_SCHEMAS <schema target>...] SOURCES <file>...)
#   Sources include as "folder/file.hpp" from the src root. The layer's include root,
#   <build>/layers/<target>/include, holds a symlink to each folder it may see: its own and those of
#   the layers it uses, transitively (their headers include their own dependencies' headers).
#   SCHEMAS: the flatbuffers headers (mkb_flatbuffers_headers) the layer includes, passed on upward.
#   PRIVATE_SCHEMAS: those only this layer's sources see (wire/'s messages: the codec is the only
#   translator, so no layer above may include a generated message type).
# mkb_layer_objects(<out_var> <layer>...)
#   $<TARGET_OBJECTS:...> of the layers and of every layer they use, each once. Objects of an OBJECT
#   library linked indirectly are never linked by CMake, so final targets take the whole list.
# mkb_link_layers(<target> [FLATBUFFERS <target>] <layer>...)
#   <target> links the layers' objects and their external libraries (flatbuffers: the static one
#   unless FLATBUFFERS names another), and its own sources see what the layers see.
#
# Every layer links the interface target mkb_layer_base: the public header, system headers and the
# build's definitions; src/CMakeLists.txt defines it.

function(mkb_layer target folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "USES;SCHEMAS;PRIVATE_SCHEMAS;SOURCES")
  set(folders ${folder})
  set(closure "")
  set(schemas ${arg_SCHEMAS})
  foreach(used IN LISTS arg_USES)
    get_property(is_layer TARGET ${used} PROPERTY MKB_LAYER_ROOT SET)
    if(NOT is_layer)
      message(FATAL_ERROR "mkb_layer(${target}): ${used} is not a layer defined before it")
    endif()
    get_property(used_folders TARGET ${used} PROPERTY MKB_LAYER_FOLDERS)
    get_property(used_closure TARGET ${used} PROPERTY MKB_LAYER_CLOSURE)
    get_property(used_schemas TARGET ${used} PROPERTY MKB_LAYER_SCHEMAS)
    list(APPEND folders ${used_folders})
    list(APPEND closure ${used_closure} ${used})
    list(APPEND schemas ${used_schemas})
  endforeach()
  list(REMOVE_DUPLICATES folders)
  list(REMOVE_DUPLICATES closure)
  list(REMOVE_DUPLICATES schemas)

  # Symlinks rather than copies: diagnostics and debuggers still lead to the sources.
  set(root ${PROJECT_BINARY_DIR}/layers/${target}/include)
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  foreach(allowed IN LISTS folders)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${allowed} ${root}/${allowed} SYMBOLIC)
  endforeach()

  add_library(${target} OBJECT ${arg_SOURCES})
  target_include_directories(${target} PRIVATE ${root})
  target_link_libraries(${target} PUBLIC mkb_layer_base ${schemas} PRIVATE ${arg_PRIVATE_SCHEMAS})
  target_compile_options(${target} PRIVATE ${MKB_WARNINGS})
  set_target_properties(${target} PROPERTIES MKB_LAYER_ROOT ${root} MKB_LAYER_FOLDERS "${folders}"
    MKB_LAYER_CLOSURE "${closure}" MKB_LAYER_SCHEMAS "${schemas}"
    MKB_LAYER_PRIVATE_SCHEMAS "${arg_PRIVATE_SCHEMAS}")
endfunction()

function(mkb_layer_objects out_var)
  set(layers "")
  foreach(layer IN LISTS ARGN)
    get_property(closure TARGET ${layer} PROPERTY MKB_LAYER_CLOSURE)
    list(APPEND layers ${closure} ${layer})
  endforeach()
  list(REMOVE_DUPLICATES layers)
  set(objects "")
  foreach(layer IN LISTS layers)
    list(APPEND objects $<TARGET_OBJECTS:${layer}>)
  endforeach()
  set(${out_var} ${objects} PARENT_SCOPE)
endfunction()

function(mkb_link_layers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "FLATBUFFERS" "")
  if(NOT arg_FLATBUFFERS)
    set(arg_FLATBUFFERS flatbuffers::flatbuffers)
  endif()
  mkb_layer_objects(objects ${arg_UNPARSED_ARGUMENTS})
  target_sources(${target} PRIVATE ${objects})
  foreach(layer IN LISTS arg_UNPARSED_ARGUMENTS)
    get_property(root TARGET ${layer} PROPERTY MKB_LAYER_ROOT)
    get_property(schemas TARGET ${layer} PROPERTY MKB_LAYER_SCHEMAS)
    target_include_directories(${target} PRIVATE ${root})
    target_link_libraries(${target} PRIVATE ${schemas})
  endforeach()
  target_link_libraries(${target} PRIVATE mkb_layer_base ${arg_FLATBUFFERS} CUDA::nvrtc Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
endfunction()
