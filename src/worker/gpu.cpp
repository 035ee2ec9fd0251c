#include "worker/gpu.hpp"

#include <fmt/format.h>

#include <thread>

#include "core/error.hpp"
#include "worker/blas_library.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {

namespace {
const driver_api &cu() { return load_driver(); }
} // namespace

device_facts query_device(const driver_api &api, int ordinal) {
  CUdevice device = 0;
  check_cuda(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  device_facts f;
  f.ordinal = ordinal;
  char name[256] = {};
  check_cuda(api.cuDeviceGetName(name, sizeof name, device), "cuDeviceGetName");
  f.name = name;
  CUuuid uuid{};
  check_cuda(api.cuDeviceGetUuid(&uuid, device), "cuDeviceGetUuid");
  const auto *u = reinterpret_cast<const unsigned char *>(uuid.bytes);
  f.uuid = fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                       u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  size_t memory = 0;
  check_cuda(api.cuDeviceTotalMem(&memory, device), "cuDeviceTotalMem");
  f.memory_bytes = memory;
  auto attribute = [&](CUdevice_attribute a) {
    int v = 0;
    api.cuDeviceGetAttribute(&v, a, device);
    return v;
  };
  f.major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  f.minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  f.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  f.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  f.sm_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  f.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  f.memory_bus_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  f.max_shared_per_block_optin = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  return f;
}

device_memory::device_memory(size_t bytes) : bytes_(bytes) {
  CUresult rc = cu().cuMemAlloc(&ptr_, bytes);
  if (rc != CUDA_SUCCESS) {
    ptr_ = 0;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) fail(MKB_ERR_NO_MEMORY, "out of device memory allocating {} bytes", bytes);
    fail(MKB_ERR_WORKER, "cuMemAlloc({}) failed: {}", bytes, cuda_error_text(rc));
  }
}

device_memory &device_memory::operator=(device_memory &&o) noexcept {
  if (this != &o) {
    if (ptr_) cu().cuMemFree(ptr_);
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

device_memory::~device_memory() {
  if (ptr_) cu().cuMemFree(ptr_);
}

pinned_memory::pinned_memory(size_t bytes) : bytes_(bytes) {
  check_cuda(cu().cuMemAllocHost(&ptr_, bytes), "cuMemAllocHost");
}

pinned_memory &pinned_memory::operator=(pinned_memory &&o) noexcept {
  if (this != &o) {
    if (ptr_) cu().cuMemFreeHost(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

pinned_memory::~pinned_memory() {
  if (ptr_) cu().cuMemFreeHost(ptr_);
}

event event::create() {
  event e;
  check_cuda(cu().cuEventCreate(&e.handle_, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}

event &event::operator=(event &&o) noexcept {
  if (this != &o) {
    if (handle_) cu().cuEventDestroy(handle_);
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

event::~event() {
  if (handle_) cu().cuEventDestroy(handle_);
}

gpu::gpu(int ordinal) : cu_(load_driver()) {
  int count = 0;
  check_cuda(cu_.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count) fail(MKB_ERR_WORKER, "GPU {} does not exist ({} visible)", ordinal, count);
  facts_ = query_device(cu_, ordinal);
  check_cuda(cu_.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check_cuda(cu_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  check_cuda(cu_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  check_cuda(cu_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  sync_event_ = event::create();
}

gpu::~gpu() {
  blas_.reset(); // cuBLAS and the event go before the context is released
  { event discard = std::move(sync_event_); }
  if (stream_) cu_.cuStreamDestroy(stream_);
  if (context_) cu_.cuDevicePrimaryCtxRelease(device_);
}

const blas_library &gpu::blas() const {
  if (!blas_) blas_ = std::make_unique<blas_library>(stream_);
  return *blas_;
}

bool cuda_error_loses_context(CUresult result) {
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_LAUNCH_TIMEOUT: return true;
  default: return false;
  }
}

void throw_cuda_failure(CUresult result, const std::string &what) {
  std::string text = cuda_error_text(result);
  if (cuda_error_loses_context(result))
    throw evaluation_failure(MKB_VERDICT_FAULT, fmt::format("{}: {}", what, text), true);
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    throw evaluation_failure(MKB_VERDICT_OUT_OF_MEMORY, fmt::format("{}: {}", what, text));
  default:
    throw infrastructure_failure(fmt::format("{}: {}", what, text), true);
  }
}

void gpu::wait(CUevent e, std::chrono::milliseconds timeout, const std::string &what) const {
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + timeout;
  for (int spins = 0;; ++spins) {
    CUresult rc = cu_.cuEventQuery(e);
    if (rc == CUDA_SUCCESS) return;
    if (rc != CUDA_ERROR_NOT_READY) throw_cuda_failure(rc, what);
    auto now = std::chrono::steady_clock::now();
    if (now > deadline)
      throw evaluation_failure(MKB_VERDICT_TIMEOUT,
                               fmt::format("{} did not finish within {:.1f} s", what, timeout.count() / 1000.0), true);
    // Spin briefly (most waits are microseconds), then sleep so a hung kernel costs no CPU.
    if (now - start > std::chrono::milliseconds(2)) std::this_thread::sleep_for(std::chrono::microseconds(200));
    else if (spins % 64 == 63) std::this_thread::yield();
  }
}

void gpu::synchronize(std::chrono::milliseconds timeout, const std::string &what) {
  CUresult rc = cu_.cuEventRecord(sync_event_.get(), stream_);
  if (rc != CUDA_SUCCESS) throw_cuda_failure(rc, what);
  wait(sync_event_.get(), timeout, what);
}

} // namespace mkb::worker
