# cmake -DFILES=<a|b|...> -DEXPECTED=<file> -P suite_files_test.cmake
# FILES is what cmake/suite_files.cmake chose to embed of tests/spec/data/eager_suite (tests/CMakeLists.txt
# runs it at configure time, the only mode its globs work in): the problem's eager_times.json must be there.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" files "${FILES}")
if(NOT EXPECTED IN_LIST files)
  message(FATAL_ERROR "${EXPECTED} is not among the embedded files: ${files}")
endif()
list(LENGTH files count)
message(STATUS "${count} files embedded, eager_times.json among them")
