// `mkb doctor`: whether kernels can be compiled and run here. Each check gives one line of text, or
// one field of the JSON object with --json (the toolchains as mkb_list_dsls gives them); the verdict
// comes last and sets the exit code.
#include <fmt/format.h>

#include <chrono>

#include "api/open_options.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_writer.hpp"
#include "cuda/nvrtc_compiler.hpp"
#include "cuda/ptx_entries.hpp"
#include "eval/worker_client.hpp"
#include "mkb.h"
#include "protocol/discovery.hpp"

namespace mkb::cli {

namespace {

constexpr const char *trial_kernel = R"(
#include <cuda_bf16.h>
extern "C" __global__ void mkb_doctor_scale(const __nv_bfloat16 *x, float *y, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * __bfloat162float(x[i]);
}
)";

struct finding {
  bool ok = false;
  std::string detail; // the line's text after its label
};

struct doctor_findings {
  std::string target_arch;
  finding nvrtc, worker, driver, verdict;
  std::string worker_path, verdict_state;
  std::vector<device_info> gpus;
  toolchain_survey toolchains; // the sandbox and the DSLs, as mkb_list_dsls() reports them
  int exit_code = exit_ok;
};

std::string gpu_line(const device_info &d) {
  return fmt::format("{}: compute capability {}.{}, {:.1f} GiB, {} SMs, L2 {:.1f} MiB, SM clock {} MHz, {}", d.name, d.major,
                     d.minor, d.memory_bytes / double(1ull << 30), d.sm_count, d.l2_bytes / double(1 << 20),
                     d.sm_clock_khz / 1000, arch_for_compute_capability(d.major, d.minor));
}

void check_worker(doctor_findings &f) {
  try {
    f.worker_path = find_worker_executable("");
    f.worker = {true, f.worker_path};
    worker_client worker(f.worker_path, 0);
    worker_status status = worker.ping(std::chrono::seconds(60));
    if (!status.driver_loaded) {
      f.driver = {false, fmt::format("not usable: {}", status.driver_error)};
      return;
    }
    f.driver = {true, fmt::format("loaded: supports CUDA {}.{}", status.driver_version / 1000, status.driver_version % 1000 / 10)};
    f.gpus = status.devices;
    // The trial compile targets the first GPU, or without one what compile-only sessions target.
    if (!f.gpus.empty()) f.target_arch = arch_for_compute_capability(f.gpus[0].major, f.gpus[0].minor);
  } catch (const error &e) {
    f.worker = {false, fmt::format("FAILED: {}", e.what())};
  }
}

void check_compiler(doctor_findings &f) {
  if (std::string problem = target_arch_problem(f.target_arch); !problem.empty()) {
    f.nvrtc = {false, fmt::format("{}: {}", nvrtc_version(), problem)};
  } else if (compile_output trial = compile_cuda(trial_kernel, "doctor.cu", f.target_arch); trial.ok) {
    auto entries = ptx_entry_parameters(trial.ptx);
    bool ok = entries.count("mkb_doctor_scale") && entries["mkb_doctor_scale"].size() == 4;
    f.nvrtc = {ok, fmt::format("{}: trial compile for {} {}: PTX {} bytes, cubin {} bytes, {:.0f} ms", nvrtc_version(),
                               f.target_arch, ok ? "ok" : "produced unexpected PTX", trial.ptx.size(), trial.cubin.size(),
                               trial.milliseconds)};
  } else {
    f.nvrtc = {false, fmt::format("{}: trial compile for {} FAILED:\n{}", nvrtc_version(), f.target_arch, trial.log)};
  }
}

void check_python(doctor_findings &f) { f.toolchains = survey_toolchains(config_from_options(nullptr)); }

void judge(doctor_findings &f) {
  if (!f.nvrtc.ok || f.worker_path.empty()) {
    f.verdict_state = "broken";
    f.verdict.detail = "kernels cannot be compiled or the worker is missing";
    f.exit_code = exit_failed;
  } else if (f.gpus.empty()) {
    f.verdict_state = "compile-only";
    f.verdict.detail = "kernels compile and plans are checked, but nothing runs without a GPU";
    f.exit_code = exit_environment;
  } else {
    f.verdict_state = "ready";
    f.verdict.ok = true;
  }
}

void print_text(const doctor_findings &f) {
  fmt::print("libmkb       {} (ABI {}, libmkb.so.{})\n", mkb_version(), mkb_abi_version(), MKB_ABI_VERSION);
  fmt::print("NVRTC        {}\n", f.nvrtc.detail);
  fmt::print("CUDA headers {}\n", cuda_include_dir());
  fmt::print("cache        {}\n", default_cache_dir().string());
  fmt::print("worker       {}\n", f.worker.detail);
  if (!f.driver.detail.empty()) fmt::print("CUDA driver  {}\n", f.driver.detail);
  if (f.driver.ok && f.gpus.empty()) fmt::print("GPUs         none visible\n");
  for (const device_info &d : f.gpus) fmt::print("GPU {}        {}\n", d.ordinal, gpu_line(d));
  const toolchain_survey &t = f.toolchains;
  fmt::print("sandbox      {}: {}\n", t.sandbox_confined ? "usable" : t.sandbox_usable ? "off" : "NOT usable", t.sandbox_detail);
  for (const dsl_availability &d : t.dsls) fmt::print("DSL {:<9}{}: {}\n", d.name, d.usable ? "usable" : "not usable", d.detail);
  fmt::print("verdict      {}{}\n", f.verdict_state, f.verdict.detail.empty() ? "" : ": " + f.verdict.detail);
}

void print_json(const doctor_findings &f) {
  json_writer w;
  auto item = [&](const char *name, const finding &x, const char *flag) {
    w.key(name).begin_object().field(flag, x.ok).field("detail", x.detail).end_object();
  };
  w.begin_object();
  w.key("libmkb").begin_object().field("version", mkb_version()).field("abi", mkb_abi_version()).end_object();
  w.key("nvrtc").begin_object().field("version", nvrtc_version()).field("target_arch", f.target_arch)
      .field("ok", f.nvrtc.ok).field("detail", f.nvrtc.detail).end_object();
  w.field("cuda_headers", cuda_include_dir()).field("cache", default_cache_dir().string());
  w.key("worker").begin_object().field("path", f.worker_path).field("ok", f.worker.ok).field("detail", f.worker.detail).end_object();
  item("cuda_driver", f.driver, "loaded");
  w.key("gpus").begin_array();
  for (const device_info &d : f.gpus)
    w.begin_object().field("ordinal", d.ordinal).field("name", d.name).field("compute_capability", fmt::format("{}.{}", d.major, d.minor))
        .field("arch", arch_for_compute_capability(d.major, d.minor)).field("memory_bytes", d.memory_bytes)
        .field("sm_count", d.sm_count).field("l2_bytes", d.l2_bytes).field("sm_clock_khz", d.sm_clock_khz).end_object();
  w.end_array();
  w.key("toolchains").raw(toolchains_json(f.toolchains));
  w.key("verdict").begin_object().field("state", f.verdict_state).field("detail", f.verdict.detail).end_object();
  fmt::print("{}\n", w.end_object().str());
}

} // namespace

void add_doctor(CLI::App &mkb, int &exit_code) {
  CLI::App *command = mkb.add_subcommand(
      "doctor", "check the compiler, the driver, the GPUs and the DSL toolchains. Exit 0: ready; 1: kernels cannot "
                "be compiled; 3: compile-only (no GPU)");
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "print one JSON object: a field for each check, then the verdict");
  command->callback([json, &exit_code] {
    doctor_findings f;
    f.target_arch = environment("MKB_TARGET_ARCH").value_or(default_target_arch);
    check_worker(f);
    check_compiler(f);
    check_python(f);
    judge(f);
    *json ? print_json(f) : print_text(f);
    exit_code = f.exit_code;
  });
}

} // namespace mkb::cli
