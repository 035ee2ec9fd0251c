// The worker's GPU: primary context on one device, one stream on which everything runs in order,
// and RAII wrappers for device memory, pinned host memory and events.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "cuda_loaders/driver_api.hpp"
#include "model/device_info.hpp"

namespace mkb::worker {

using device_facts = device_info;

device_facts query_device(const driver_api &cu, int ordinal);

class device_memory {
public:
  device_memory() = default;
  explicit device_memory(size_t bytes); // throws mkb::error(MKB_ERR_WORKER) with the CUDA error
  device_memory(device_memory &&o) noexcept : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
  device_memory &operator=(device_memory &&o) noexcept;
  device_memory(const device_memory &) = delete;
  device_memory &operator=(const device_memory &) = delete;
  ~device_memory();
  CUdeviceptr get() const { return ptr_; }
  size_t size() const { return bytes_; }

private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

class pinned_memory {
public:
  pinned_memory() = default;
  explicit pinned_memory(size_t bytes);
  pinned_memory(pinned_memory &&o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  pinned_memory &operator=(pinned_memory &&o) noexcept;
  pinned_memory(const pinned_memory &) = delete;
  pinned_memory &operator=(const pinned_memory &) = delete;
  ~pinned_memory();
  void *get() const { return ptr_; }
  size_t size() const { return bytes_; }

private:
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

class event {
public:
  event() = default;
  static event create();
  event(event &&o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  event &operator=(event &&o) noexcept;
  event(const event &) = delete;
  event &operator=(const event &) = delete;
  ~event();
  CUevent get() const { return handle_; }

private:
  CUevent handle_ = nullptr;
};

class blas_library;

class gpu {
public:
  explicit gpu(int ordinal);
  ~gpu();
  gpu(const gpu &) = delete;
  gpu &operator=(const gpu &) = delete;

  const driver_api &cu() const { return cu_; }
  const device_facts &facts() const { return facts_; }
  CUstream stream() const { return stream_; }
  // cuBLAS on this GPU's stream, created on first use: only problems' matmul steps need it.
  const blas_library &blas() const;

  // Waits until `e` completed, polling so that a kernel that never ends is noticed. A fault is
  // thrown as evaluation_failure(FAULT) and a missed deadline as evaluation_failure(TIMEOUT), both
  // with the context marked lost; `what` names the work waited for.
  void wait(CUevent e, std::chrono::milliseconds timeout, const std::string &what) const;
  // Records an event on the stream and waits for it.
  void synchronize(std::chrono::milliseconds timeout, const std::string &what);

private:
  const driver_api &cu_;
  device_facts facts_;
  CUcontext context_ = nullptr;
  CUdevice device_ = 0;
  CUstream stream_ = nullptr;
  event sync_event_;
  mutable std::unique_ptr<blas_library> blas_;
};

// Whether `result` is a fault that leaves the context unusable (sticky): every later call on it fails
// with the same error, so the worker must be replaced.
bool cuda_error_loses_context(CUresult result);

// Turns a CUDA error seen while the submission may have run into the verdict it deserves.
[[noreturn]] void throw_cuda_failure(CUresult result, const std::string &what);

// check_cuda for calls made while the submission may have run: an error becomes its verdict.
inline void check_gpu(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS) throw_cuda_failure(result, what);
}

} // namespace mkb::worker
