// CUDA C++ to cubin (and PTX) with NVRTC, under an option set that submissions cannot change
// (docs/SUBMISSION.md lists it). No relocatable device code: device-side launches cannot link.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mkb {

struct compile_output {
  bool ok = false;
  std::string cubin;
  std::string ptx;
  std::string log; // NVRTC's log, verbatim
  double milliseconds = 0;
};

struct extra_header {
  std::string name; // as written in #include "name"
  std::string content;
};

// "13.0"
std::string nvrtc_version();

// The locked options for `arch` ("sm_90a"), including the CUDA and CCCL include folders.
std::vector<std::string> locked_compile_options(const std::string &arch);

// The folder holding cuda_fp16.h and friends: $MKB_CUDA_INCLUDE, $CUDA_HOME/include, $CUDA_PATH/include,
// then the toolkit this library was built with.
std::string cuda_include_dir();

// `include_dirs` come from the library's configuration (a DSL's header library), never from a submission.
compile_output compile_cuda(std::string_view source, const std::string &name, const std::string &arch,
                            const std::vector<extra_header> &headers = {},
                            const std::vector<std::string> &include_dirs = {});

// "sm_90a" for compute capability 9.0: the arch-specific variant where one exists (wgmma, setmaxnreg).
std::string arch_for_compute_capability(int major, int minor);

// What compile-only sessions compile for unless configured otherwise (mkb_open_options.target_arch).
inline constexpr const char *default_target_arch = "sm_90a";

// Empty when `arch` is "sm_<digits>[a]" and this NVRTC compiles for it; otherwise what is wrong, with
// the architectures it knows.
std::string target_arch_problem(const std::string &arch);

} // namespace mkb
