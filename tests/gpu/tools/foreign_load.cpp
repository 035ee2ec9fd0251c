// A CUDA process that is not libmkb: keeps the GPU busy with kernels of its own for a given number of
// seconds, so that tests can check that an evaluation beside it is flagged or timed again. It takes
// no lock and talks to no library worker; it uses only the CUDA driver and NVRTC.
//
//   usage: mkb-foreign-load SECONDS     prints "ready" once its first kernel has run
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuda_loaders/driver_api.hpp"
#include "cuda/nvrtc_compiler.hpp"

namespace {

constexpr const char *spin_source = R"(
extern "C" __global__ void spin(float *out, int rounds) {
  float x = threadIdx.x * 1e-3f;
  for (int i = 0; i < rounds; ++i) x = x * 0.9999f + 1e-4f;
  if (x == 12345.f) out[threadIdx.x] = x; // never true: keeps the loop
})";

} // namespace

int main(int argc, char **argv) {
  using namespace mkb;
  double seconds = argc > 1 ? std::atof(argv[1]) : 10;
  try {
    const driver_api &cu = load_driver();
    CUdevice device;
    CUcontext context;
    check_cuda(cu.cuDeviceGet(&device, 0), "cuDeviceGet");
    check_cuda(cu.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check_cuda(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    int major = 0, minor = 0;
    cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    compile_output code = compile_cuda(spin_source, "spin.cu", arch_for_compute_capability(major, minor));
    if (!code.ok) {
      std::fprintf(stderr, "mkb-foreign-load: %s\n", code.log.c_str());
      return 1;
    }
    CUmodule module;
    CUfunction spin;
    check_cuda(cu.cuModuleLoadData(&module, code.cubin.data()), "cuModuleLoadData");
    check_cuda(cu.cuModuleGetFunction(&spin, module, "spin"), "cuModuleGetFunction");
    CUdeviceptr out;
    check_cuda(cu.cuMemAlloc(&out, 4096), "cuMemAlloc");
    int sms = 0;
    cu.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    int rounds = 200000; // about a millisecond a launch
    void *args[] = {&out, &rounds};
    CUlaunchConfig config{};
    config.gridDimX = static_cast<unsigned>(sms * 4);
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 256;
    config.blockDimY = config.blockDimZ = 1;
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    bool announced = false;
    while (std::chrono::steady_clock::now() < end) {
      for (int i = 0; i < 20; ++i) check_cuda(cu.cuLaunchKernelEx(&config, spin, args, nullptr), "cuLaunchKernelEx");
      check_cuda(cu.cuCtxSynchronize(), "cuCtxSynchronize");
      if (!announced) {
        std::printf("ready\n");
        std::fflush(stdout);
        announced = true;
      }
    }
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "mkb-foreign-load: %s\n", e.what());
    return 1;
  }
}
