#include "cuda_loaders/nvml_api.hpp"

#include <dlfcn.h>

#include <mutex>

namespace mkb {

namespace {

// NVML's stable C ABI (nvml.h is not part of the CUDA toolkit packages).
using nvml_return = int;
using nvml_handle = void *;
constexpr nvml_return nvml_success = 0, nvml_not_found = 6, nvml_insufficient_size = 7;

// nvmlProcessInfo_t (v2) and nvmlProcessUtilizationSample_t, as nvml.h lays them out.
struct nvml_process_info {
  unsigned pid;
  unsigned long long used_memory;
  unsigned gpu_instance, compute_instance;
};
struct nvml_utilization_sample {
  unsigned pid;
  unsigned long long timestamp_us;
  unsigned sm, memory, encoder, decoder;
};
constexpr int nvml_clock_sm = 1, nvml_clock_mem = 2, nvml_temperature_gpu = 0;

struct nvml_functions {
  nvml_return (*init)() = nullptr;
  nvml_return (*by_uuid)(const char *, nvml_handle *) = nullptr;
  nvml_return (*clock)(nvml_handle, int, unsigned *) = nullptr;
  nvml_return (*temperature)(nvml_handle, int, unsigned *) = nullptr;
  nvml_return (*reasons)(nvml_handle, unsigned long long *) = nullptr;
  nvml_return (*compute_processes)(nvml_handle, unsigned *, nvml_process_info *) = nullptr;
  nvml_return (*utilization)(nvml_handle, nvml_utilization_sample *, unsigned *, unsigned long long) = nullptr;
  nvml_return (*process_name)(unsigned, char *, unsigned) = nullptr;
};

const nvml_functions *functions() {
  static std::once_flag once;
  static nvml_functions f;
  static bool ok = false;
  std::call_once(once, [] {
    void *library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    f.init = reinterpret_cast<decltype(f.init)>(dlsym(library, "nvmlInit_v2"));
    f.by_uuid = reinterpret_cast<decltype(f.by_uuid)>(dlsym(library, "nvmlDeviceGetHandleByUUID"));
    f.clock = reinterpret_cast<decltype(f.clock)>(dlsym(library, "nvmlDeviceGetClockInfo"));
    f.temperature = reinterpret_cast<decltype(f.temperature)>(dlsym(library, "nvmlDeviceGetTemperature"));
    f.reasons = reinterpret_cast<decltype(f.reasons)>(dlsym(library, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!f.reasons)
      f.reasons = reinterpret_cast<decltype(f.reasons)>(dlsym(library, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    f.compute_processes =
        reinterpret_cast<decltype(f.compute_processes)>(dlsym(library, "nvmlDeviceGetComputeRunningProcesses_v3"));
    f.utilization = reinterpret_cast<decltype(f.utilization)>(dlsym(library, "nvmlDeviceGetProcessUtilization"));
    f.process_name = reinterpret_cast<decltype(f.process_name)>(dlsym(library, "nvmlSystemGetProcessName"));
    ok = f.init && f.by_uuid && f.clock && f.init() == nvml_success;
  });
  return ok ? &f : nullptr;
}

} // namespace

std::optional<nvml_device> nvml_device::open(const std::string &uuid) {
  const nvml_functions *f = functions();
  if (!f) return std::nullopt;
  nvml_device d;
  if (f->by_uuid(uuid.c_str(), &d.handle_) != nvml_success) return std::nullopt;
  return d;
}

std::optional<gpu_clocks> nvml_device::read() const {
  const nvml_functions *f = functions();
  if (!f || !handle_) return std::nullopt;
  gpu_clocks c;
  if (f->clock(handle_, nvml_clock_sm, &c.sm_mhz) != nvml_success) return std::nullopt;
  f->clock(handle_, nvml_clock_mem, &c.memory_mhz);
  if (f->temperature) f->temperature(handle_, nvml_temperature_gpu, &c.temperature_c);
  unsigned long long reasons = 0;
  if (f->reasons && f->reasons(handle_, &reasons) == nvml_success) c.throttle_reasons = reasons;
  return c;
}

std::optional<std::vector<unsigned>> nvml_device::compute_processes() const {
  const nvml_functions *f = functions();
  if (!f || !handle_ || !f->compute_processes) return std::nullopt;
  for (unsigned capacity = 64; capacity <= 4096; capacity *= 4) {
    std::vector<nvml_process_info> infos(capacity);
    unsigned count = capacity;
    nvml_return rc = f->compute_processes(handle_, &count, infos.data());
    if (rc == nvml_insufficient_size) continue;
    if (rc != nvml_success) return std::nullopt;
    std::vector<unsigned> pids;
    for (unsigned i = 0; i < count && i < capacity; ++i) pids.push_back(infos[i].pid);
    return pids;
  }
  return std::nullopt;
}

std::optional<std::vector<gpu_process_sample>> nvml_device::process_samples(uint64_t since_unix_us) const {
  const nvml_functions *f = functions();
  if (!f || !handle_ || !f->utilization) return std::nullopt;
  for (unsigned capacity = 256; capacity <= 16384; capacity *= 4) {
    std::vector<nvml_utilization_sample> raw(capacity);
    unsigned count = capacity;
    nvml_return rc = f->utilization(handle_, raw.data(), &count, since_unix_us);
    if (rc == nvml_not_found) return std::vector<gpu_process_sample>{}; // no period ended since
    if (rc == nvml_insufficient_size) continue;
    if (rc != nvml_success) return std::nullopt;
    std::vector<gpu_process_sample> samples;
    for (unsigned i = 0; i < count && i < capacity; ++i) samples.push_back({raw[i].pid, raw[i].timestamp_us, raw[i].sm});
    return samples;
  }
  return std::nullopt;
}

std::string nvml_device::process_name(unsigned pid) const {
  const nvml_functions *f = functions();
  char name[256] = {};
  if (!f || !f->process_name || f->process_name(pid, name, sizeof name) != nvml_success) return "";
  std::string full(name);
  return full.substr(full.find_last_of('/') + 1);
}

} // namespace mkb
