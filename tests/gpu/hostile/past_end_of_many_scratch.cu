// HOSTILE SUBMISSION for fused_add_rmsnorm_h4096_llama31_8b_bf16: correct output, but 30 scratch buffers and a
// write one element past the end of the last: 68 guard regions, more than one guard-check launch holds (64).
// Expected verdict: out_of_bounds.
#include <cuda_bf16.h>

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
    y[row + c] = out;
  }
}


extern "C" __global__ void touch(float *s) { s[16] = 1.0f; }

/* mkb:plan
scratch s00 fp32[16]
scratch s01 fp32[16]
scratch s02 fp32[16]
scratch s03 fp32[16]
scratch s04 fp32[16]
scratch s05 fp32[16]
scratch s06 fp32[16]
scratch s07 fp32[16]
scratch s08 fp32[16]
scratch s09 fp32[16]
scratch s10 fp32[16]
scratch s11 fp32[16]
scratch s12 fp32[16]
scratch s13 fp32[16]
scratch s14 fp32[16]
scratch s15 fp32[16]
scratch s16 fp32[16]
scratch s17 fp32[16]
scratch s18 fp32[16]
scratch s19 fp32[16]
scratch s20 fp32[16]
scratch s21 fp32[16]
scratch s22 fp32[16]
scratch s23 fp32[16]
scratch s24 fp32[16]
scratch s25 fp32[16]
scratch s26 fp32[16]
scratch s27 fp32[16]
scratch s28 fp32[16]
scratch s29 fp32[16]
launch rms grid(batch_size) block(256) args(hidden_states, residual, weight, y, f32(eps))
launch touch grid(1) block(1) args(s29)
*/
