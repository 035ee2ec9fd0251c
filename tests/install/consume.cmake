# Installs the build into a fresh prefix, then builds and runs install/consumer/main.c against it,
# through find_package(mkb) and through pkg-config, each with the shared library (mkb::mkb, mkb.pc)
# and with the static one (mkb::mkb_static, mkb-static.pc).
cmake_minimum_required(VERSION 3.25) # the policies of today: if() does not dereference quoted words
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# Runs a consumer: it must print its verdict, and need libmkb.so exactly when linked with it. A
# program linked statically finds the worker relative to itself, and has no libexec/ beside it: it is
# told where the worker is.
function(consume program linkage)
  execute_process(COMMAND readelf -d ${program} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${program} failed")
  endif()
  set(needs_shared NO)
  if(dynamic MATCHES "libmkb\\.so")
    set(needs_shared YES)
  endif()
  if(linkage STREQUAL "static" AND needs_shared)
    message(FATAL_ERROR "${program} was to link libmkb.a, yet it needs libmkb.so:\n${dynamic}")
  elseif(linkage STREQUAL "shared" AND NOT needs_shared)
    message(FATAL_ERROR "${program} was to link libmkb.so, yet it does not need it:\n${dynamic}")
  endif()
  if(linkage STREQUAL "static")
    run(${CMAKE_COMMAND} -E env MKB_WORKER=${prefix}/libexec/mkb-worker ${program} ${solution})
  else()
    run(${program} ${solution}) # libmkb.so finds its worker by itself: ../libexec
  endif()
  if(NOT run_output MATCHES "^libmkb [0-9.]+: ")
    message(FATAL_ERROR "${program} printed no verdict: ${run_output}")
  endif()
  message(STATUS "${linkage} consumer ${program}: ran, and needs libmkb.so: ${needs_shared}")
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# The suite's files are data beside the programs (libmkb embeds no stored solution nor cross-check).
set(routing share/mkb/problems/extra/topk_softmax_routing_mixtral_8x7b_bf16)
foreach(path include/mkb.h bin/mkb libexec/mkb-worker lib/libmkb.a lib/cmake/mkb/mkbConfig.cmake lib/pkgconfig/mkb.pc
        lib/pkgconfig/mkb-static.pc
        ${routing}/spec.json ${routing}/solutions/cuda.cu ${routing}/torch_crosscheck.py)
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "the install lacks ${path}")
  endif()
endforeach()
# Folders set aside (problems/_template) are no part of the suite, so not of its data either.
file(GLOB set_aside LIST_DIRECTORIES true ${prefix}/share/mkb/problems/_* ${prefix}/share/mkb/problems/*/_*)
if(set_aside)
  message(FATAL_ERROR "the install holds folders set aside: ${set_aside}")
endif()
set(solution ${prefix}/${routing}/solutions/cuda.cu)

# find_package(mkb), with the project's own generator: a machine may have Ninja and no make.
foreach(linkage shared static)
  set(build ${WORK_DIR}/cmake-${linkage})
  set(link_static OFF)
  if(linkage STREQUAL "static")
    set(link_static ON)
  endif()
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${build} -G ${GENERATOR}
      -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_PREFIX_PATH=${prefix} -DMKB_STATIC=${link_static})
  run(${CMAKE_COMMAND} --build ${build})
  consume(${build}/consumer ${linkage})
endforeach()

# pkg-config: mkb.pc for the shared library, mkb-static.pc for the static one.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
foreach(linkage shared static)
  set(package mkb)
  if(linkage STREQUAL "static")
    set(package mkb-static)
  endif()
  execute_process(COMMAND pkg-config --cflags --libs ${package} OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config does not know ${package}")
  endif()
  message(STATUS "pkg-config --cflags --libs ${package}: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(cc -std=c99 -Wall -Werror ${SOURCE_DIR}/consumer/main.c ${flags} -Wl,-rpath,${prefix}/lib -o ${WORK_DIR}/pkg-${linkage}-consumer)
  consume(${WORK_DIR}/pkg-${linkage}-consumer ${linkage})
endforeach()
