# Compiles probes with one layer's own command line (from compile_commands.json): an include of a
# header from each folder of src/ the layer may not see must fail with "No such file or directory",
# and one file including a header from every folder it may see must compile (the pseudo-folder
# "messages" stands for the generated worker messages, messages_generated.h), so that the test cannot
# pass for a wrong reason (a broken command line, a missing header).
#   -DCOMPILE_COMMANDS=<file> -DTARGET=<layer target> -DALLOWED=<folder,...> -DSOURCE_ROOT=<src>
#   -DWORK_DIR=<folder for the probes>
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" allowed "${ALLOWED}")
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# The command line of one of the layer's own sources.
file(READ ${COMPILE_COMMANDS} json)
string(JSON count LENGTH "${json}")
math(EXPR last "${count} - 1")
set(command "")
foreach(i RANGE ${last})
  string(JSON entry GET "${json}" ${i} command)
  if(entry MATCHES " -o [^ ]*CMakeFiles/${TARGET}\\.dir/")
    string(JSON directory GET "${json}" ${i} directory)
    set(command "${entry}")
    break()
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "no source of ${TARGET} in ${COMPILE_COMMANDS}")
endif()

# The same flags, checking syntax only, without its output, source and dependency file.
separate_arguments(words UNIX_COMMAND "${command}")
set(flags "")
set(skip_next OFF)
foreach(word IN LISTS words)
  if(skip_next)
    set(skip_next OFF)
  elseif(word MATCHES "^-(o|c|MT|MF|MQ)$")
    set(skip_next ON)
  elseif(NOT word STREQUAL "-MD")
    list(APPEND flags "${word}")
  endif()
endforeach()

function(compile probe text out_rc out_log)
  file(WRITE ${WORK_DIR}/${probe}.cpp "${text}")
  execute_process(COMMAND ${flags} -fsyntax-only ${WORK_DIR}/${probe}.cpp WORKING_DIRECTORY ${directory}
    RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_log} "${log}" PARENT_SCOPE)
endfunction()

# An include of `header` alone must fail for want of the file, nothing else.
macro(expect_refused probe header)
  compile(${probe} "#include \"${header}\"\n" rc log)
  # gcc: "x.hpp: No such file or directory"; clang: "'x.hpp' file not found".
  if(rc EQUAL 0 OR NOT log MATCHES "(${header}: No such file or directory|'${header}' file not found)")
    string(APPEND failures "  #include \"${header}\" from ${TARGET}: expected \"No such file\", got (exit ${rc}):\n${log}\n")
  else()
    list(APPEND refused ${header})
  endif()
endmacro()

file(GLOB folders LIST_DIRECTORIES true RELATIVE ${SOURCE_ROOT} ${SOURCE_ROOT}/*)
set(allowed_text "")
set(refused "")
set(failures "")
foreach(folder IN LISTS folders)
  if(NOT IS_DIRECTORY ${SOURCE_ROOT}/${folder})
    continue()
  endif()
  file(GLOB headers RELATIVE ${SOURCE_ROOT} ${SOURCE_ROOT}/${folder}/*.hpp)
  list(SORT headers)
  list(GET headers 0 header)
  if(folder IN_LIST allowed)
    string(APPEND allowed_text "#include \"${header}\"\n")
    continue()
  endif()
  expect_refused(wrong_way_${folder} ${header})
endforeach()

# The worker messages' generated header: wire/'s codec is the only translator between messages and
# model/ values, so only a layer whose rule names "messages" may include it.
if("messages" IN_LIST allowed)
  string(APPEND allowed_text "#include \"messages_generated.h\"\n")
else()
  expect_refused(wrong_way_messages messages_generated.h)
endif()

compile(allowed "${allowed_text}" rc log)
if(NOT rc EQUAL 0)
  string(APPEND failures "  the allowed includes did not compile in ${TARGET} (exit ${rc}):\n${allowed_text}${log}\n")
endif()
if(failures)
  message(FATAL_ERROR "${TARGET}:\n${failures}")
endif()
string(REPLACE ";" ", " refused "${refused}")
message(STATUS "${TARGET}: compiles its allowed folders (${ALLOWED}); refuses ${refused}")
