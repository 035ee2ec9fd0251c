// The float64 anchor: the same semantics with every intermediate exact in double. One 128-thread block
// per row, one thread per column.
#include <cuda_bf16.h>

extern "C" __global__ void anchor_rmsnorm(const __nv_bfloat16 *hidden_states, const __nv_bfloat16 *weight,
                                          double *y, double eps) {
  __shared__ double partial[128];
  const long long index = (long long)blockIdx.x * 128 + threadIdx.x;
  const double x = (double)__bfloat162float(hidden_states[index]);
  partial[threadIdx.x] = x * x;
  __syncthreads();
  for (int stride = 64; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  y[index] = x / sqrt(partial[0] / 128.0 + eps) * (double)__bfloat162float(weight[threadIdx.x]);
}

/* mkb:plan
launch anchor_rmsnorm grid(batch_size) block(128) args(hidden_states, weight, y, f64(eps))
*/
