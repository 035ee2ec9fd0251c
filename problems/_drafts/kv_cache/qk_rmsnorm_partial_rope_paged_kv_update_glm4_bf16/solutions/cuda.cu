// Fused q/k RMSNorm + partial NeoX RoPE + paged KV write: one 256-thread block per token, one warp per
// head at a time (48 heads: 32 q, 8 k, 8 v). Each lane owns four consecutive dims (one 8-byte load and
// store). The sum of squares is a warp reduction; the rotation pairs dim j (lanes 0-7) with dim j + 32
// (lanes 8-15), exchanged with one shuffle; lanes 16-31 hold the pass-through dims 64-127. Rounding points
// are the reference's: bf16 after the normalization, after the weight product and after every product,
// difference and sum of the rotation.
#include <cuda_bf16.h>

constexpr int kQHeads = 32, kKvHeads = 8, kDim = 128, kRot = 64, kHalf = kRot / 2;
constexpr int kRow = (kQHeads + 2 * kKvHeads) * kDim;
constexpr int kSlots = 256 * 16;  // NUM_BLOCKS * BLOCK_SIZE: rows of one cache plane
constexpr int kWarps = 8;

union pack4 {
  uint2 raw;
  __nv_bfloat16 v[4];
};

__device__ __forceinline__ float rbf(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

extern "C" __global__ void __launch_bounds__(kWarps * 32)
qk_norm_rope_cache(const __nv_bfloat16 *__restrict__ qkv, const long long *__restrict__ positions,
                   const __nv_bfloat16 *__restrict__ q_norm_weight, const __nv_bfloat16 *__restrict__ k_norm_weight,
                   const __nv_bfloat16 *__restrict__ cos_sin_cache, const long long *__restrict__ slot_mapping,
                   __nv_bfloat16 *__restrict__ q, __nv_bfloat16 *__restrict__ kv_cache, float eps) {
  const int t = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long slot = __ldg(slot_mapping + t);
  const long long position = __ldg(positions + t);
  const int d0 = lane * 4;

  // This lane's cos/sin values (lanes 0-15 rotate dims d0..d0+3; j = d0 mod 32).
  pack4 c, s;
  if (lane < 16) {
    const int j = d0 % kHalf;
    c.raw = __ldg(reinterpret_cast<const uint2 *>(cos_sin_cache + position * kRot + j));
    s.raw = __ldg(reinterpret_cast<const uint2 *>(cos_sin_cache + position * kRot + kHalf + j));
  }
  pack4 wq, wk;
  wq.raw = __ldg(reinterpret_cast<const uint2 *>(q_norm_weight + d0));
  wk.raw = __ldg(reinterpret_cast<const uint2 *>(k_norm_weight + d0));

  for (int head = warp; head < kQHeads + 2 * kKvHeads; head += kWarps) {
    const bool is_q = head < kQHeads, is_v = head >= kQHeads + kKvHeads;
    if (!is_q && slot < 0) continue;  // padding token: nothing of k or v is written
    pack4 x;
    x.raw = __ldg(reinterpret_cast<const uint2 *>(qkv + (long long)t * kRow + head * kDim + d0));
    if (is_v) {
      const int h = head - kQHeads - kKvHeads;
      *reinterpret_cast<uint2 *>(kv_cache + (long long)kSlots * kKvHeads * kDim + (slot * kKvHeads + h) * kDim + d0) = x.raw;
      continue;
    }
    float v[4], sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      v[k] = __bfloat162float(x.v[k]);
      sum += v[k] * v[k];
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const float inv_rms = rsqrtf(__fadd_rn(sum * (1.0f / kDim), eps));
    const pack4 &w = is_q ? wq : wk;
    float m[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) m[k] = rbf(__fmul_rn(rbf(__fmul_rn(v[k], inv_rms)), __bfloat162float(w.v[k])));

    // Rotation: lanes 0-7 hold x1 (dims 0-31), lanes 8-15 hold x2 (dims 32-63) of the same j.
    float partner[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) partner[k] = __shfl_xor_sync(0xffffffffu, m[k], 8);
    pack4 out;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float r = m[k];
      if (lane < 8) {  // x1 * cos - x2 * sin
        r = rbf(rbf(__fmul_rn(m[k], __bfloat162float(c.v[k]))) - rbf(__fmul_rn(partner[k], __bfloat162float(s.v[k]))));
      } else if (lane < 16) {  // x2 * cos + x1 * sin
        r = rbf(rbf(__fmul_rn(m[k], __bfloat162float(c.v[k]))) + rbf(__fmul_rn(partner[k], __bfloat162float(s.v[k]))));
      }
      out.v[k] = __float2bfloat16_rn(r);
    }
    if (is_q) {
      *reinterpret_cast<uint2 *>(q + ((long long)t * kQHeads + head) * kDim + d0) = out.raw;
    } else {
      const int h = head - kQHeads;
      *reinterpret_cast<uint2 *>(kv_cache + (slot * kKvHeads + h) * kDim + d0) = out.raw;
    }
  }
}

/* mkb:plan
launch qk_norm_rope_cache grid(num_tokens) block(256)
  args(qkv, positions, q_norm_weight, k_norm_weight, cos_sin_cache, slot_mapping, q, kv_cache, f32(eps))
*/
