// The library steps of problem baselines and anchors: a cuBLAS handle bound to the worker's stream
// that runs a plan's `matmul` steps the way an eager framework does (fp32 accumulation, no TF32;
// fp64 for anchors). Submissions never reach it: their plans cannot contain library steps.
#pragma once

#include <cuda.h>

#include "cuda_loaders/cublas_api.hpp"
#include "plan/launch_plan.hpp"

namespace mkb::worker {

class blas_library {
public:
  // Loads cuBLAS and creates a handle on the current context, bound to `stream`. Throws
  // evaluation_failure (infrastructure) when cuBLAS is missing or refuses.
  explicit blas_library(CUstream stream);
  ~blas_library();
  blas_library(const blas_library &) = delete;
  blas_library &operator=(const blas_library &) = delete;

  // Queues C (+)= A B on the stream. `role` and the step's line name it in errors.
  void matmul(const resolved_matmul &step, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, const std::string &role,
              int line) const;

private:
  const cublas_api &api_;
  cublasHandle_t handle_ = nullptr;
};

} // namespace mkb::worker
