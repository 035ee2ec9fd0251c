#include "cuda_loaders/driver_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include "core/error.hpp"

namespace mkb {

namespace {

// cuFuncGetParamInfo arrived in CUDA 12.4; the harness cannot check plans without it.
constexpr int minimum_driver_version = 12040;

using get_proc_address_fn = CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

driver_api load() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) fail(MKB_ERR_WORKER, "no CUDA driver: dlopen(libcuda.so.1) failed: {}", dlerror());
  auto driver_get_version = reinterpret_cast<CUresult (*)(int *)>(dlsym(library, "cuDriverGetVersion"));
  auto get_proc_address = reinterpret_cast<get_proc_address_fn>(dlsym(library, "cuGetProcAddress_v2"));
  if (!driver_get_version || !get_proc_address) fail(MKB_ERR_WORKER, "the CUDA driver is too old (no cuGetProcAddress_v2)");

  driver_api api;
  driver_get_version(&api.driver_version);
  if (api.driver_version < minimum_driver_version)
    fail(MKB_ERR_WORKER, "the CUDA driver supports CUDA {}.{}; libmkb needs 12.4 or newer",
         api.driver_version / 1000, api.driver_version % 1000 / 10);
  int request_version = std::min(api.driver_version, CUDA_VERSION);

  auto resolve = [&](const char *name, void **slot) {
    CUdriverProcAddressQueryResult status{};
    if (get_proc_address(name, slot, request_version, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || !*slot)
      fail(MKB_ERR_WORKER, "the CUDA driver lacks {}", name);
  };
#define MKB_DRIVER_RESOLVE(name) resolve(#name, reinterpret_cast<void **>(&api.name));
  MKB_DRIVER_FUNCTIONS(MKB_DRIVER_RESOLVE)
#undef MKB_DRIVER_RESOLVE

  CUresult rc = api.cuInit(0);
  if (rc != CUDA_SUCCESS) {
    const char *name = nullptr;
    api.cuGetErrorName(rc, &name);
    fail(MKB_ERR_WORKER, "cuInit failed: {}", name ? name : "unknown error");
  }
  return api;
}

} // namespace

const driver_api &load_driver() {
  static std::once_flag once;
  static driver_api api;
  static std::string failure;
  std::call_once(once, [] {
    try {
      api = load();
    } catch (const error &e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw error(MKB_ERR_WORKER, failure);
  return api;
}

std::string cuda_error_text(CUresult result) {
  const driver_api &api = load_driver();
  const char *name = nullptr, *text = nullptr;
  api.cuGetErrorName(result, &name);
  api.cuGetErrorString(result, &text);
  return fmt::format("{}: {}", name ? name : "CUDA_ERROR", text ? text : "unknown");
}

void check_cuda(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS) fail(MKB_ERR_WORKER, "{} failed: {}", what, cuda_error_text(result));
}

} // namespace mkb
