#include "cuda/nvrtc_compiler.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"

#ifndef MKB_DEFAULT_CUDA_INCLUDE_DIR
#define MKB_DEFAULT_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace mkb {

namespace {

// Owns an nvrtcProgram so every path out destroys it.
class program {
public:
  program(std::string_view source, const std::string &name, const std::vector<extra_header> &headers) {
    std::vector<const char *> header_sources, header_names;
    for (const extra_header &h : headers) {
      header_sources.push_back(h.content.c_str());
      header_names.push_back(h.name.c_str());
    }
    std::string text(source);
    nvrtcResult rc = nvrtcCreateProgram(&handle_, text.c_str(), name.c_str(), static_cast<int>(headers.size()),
                                        header_sources.data(), header_names.data());
    if (rc != NVRTC_SUCCESS) fail(MKB_ERR_INTERNAL, "nvrtcCreateProgram: {}", nvrtcGetErrorString(rc));
  }
  ~program() { nvrtcDestroyProgram(&handle_); }
  program(const program &) = delete;
  program &operator=(const program &) = delete;
  nvrtcProgram get() const { return handle_; }

private:
  nvrtcProgram handle_ = nullptr;
};

std::string program_log(nvrtcProgram p) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  nvrtcGetProgramLog(p, log.data());
  log.resize(size - 1);
  return log;
}

} // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return fmt::format("{}.{}", major, minor);
}

std::string cuda_include_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (auto dir = environment("MKB_CUDA_INCLUDE")) return *dir;
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (auto root = environment(variable))
      if (fs::exists(fs::path(*root) / "include" / "cuda_fp16.h", ec)) return (fs::path(*root) / "include").string();
  return MKB_DEFAULT_CUDA_INCLUDE_DIR;
}

std::vector<std::string> locked_compile_options(const std::string &arch) {
  std::string include = cuda_include_dir();
  std::vector<std::string> options = {
      "--gpu-architecture=" + arch,
      "-std=c++20",
      "-default-device",
      "--device-int128",
      "-lineinfo",
      "-D__MKB__=1",
      "-I" + include,
  };
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::path(include) / "cccl", ec)) options.push_back("-I" + include + "/cccl");
  return options;
}

std::string arch_for_compute_capability(int major, int minor) {
  // Hopper and Blackwell datacenter parts have arch-specific features behind the 'a' suffix.
  bool has_specific = (major == 9 && minor == 0) || (major == 10 && (minor == 0 || minor == 3)) || major == 12;
  return fmt::format("sm_{}{}{}", major, minor, has_specific ? "a" : "");
}

std::string target_arch_problem(const std::string &arch) {
  std::string digits = arch.starts_with("sm_") ? arch.substr(3) : "";
  bool specific = digits.ends_with('a');
  if (specific) digits.pop_back();
  if (digits.size() < 2 || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos)
    return fmt::format("'{}' is not an architecture: expected sm_<compute capability>[a], such as sm_90a or sm_100a", arch);
  int major = std::stoi(digits.substr(0, digits.size() - 1)), minor = digits.back() - '0';
  if (specific && arch_for_compute_capability(major, minor) != arch)
    return fmt::format("{}.{} has no arch-specific variant: use sm_{}", major, minor, digits);
  int count = 0;
  std::vector<int> known;
  if (nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    known.resize(static_cast<size_t>(count));
    if (nvrtcGetSupportedArchs(known.data()) != NVRTC_SUCCESS) known.clear();
  }
  if (std::find(known.begin(), known.end(), std::stoi(digits)) != known.end()) return {};
  std::vector<std::string> names;
  for (int k : known) names.push_back(fmt::format("sm_{}", k));
  return fmt::format("NVRTC {} cannot compile for {}; it knows {}", nvrtc_version(), arch,
                     names.empty() ? std::string("no architecture") : fmt::format("{}", fmt::join(names, ", ")));
}

compile_output compile_cuda(std::string_view source, const std::string &name, const std::string &arch,
                            const std::vector<extra_header> &headers, const std::vector<std::string> &include_dirs) {
  auto start = std::chrono::steady_clock::now();
  program prog(source, name, headers);
  std::vector<std::string> options = locked_compile_options(arch);
  for (const std::string &dir : include_dirs) options.push_back("-I" + dir);
  std::vector<const char *> option_pointers;
  for (const std::string &o : options) option_pointers.push_back(o.c_str());

  compile_output out;
  nvrtcResult rc = nvrtcCompileProgram(prog.get(), static_cast<int>(option_pointers.size()), option_pointers.data());
  out.log = program_log(prog.get());
  if (rc == NVRTC_SUCCESS) {
    size_t size = 0;
    if (nvrtcGetCUBINSize(prog.get(), &size) == NVRTC_SUCCESS && size > 0) {
      out.cubin.resize(size);
      nvrtcGetCUBIN(prog.get(), out.cubin.data());
    }
    if (nvrtcGetPTXSize(prog.get(), &size) == NVRTC_SUCCESS && size > 1) {
      out.ptx.resize(size);
      nvrtcGetPTX(prog.get(), out.ptx.data());
      out.ptx.resize(size - 1);
    }
    out.ok = !out.cubin.empty();
    if (!out.ok) out.log += "\nNVRTC produced no cubin";
  } else if (rc != NVRTC_ERROR_COMPILATION) {
    out.log = fmt::format("NVRTC failed: {}\n{}", nvrtcGetErrorString(rc), out.log);
  }
  out.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace mkb
