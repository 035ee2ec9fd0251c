#include "cuda/ptx_linker.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <cuda.h>
#include <nvJitLink.h>

#include <chrono>

#include "core/error.hpp"
#include "core/files.hpp"

namespace mkb {

namespace {

struct nvjitlink_api {
  decltype(&::nvJitLinkCreate) create = nullptr;
  decltype(&::nvJitLinkDestroy) destroy = nullptr;
  decltype(&::nvJitLinkAddData) add_data = nullptr;
  decltype(&::nvJitLinkComplete) complete = nullptr;
  decltype(&::nvJitLinkGetLinkedCubinSize) cubin_size = nullptr;
  decltype(&::nvJitLinkGetLinkedCubin) cubin = nullptr;
  decltype(&::nvJitLinkGetErrorLogSize) error_log_size = nullptr;
  decltype(&::nvJitLinkGetErrorLog) error_log = nullptr;
  std::string missing; // why it could not be loaded
};

const nvjitlink_api &api() {
  static const nvjitlink_api loaded = [] {
    nvjitlink_api a;
    std::string soname = fmt::format("libnvJitLink.so.{}", CUDA_VERSION / 1000); // the toolkit built against
    void *library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
      if (!library)
        if (auto root = environment(variable)) library = dlopen(fmt::format("{}/lib64/{}", *root, soname).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen(("/usr/local/cuda/lib64/" + soname).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      a.missing = fmt::format("{} could not be loaded: {}", soname, dlerror());
      return a;
    }
    auto load = [&](auto &slot, const char *symbol) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(library, symbol));
      if (!slot && a.missing.empty()) a.missing = fmt::format("{} has no {}", soname, symbol);
    };
    load(a.create, "nvJitLinkCreate");
    load(a.destroy, "nvJitLinkDestroy");
    load(a.add_data, "nvJitLinkAddData");
    load(a.complete, "nvJitLinkComplete");
    load(a.cubin_size, "nvJitLinkGetLinkedCubinSize");
    load(a.cubin, "nvJitLinkGetLinkedCubin");
    load(a.error_log_size, "nvJitLinkGetErrorLogSize");
    load(a.error_log, "nvJitLinkGetErrorLog");
    return a;
  }();
  return loaded;
}

} // namespace

compile_output link_ptx(const std::vector<std::string> &units, const std::string &arch) {
  auto start = std::chrono::steady_clock::now();
  compile_output out;
  for (const std::string &unit : units) out.ptx += unit + "\n";
  const nvjitlink_api &a = api();
  if (!a.missing.empty()) {
    out.log = a.missing;
    return out;
  }
  std::string arch_option = "-arch=" + arch;
  const char *options[] = {arch_option.c_str()};
  nvJitLinkHandle handle = nullptr;
  if (a.create(&handle, 1, options) != NVJITLINK_SUCCESS) {
    out.log = "nvJitLinkCreate failed for " + arch;
    return out;
  }
  nvJitLinkResult rc = NVJITLINK_SUCCESS;
  for (size_t i = 0; i < units.size() && rc == NVJITLINK_SUCCESS; ++i)
    rc = a.add_data(handle, NVJITLINK_INPUT_PTX, units[i].data(), units[i].size(), fmt::format("unit{}.ptx", i).c_str());
  if (rc == NVJITLINK_SUCCESS) rc = a.complete(handle);
  size_t size = 0;
  if (a.error_log_size(handle, &size) == NVJITLINK_SUCCESS && size > 1) {
    out.log.resize(size);
    a.error_log(handle, out.log.data());
    out.log.resize(size - 1);
  }
  if (rc == NVJITLINK_SUCCESS && a.cubin_size(handle, &size) == NVJITLINK_SUCCESS && size > 0) {
    out.cubin.resize(size);
    a.cubin(handle, out.cubin.data());
    out.ok = true;
  } else if (out.log.empty()) {
    out.log = fmt::format("nvJitLink failed with status {}", static_cast<int>(rc));
  }
  a.destroy(&handle);
  out.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace mkb
