# Installs the build into a fresh prefix, then builds and runs install/consumer/main.c against it,
# once through find_package(mkb) and once through pkg-config.
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# The suite's files are data beside the programs (libmkb embeds no stored solution nor cross-check).
set(routing share/mkb/problems/moe/topk_softmax_routing_mixtral_8x7b_bf16)
foreach(path include/mkb.h bin/mkb libexec/mkb-worker lib/cmake/mkb/mkbConfig.cmake lib/pkgconfig/mkb.pc
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
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/cmake-build -G ${GENERATOR}
    -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${WORK_DIR}/cmake-build/consumer ${solution})

# pkg-config
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs mkb OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know mkb")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(cc -std=c99 -Wall -Werror ${SOURCE_DIR}/consumer/main.c ${flags} -Wl,-rpath,${prefix}/lib -o ${WORK_DIR}/pkg-consumer)
run(${WORK_DIR}/pkg-consumer ${solution})
