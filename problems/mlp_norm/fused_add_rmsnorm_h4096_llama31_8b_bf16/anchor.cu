// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points. One block per row.
#include <cuda_bf16.h>

extern "C" __global__ void anchor_fused_add_rmsnorm(const __nv_bfloat16 *x, const __nv_bfloat16 *residual,
                                                    const __nv_bfloat16 *weight, double *y, double *residual_out,
                                                    int cols, double eps) {
  __shared__ double partial[256];
  const long long base = (long long)blockIdx.x * cols;
  double sum = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    double s = (double)__bfloat162float(x[base + c]) + (double)__bfloat162float(residual[base + c]);
    residual_out[base + c] = s;
    sum += s * s;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const double inv = 1.0 / sqrt(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[base + c] = residual_out[base + c] * inv * (double)__bfloat162float(weight[c]);
}

/* mkb:plan
launch anchor_fused_add_rmsnorm grid(tokens) block(256)
  args(x, residual, weight, y, residual_out, i32(hidden), f64(eps))
*/
