// The anchor: every cache copied to its output (byte caches as bytes, scale caches widened to float64),
// then one 128-thread block per (head, token) quantizes the key row and the value row and writes them at
// the token's slot. The scales are float64 (absmax / 448, floored at 1e-6). The bytes are integer outputs,
// compared exactly: they are computed with the reference's own fp32 rounding points (reference.md), since
// an exact comparison has no allowance for a float64 product that rounds to another e4m3 value.
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

extern "C" __global__ void copy_bytes(unsigned char *out, const unsigned char *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

extern "C" __global__ void widen_f32(double *out, const float *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)in[i];
}

// One row x[t, h, :] of 128 values: thread d holds element d. Writes the float64 scale to *scale_out
// (thread 0) and writes the e4m3 bytes of the row to `bytes` (128 of them).
__device__ void quantize_row(const bf16 *row, unsigned char *bytes, double *scale_out, float fp8_max, double fp8_max64,
                             float min_scale, double min_scale64) {
  const float w = f32(row[threadIdx.x]);
  const float absmax = mkb_ops::block_reduce<mkb_ops::max_op>(fabsf(w));  // exact
  // fp32 pipeline of the reference on CUDA: * fp32(1/448), clamp, reciprocal, multiply, clamp, e4m3 (RNE)
  const float scale32 = fmaxf(__fmul_rn(absmax, __fdiv_rn(1.0f, fp8_max)), min_scale);
  const float inv = __frcp_rn(scale32);
  const float q = fminf(fmaxf(__fmul_rn(w, inv), -fp8_max), fp8_max);
  bytes[threadIdx.x] = (unsigned char)__nv_cvt_float_to_fp8(q, __NV_SATFINITE, __NV_E4M3);
  if (threadIdx.x == 0) *scale_out = fmax((double)absmax / fp8_max64, min_scale64);
}

extern "C" __global__ void __launch_bounds__(128)
anchor_quantize_append(const bf16 *key, const bf16 *value, const long long *slot_mapping, unsigned char *key_cache_out,
                       unsigned char *value_cache_out, double *k_scale_cache_out, double *v_scale_cache_out,
                       int num_heads, int head_dim, float fp8_max, double fp8_max64, float min_scale, double min_scale64) {
  const int h = blockIdx.x, t = blockIdx.y;
  const long long slot = slot_mapping[t];
  if (slot < 0) return;  // padding token: nothing written
  // Slot s is block s / block_size, offset s % block_size: cache row s of [num_slots, num_heads, head_dim].
  const long long src = ((long long)t * num_heads + h) * head_dim;
  const long long dst = (slot * num_heads + h) * head_dim;
  quantize_row(key + src, key_cache_out + dst, k_scale_cache_out + slot * num_heads + h, fp8_max, fp8_max64, min_scale,
               min_scale64);
  quantize_row(value + src, value_cache_out + dst, v_scale_cache_out + slot * num_heads + h, fp8_max, fp8_max64, min_scale,
               min_scale64);
}

/* mkb:plan
launch copy_bytes grid(ceil_div(num_blocks * block_size * num_heads * head_dim, 256)) block(256) args(key_cache_out, key_cache, i64(num_blocks * block_size * num_heads * head_dim))
launch copy_bytes grid(ceil_div(num_blocks * block_size * num_heads * head_dim, 256)) block(256) args(value_cache_out, value_cache, i64(num_blocks * block_size * num_heads * head_dim))
launch widen_f32 grid(ceil_div(num_blocks * block_size * num_heads, 256)) block(256) args(k_scale_cache_out, k_scale_cache, i64(num_blocks * block_size * num_heads))
launch widen_f32 grid(ceil_div(num_blocks * block_size * num_heads, 256)) block(256) args(v_scale_cache_out, v_scale_cache, i64(num_blocks * block_size * num_heads))
launch anchor_quantize_append grid(num_heads, num_tokens) block(head_dim)
  args(key, value, slot_mapping, key_cache_out, value_cache_out, k_scale_cache_out, v_scale_cache_out, i32(num_heads), i32(head_dim), f32(fp8_max), f64(fp8_max), f32(min_scale), f64(min_scale))
*/
