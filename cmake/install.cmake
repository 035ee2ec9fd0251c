# Install: header, shared and static libraries, the CLI, the worker, the suite's files, a CMake package (find_package(mkb)
# gives mkb::mkb and mkb::mkb_static) and a pkg-config file (mkb.pc, mkb-static.pc).
include(CMakePackageConfigHelpers)

# The Python wheel (pyproject.toml; scikit-build-core sets SKBUILD): the library and its worker side
# by side inside the package, where _native.py loads the one and the library finds the other (same
# folder, src/eval/worker_client.cpp). A wheel holds no symlinks, so the library is one file named by
# its soname. Nothing else: no header, CLI, CMake package or suite data.
if(SKBUILD)
  set_target_properties(mkb PROPERTIES VERSION ${MKB_ABI_VERSION})
  install(TARGETS mkb LIBRARY DESTINATION mkb NAMELINK_SKIP)
  install(TARGETS mkb_worker RUNTIME DESTINATION mkb)
  return()
endif()

install(FILES include/mkb.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mkb mkb_static EXPORT mkb_targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mkb_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mkb_worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR})
# The whole suite as data: `mkb suite validate` reads the stored solutions here (and the PyTorch
# cross-check its torch_crosscheck.py files), since libmkb embeds only what grading needs. Folders set
# aside (a family or id starting with '_', problems/_template) are no part of the suite.
install(DIRECTORY problems/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mkb/problems
  REGEX "/problems/([^/]+/)?_[^/]*$" EXCLUDE)

set(mkb_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mkb)
install(EXPORT mkb_targets NAMESPACE mkb:: FILE mkbTargets.cmake DESTINATION ${mkb_cmake_dir})
configure_package_config_file(cmake/mkbConfig.cmake.in ${PROJECT_BINARY_DIR}/mkbConfig.cmake
  INSTALL_DESTINATION ${mkb_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mkbConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mkbConfig.cmake ${PROJECT_BINARY_DIR}/mkbConfigVersion.cmake
  DESTINATION ${mkb_cmake_dir})

configure_file(cmake/mkb.pc.in ${PROJECT_BINARY_DIR}/mkb.pc @ONLY)
configure_file(cmake/mkb-static.pc.in ${PROJECT_BINARY_DIR}/mkb-static.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mkb.pc ${PROJECT_BINARY_DIR}/mkb-static.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
