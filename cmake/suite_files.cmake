# mkb_suite_specs(<out_var> <problems_dir>)
#
# The spec.json of every problem of the suite in <problems_dir>/<family>/<id>/, leaving out the folders
# set aside: a family or id whose name starts with '_', such as problems/_template (the loader's rule,
# src/spec/file_source.hpp).
function(mkb_suite_specs out_var problems_dir)
  file(GLOB specs CONFIGURE_DEPENDS ${problems_dir}/*/*/spec.json)
  set(kept)
  foreach(spec IN LISTS specs)
    file(RELATIVE_PATH relative ${problems_dir} ${spec})
    if(NOT relative MATCHES "(^|/)_")
      list(APPEND kept ${spec})
    endif()
  endforeach()
  set(${out_var} ${kept} PARENT_SCOPE)
endfunction()

# mkb_suite_grading_files(<out_var> <problems_dir>)
#
# The files of the suite that a session needs to grade, and that libmkb therefore embeds: each
# problem's spec.json, the files it names as reference, baseline, anchor and generators (defaults in
# docs/PROBLEMS.md), and its eager_times.json when it has one (eager PyTorch's times, the original's
# denominator). The stored solutions and torch_crosscheck.py (the PyTorch cross-check) stay out,
# since an agent can read whatever the library it links holds; they are installed as data
# (cmake/install.cmake) and read from disk by the tools that need them (src/spec/suite_data.hpp).
function(mkb_suite_grading_files out_var problems_dir)
  mkb_suite_specs(specs ${problems_dir})
  set(files)
  foreach(spec IN LISTS specs)
    # Which files a problem uses is read here: editing its spec re-runs the configuration.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${spec})
    get_filename_component(folder ${spec} DIRECTORY)
    file(READ ${spec} text)
    string(JSON ignored ERROR_VARIABLE parse_error TYPE "${text}")
    if(parse_error)
      message(FATAL_ERROR "${spec} is not strict JSON (${parse_error}); the build reads which files it names")
    endif()

    set(solutions)
    string(JSON count ERROR_VARIABLE none LENGTH "${text}" solutions)
    if(NOT none AND count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON file GET "${text}" solutions ${i} file)
        list(APPEND solutions ${folder}/${file})
      endforeach()
    endif()

    list(APPEND files ${spec})
    # Globbed so that a measurement added later re-runs the configuration and is embedded.
    file(GLOB eager_times CONFIGURE_DEPENDS ${folder}/eager_times.json)
    list(APPEND files ${eager_times})
    set(fields reference baseline anchor generators)
    set(defaults reference.md baseline.cu anchor.cu generators.cu)
    foreach(field default IN ZIP_LISTS fields defaults)
      string(JSON name ERROR_VARIABLE absent GET "${text}" ${field})
      if(absent)
        set(name ${default})
      endif()
      set(path ${folder}/${name})
      if(path IN_LIST solutions OR name STREQUAL "torch_crosscheck.py")
        message(FATAL_ERROR "${spec}: '${field}' names ${name}, which libmkb must not embed (a stored solution "
                            "or the PyTorch cross-check)")
      endif()
      # A missing required file is left to the spec loader, whose error names the field.
      if(EXISTS ${path})
        list(APPEND files ${path})
      endif()
    endforeach()
  endforeach()
  set(${out_var} ${files} PARENT_SCOPE)
endfunction()
