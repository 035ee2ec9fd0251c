// The CUDA driver API, loaded with dlopen("libcuda.so.1") on first use so that libmkb, the CLI and
// every CPU test run on machines without a driver. Only the GPU worker calls load_driver(); the
// library's host process never initialises CUDA.
#pragma once

#include <cuda.h>

#include <string>

namespace mkb {

// Each entry becomes a member of driver_api holding the function of that name. (cuda.h maps some
// names to versioned symbols, such as cuMemAlloc to cuMemAlloc_v2; the member follows the same
// mapping, so call sites read exactly like the CUDA documentation.)
#define MKB_DRIVER_FUNCTIONS(X)                                                                         \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                                 \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)     \
  X(cuDeviceGetUuid) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)        \
  X(cuCtxSynchronize) X(cuCtxResetPersistingL2Cache) X(cuCtxSetLimit)                                   \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery)                          \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize)             \
  X(cuEventElapsedTime) X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemsetD8Async)                   \
  X(cuMemsetD32Async) X(cuMemcpyDtoHAsync) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoDAsync) X(cuMemAllocHost)  \
  X(cuMemFreeHost) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetParamInfo)   \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernelEx)

struct driver_api {
#define MKB_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  MKB_DRIVER_FUNCTIONS(MKB_DRIVER_MEMBER)
#undef MKB_DRIVER_MEMBER
  int driver_version = 0; // 13000 for CUDA 13.0
};

// Loads the driver once per process and calls cuInit(0). Throws mkb::error(MKB_ERR_WORKER) saying
// why when there is no driver, it is too old, or cuInit fails.
const driver_api &load_driver();

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
std::string cuda_error_text(CUresult result);

// Throws mkb::error(MKB_ERR_WORKER) naming the call when `result` is not CUDA_SUCCESS.
void check_cuda(CUresult result, const char *what);

} // namespace mkb
