// cuBLAS, loaded with dlopen on first use: only the GPU worker needs it, and only for the matmul
// steps of problem baselines and anchors (docs/SUBMISSION.md, Library steps). Submissions never
// reach it.
#pragma once

#include <cublas_api.h>

#include <string>

namespace mkb {

#define MKB_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasGetStatusString) X(cublasGemmStridedBatchedEx)

// The exported C function; C++ also sees an inline overload taking a cudaDataType compute type.
using cublas_gemm_strided_batched_ex = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *, const void *, cudaDataType, int,
    long long, const void *, cudaDataType, int, long long, const void *, void *, cudaDataType, int, long long, int,
    cublasComputeType_t, cublasGemmAlgo_t);

struct cublas_api {
  decltype(&::cublasCreate_v2) cublasCreate_v2 = nullptr;
  decltype(&::cublasDestroy_v2) cublasDestroy_v2 = nullptr;
  decltype(&::cublasSetStream_v2) cublasSetStream_v2 = nullptr;
  decltype(&::cublasGetStatusString) cublasGetStatusString = nullptr;
  cublas_gemm_strided_batched_ex cublasGemmStridedBatchedEx = nullptr;
  std::string library; // the file that was loaded
};

// Loads libcublas once per process (the toolkit's soname for this build, then the CUDA_HOME and
// /usr/local/cuda library folders). Throws mkb::error(MKB_ERR_WORKER) saying what was tried.
const cublas_api &load_cublas();

} // namespace mkb
