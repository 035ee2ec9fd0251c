#include "worker/blas_library.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {

namespace {

const cublas_api &load_or_refuse() {
  try {
    return load_cublas();
  } catch (const mkb::error &e) {
    throw infrastructure_failure(e.what());
  }
}

cudaDataType_t cuda_type(dtype t) {
  switch (t) {
  case dtype::bf16: return CUDA_R_16BF;
  case dtype::fp16: return CUDA_R_16F;
  case dtype::fp64: return CUDA_R_64F;
  default: return CUDA_R_32F;
  }
}

} // namespace

blas_library::blas_library(CUstream stream) : api_(load_or_refuse()) {
  cublasStatus_t s = api_.cublasCreate_v2(&handle_);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw infrastructure_failure(fmt::format("cublasCreate failed: {}", api_.cublasGetStatusString(s)));
  api_.cublasSetStream_v2(handle_, reinterpret_cast<cudaStream_t>(stream));
}

blas_library::~blas_library() {
  if (handle_) api_.cublasDestroy_v2(handle_);
}

void blas_library::matmul(const resolved_matmul &step, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                          const std::string &role, int line) const {
  // cuBLAS is column-major: a row-major C (M x N) is a column-major C^T (N x M) = B^T A^T, so the
  // operands swap places and a row-major buffer read as column-major is its own transpose.
  const int m = static_cast<int>(step.n), n = static_cast<int>(step.m), k = static_cast<int>(step.k);
  const cublasOperation_t op_first = step.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = step.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ld_first = static_cast<int>(step.transpose_b ? step.k : step.n);
  const int ld_second = static_cast<int>(step.transpose_a ? step.m : step.k);
  const int ld_result = static_cast<int>(step.n);
  const bool fp64 = step.operand_type == dtype::fp64;
  const double alpha64 = 1.0, beta64 = step.accumulate ? 1.0 : 0.0;
  const float alpha32 = 1.0f, beta32 = step.accumulate ? 1.0f : 0.0f;
  const void *alpha = fp64 ? static_cast<const void *>(&alpha64) : &alpha32;
  const void *beta = fp64 ? static_cast<const void *>(&beta64) : &beta32;
  cublasStatus_t s = api_.cublasGemmStridedBatchedEx(
      handle_, op_first, op_second, m, n, k, alpha, reinterpret_cast<const void *>(b), cuda_type(step.operand_type),
      ld_first, step.k * step.n, reinterpret_cast<const void *>(a), cuda_type(step.operand_type), ld_second,
      step.m * step.k, beta, reinterpret_cast<void *>(c), cuda_type(step.result_type), ld_result, step.m * step.n,
      static_cast<int>(step.batch), fp64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS)
    // The worker starts afresh: a handle that failed a launch is not trusted with the next evaluation.
    throw infrastructure_failure(fmt::format("the problem's {} plan, line {}: cuBLAS matmul failed: {}", role, line,
                                             api_.cublasGetStatusString(s)),
                                 true);
}

} // namespace mkb::worker
