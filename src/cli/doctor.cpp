// `mkb version` and `mkb doctor`.
#include <fmt/format.h>

#include <chrono>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "cuda/ptx_entries.hpp"
#include "eval/worker_client.hpp"
#include "protocol/discovery.hpp"
#include "mkb.h"

namespace mkb::cli {

namespace {

constexpr const char *trial_kernel = R"(
#include <cuda_bf16.h>
extern "C" __global__ void mkb_doctor_scale(const __nv_bfloat16 *x, float *y, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * __bfloat162float(x[i]);
}
)";

} // namespace

int run_version(int, char **) {
  fmt::print("mkb {} (ABI {}), NVRTC {}\n", mkb_version(), mkb_abi_version(), nvrtc_version());
  return exit_ok;
}

int run_doctor(int argc, char **argv) {
  try {
    parse_arguments(argc, argv, 2, {"worker"}, {});
  } catch (const std::exception &e) {
    fmt::print(stderr, "mkb doctor: {}\n", e.what());
    return exit_usage;
  }
  bool compiler_ok = false, gpu_ok = false;
  fmt::print("libmkb       {} (ABI {}, libmkb.so.{})\n", mkb_version(), mkb_abi_version(), MKB_ABI_VERSION);

  // The trial compile targets the first GPU, or without one what compile-only sessions target.
  std::string arch = environment("MKB_TARGET_ARCH").value_or(default_target_arch);
  std::string worker_path;
  std::string worker_lines;
  try {
    worker_path = find_worker_executable("");
    worker_lines = fmt::format("worker       {}\n", worker_path);
    worker_client worker(worker_path, 0);
    worker_status status = worker.ping(std::chrono::seconds(60));
    if (!status.driver_loaded) {
      worker_lines += fmt::format("CUDA driver  not usable: {}\n", status.driver_error);
    } else {
      worker_lines += fmt::format("CUDA driver  loaded: supports CUDA {}.{}\n", status.driver_version / 1000,
                                 status.driver_version % 1000 / 10);
      if (status.devices.empty()) worker_lines += "GPUs         none visible\n";
      for (const wire::device_info &d : status.devices) {
        std::string device_arch = arch_for_compute_capability(d.major, d.minor);
        if (!gpu_ok) arch = device_arch;
        worker_lines += fmt::format("GPU {}        {}: compute capability {}.{}, {:.1f} GiB, {} SMs, L2 {:.1f} MiB, SM clock {} "
                                   "MHz, {}\n",
                                   d.ordinal, d.name, d.major, d.minor, d.memory_bytes / double(1ull << 30), d.sm_count,
                                   d.l2_bytes / double(1 << 20), d.sm_clock_khz / 1000, device_arch);
        gpu_ok = true;
      }
    }
  } catch (const error &e) {
    worker_lines += fmt::format("worker       FAILED: {}\n", e.what());
  }

  if (std::string problem = target_arch_problem(arch); !problem.empty()) {
    fmt::print("NVRTC        {}: {}\n", nvrtc_version(), problem);
  } else if (compile_output trial = compile_cuda(trial_kernel, "doctor.cu", arch); trial.ok) {
    auto entries = ptx_entry_parameters(trial.ptx);
    compiler_ok = entries.count("mkb_doctor_scale") && entries["mkb_doctor_scale"].size() == 4;
    fmt::print("NVRTC        {}: trial compile for {} {}: PTX {} bytes, cubin {} bytes, {:.0f} ms\n", nvrtc_version(), arch,
               compiler_ok ? "ok" : "produced unexpected PTX", trial.ptx.size(), trial.cubin.size(), trial.milliseconds);
  } else {
    fmt::print("NVRTC        {}: trial compile for {} FAILED:\n{}\n", nvrtc_version(), arch, trial.log);
  }
  fmt::print("CUDA headers {}\n", cuda_include_dir());
  fmt::print("cache        {}\n", default_cache_dir().string());
  fmt::print("{}", worker_lines);

  toolchain_survey toolchains = survey_toolchains(config_from_options(nullptr));
  fmt::print("sandbox      {}: {}\n", toolchains.sandbox_confined ? "usable" : toolchains.sandbox_usable ? "off" : "NOT usable", toolchains.sandbox_detail);
  for (const dsl_availability &d : toolchains.dsls)
    fmt::print("DSL {:<9}{}: {}\n", d.name, d.usable ? "usable" : "not usable", d.detail);

  if (!compiler_ok || worker_path.empty()) {
    fmt::print("verdict      broken: kernels cannot be compiled or the worker is missing\n");
    return exit_failed;
  }
  if (!gpu_ok) {
    fmt::print("verdict      compile-only: kernels compile and plans are checked, but nothing runs without a GPU\n");
    return exit_environment;
  }
  fmt::print("verdict      ready\n");
  return exit_ok;
}

} // namespace mkb::cli
