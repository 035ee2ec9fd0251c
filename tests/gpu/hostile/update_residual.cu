// HOSTILE SUBMISSION for fused_add_rmsnorm_h4096_llama31_8b_bf16: the contract #28 had before its rebuild:
// writes the bf16-rounded sum back into the residual in place (as vLLM's fused_add_rms_norm does); the
// residual is now read only, so the write is a modification of an input.
// Expected verdict: input_modified.
#include <cuda_bf16.h>

extern "C" __global__ void rms(const __nv_bfloat16 *x, __nv_bfloat16 *r, const __nv_bfloat16 *w, __nv_bfloat16 *y,
                               float eps) {
  __shared__ float part[256];
  const long long row = (long long)blockIdx.x * 4096;

  float sum = 0.f;
  for (int c = threadIdx.x; c < 4096; c += 256) {
    __nv_bfloat16 s = __float2bfloat16_rn(__bfloat162float(x[row + c]) + __bfloat162float(r[row + c]));
    r[row + c] = s;
    float f = __bfloat162float(s);
    sum += f * f;
  }
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  float inv = rsqrtf(part[0] / 4096 + eps);
  for (int c = threadIdx.x; c < 4096; c += 256) {
    float n = __bfloat162float(__float2bfloat16_rn(__bfloat162float(r[row + c]) * inv));
    __nv_bfloat16 out = __float2bfloat16_rn(n * __bfloat162float(w[c]));
    y[row + c] = out;
  }

}

/* mkb:plan
launch rms grid(batch_size) block(256) args(hidden_states, residual, weight, y, f32(eps))
*/
