// HOSTILE SUBMISSION for fused_add_rmsnorm_h4096_llama31_8b_bf16: keeps its first result in a __device__ global and replays it on later runs
// Expected verdict: wrong_answer.
#include <cuda_bf16.h>
__device__ __nv_bfloat16 cached[14509 * 4096];
__device__ int has_cached;

extern "C" __global__ void rms(const __nv_bfloat16 *x, const __nv_bfloat16 *r, const __nv_bfloat16 *w, __nv_bfloat16 *y,
                               float eps) {
  __shared__ float part[256];
  const long long row = (long long)blockIdx.x * 4096;

  float sum = 0.f;
  for (int c = threadIdx.x; c < 4096; c += 256) {
    float s = __bfloat162float(x[row + c]) + __bfloat162float(r[row + c]);
    sum += s * s;
  }
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  float inv = rsqrtf(part[0] / 4096 + eps);
  for (int c = threadIdx.x; c < 4096; c += 256) {
    float n = (__bfloat162float(x[row + c]) + __bfloat162float(r[row + c])) * inv;
    __nv_bfloat16 out = __float2bfloat16_rn(n * __bfloat162float(w[c]));
    if (has_cached) y[row + c] = cached[row + c];
    else y[row + c] = cached[row + c] = out;
  }

}
extern "C" __global__ void remember() { has_cached = 1; }

/* mkb:plan
launch rms grid(batch_size) block(256) args(hidden_states, residual, weight, y, f32(eps))
launch remember grid(1) block(1) args()
*/
