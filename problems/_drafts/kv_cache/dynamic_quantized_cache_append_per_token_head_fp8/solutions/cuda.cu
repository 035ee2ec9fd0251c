// Fused quantize-and-append: one 256-thread block per token, one warp per head. Each lane holds four
// consecutive values of the key row and of the value row (8-byte loads), the warp reduces the absolute
// maximum with shuffles, and each lane writes its four e4m3 bytes as one 32-bit store at the token's slot;
// lane 0 writes the two scales. Padding tokens (slot -1) return at once. The fp32 rounding points are
// the reference's: scale = max(absmax * fp32(1/448), 1e-6), inv = 1/scale rounded, q = x * inv rounded,
// clamped to +-448, e4m3 by round-to-nearest-even.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr int kHeads = 8, kDim = 128;
constexpr float kFp8Max = 448.0f;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Quantizes four values held by this lane of a row whose 32 lanes hold 128 values; returns the packed bytes.
__device__ __forceinline__ unsigned quantize4(uint2 raw, float *scale_out) {
  __nv_bfloat162 lo = *reinterpret_cast<__nv_bfloat162 *>(&raw.x), hi = *reinterpret_cast<__nv_bfloat162 *>(&raw.y);
  const float w[4] = {__low2float(lo), __high2float(lo), __low2float(hi), __high2float(hi)};
  const float local = fmaxf(fmaxf(fabsf(w[0]), fabsf(w[1])), fmaxf(fabsf(w[2]), fabsf(w[3])));
  const float absmax = warp_max(local);
  const float scale = fmaxf(__fmul_rn(absmax, 1.0f / kFp8Max), 1e-6f);
  const float inv = __frcp_rn(scale);
  unsigned packed = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float q = fminf(fmaxf(__fmul_rn(w[k], inv), -kFp8Max), kFp8Max);
    packed |= (unsigned)(unsigned char)__nv_cvt_float_to_fp8(q, __NV_SATFINITE, __NV_E4M3) << (8 * k);
  }
  *scale_out = scale;
  return packed;
}

extern "C" __global__ void __launch_bounds__(256)
quantize_append(const __nv_bfloat16 *__restrict__ key, const __nv_bfloat16 *__restrict__ value,
                const long long *__restrict__ slot_mapping, unsigned char *__restrict__ key_cache,
                unsigned char *__restrict__ value_cache, float *__restrict__ k_scale_cache, float *__restrict__ v_scale_cache) {
  const int token = blockIdx.x, head = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long slot = __ldg(slot_mapping + token);
  if (slot < 0) return;
  const long long src = ((long long)token * kHeads + head) * kDim + lane * 4;
  const uint2 k_raw = __ldg(reinterpret_cast<const uint2 *>(key + src));
  const uint2 v_raw = __ldg(reinterpret_cast<const uint2 *>(value + src));
  float k_scale, v_scale;
  const unsigned k_bytes = quantize4(k_raw, &k_scale);
  const unsigned v_bytes = quantize4(v_raw, &v_scale);
  // block slot / 16, offset slot % 16 of [num_blocks, 16, heads, dim] is row `slot` of [slots, heads, dim]
  const long long dst = (slot * kHeads + head) * kDim + lane * 4;
  *reinterpret_cast<unsigned *>(key_cache + dst) = k_bytes;
  *reinterpret_cast<unsigned *>(value_cache + dst) = v_bytes;
  if (lane == 0) {
    k_scale_cache[slot * kHeads + head] = k_scale;
    v_scale_cache[slot * kHeads + head] = v_scale;
  }
}

/* mkb:plan
launch quantize_append grid(num_tokens) block(256)
  args(key, value, slot_mapping, key_cache, value_cache, k_scale_cache, v_scale_cache)
*/
