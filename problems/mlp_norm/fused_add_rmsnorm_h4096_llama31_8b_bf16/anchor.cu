// The float64 anchor: the same semantics with every intermediate exact in double. One block per row.
#include <cuda_bf16.h>

extern "C" __global__ void anchor_fused_add_rmsnorm(const __nv_bfloat16 *hidden_states, const __nv_bfloat16 *residual,
                                                    const __nv_bfloat16 *weight, double *y, int cols, double eps) {
  __shared__ double partial[256];
  const long long base = (long long)blockIdx.x * cols;
  double sum = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    double s = (double)__bfloat162float(hidden_states[base + c]) + (double)__bfloat162float(residual[base + c]);
    sum += s * s;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const double inv = 1.0 / sqrt(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    double s = (double)__bfloat162float(hidden_states[base + c]) + (double)__bfloat162float(residual[base + c]);
    y[base + c] = s * inv * (double)__bfloat162float(weight[c]);
  }
}

/* mkb:plan
launch anchor_fused_add_rmsnorm grid(batch_size) block(256)
  args(hidden_states, residual, weight, y, i32(hidden_size), f64(eps))
*/
