# The DSLs' guides (src/dsl/guides/<name>.md, docs/DSLS.md "Guides"): one per registered DSL, named one
# by one, so that a missing guide stops the configure (and, once configured, the build) instead of
# leaving tasks in that DSL without one. Sets mkb_guide_files (embedded by src/, checked by tests/).
set(mkb_dsl_names cuda cute triton cute-dsl tirx)

set(mkb_guide_files)
foreach(name IN LISTS mkb_dsl_names)
  set(guide ${PROJECT_SOURCE_DIR}/src/dsl/guides/${name}.md)
  if(EXISTS ${guide})
    list(APPEND mkb_guide_files ${guide})
  else()
    message(FATAL_ERROR "src/dsl/guides/${name}.md is missing: every DSL needs its guide (docs/DSLS.md, Guides)")
  endif()
endforeach()
# A guide added later re-runs the configure, which then embeds it and registers its check.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/dsl/guides)
