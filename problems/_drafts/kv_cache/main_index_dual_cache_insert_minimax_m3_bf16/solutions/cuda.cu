// Fused (1 + w) RMSNorm + partial RoPE + dual cache insert: one 256-thread block per token, one warp per
// head at a time over the token's 29 heads (16 q, 4 k, 4 v, 4 indexer q, 1 indexer k, in qkv's column
// order). Each lane owns four consecutive dims (8-byte loads and stores); the sum of squares is a warp
// reduction and the rotation partner (dim j <-> j + 32) is one shuffle away (lane ^ 8). Rounding points
// are the reference's: fp32 through the norm and (1 + w) product, bf16 once; the rotation in fp32 on the
// bf16 values, each product rounded (no fused multiply-add), bf16 once.
#include <cuda_bf16.h>

constexpr int kQHeads = 16, kKvHeads = 4, kIndexQHeads = 4, kDim = 128, kRot = 64, kHalf = kRot / 2;
constexpr int kHeads = kQHeads + 2 * kKvHeads + kIndexQHeads + 1;  // 29
constexpr int kRow = kHeads * kDim;
constexpr int kBlockSize = 64;
constexpr int kWarps = 8;

union pack4 {
  uint2 raw;
  __nv_bfloat16 v[4];
};

extern "C" __global__ void __launch_bounds__(kWarps * 32)
dual_insert(const __nv_bfloat16 *__restrict__ qkv, const __nv_bfloat16 *__restrict__ q_norm_weight,
            const __nv_bfloat16 *__restrict__ k_norm_weight, const __nv_bfloat16 *__restrict__ index_q_norm_weight,
            const __nv_bfloat16 *__restrict__ index_k_norm_weight, const long long *__restrict__ positions,
            const __nv_bfloat16 *__restrict__ cos_sin_cache, const long long *__restrict__ slot_mapping,
            const long long *__restrict__ index_slot_mapping, __nv_bfloat16 *__restrict__ q, __nv_bfloat16 *__restrict__ iq,
            __nv_bfloat16 *__restrict__ kv_cache, __nv_bfloat16 *__restrict__ index_cache, float eps) {
  const int t = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int d0 = lane * 4;
  const long long slot = __ldg(slot_mapping + t), position = __ldg(positions + t);
  const long long block = slot / kBlockSize, offset = slot % kBlockSize;

  float c[4] = {0.0f, 0.0f, 0.0f, 0.0f}, s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (lane < 16) {
    pack4 cp, sp;
    cp.raw = __ldg(reinterpret_cast<const uint2 *>(cos_sin_cache + position * kRot + d0 % kHalf));
    sp.raw = __ldg(reinterpret_cast<const uint2 *>(cos_sin_cache + position * kRot + kHalf + d0 % kHalf));
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      c[k] = __bfloat162float(cp.v[k]);
      s[k] = __bfloat162float(sp.v[k]);
    }
  }

  for (int head = warp; head < kHeads; head += kWarps) {
    pack4 x;
    x.raw = __ldg(reinterpret_cast<const uint2 *>(qkv + (long long)t * kRow + head * kDim + d0));
    if (head >= kQHeads + kKvHeads && head < kQHeads + 2 * kKvHeads) {  // v: unchanged into [..., 128:256]
      const int h = head - kQHeads - kKvHeads;
      *reinterpret_cast<uint2 *>(kv_cache + ((block * kKvHeads + h) * kBlockSize + offset) * 2 * kDim + kDim + d0) = x.raw;
      continue;
    }
    const __nv_bfloat16 *weight = head < kQHeads                                 ? q_norm_weight
                                  : head < kQHeads + kKvHeads                    ? k_norm_weight
                                  : head < kQHeads + 2 * kKvHeads + kIndexQHeads ? index_q_norm_weight
                                                                                 : index_k_norm_weight;
    pack4 w;
    w.raw = __ldg(reinterpret_cast<const uint2 *>(weight + d0));
    float v[4], sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      v[k] = __bfloat162float(x.v[k]);
      sum += v[k] * v[k];
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    const float inv_rms = rsqrtf(__fadd_rn(sum * (1.0f / kDim), eps));
    float n[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      n[k] = __bfloat162float(__float2bfloat16_rn(
          __fmul_rn(__fmul_rn(v[k], inv_rms), __fadd_rn(__bfloat162float(w.v[k]), 1.0f))));
    float partner[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) partner[k] = __shfl_xor_sync(0xffffffffu, n[k], 8);
    pack4 out;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float r = n[k];
      if (lane < 8) r = __fsub_rn(__fmul_rn(n[k], c[k]), __fmul_rn(partner[k], s[k]));        // x1 cos - x2 sin
      else if (lane < 16) r = __fadd_rn(__fmul_rn(n[k], c[k]), __fmul_rn(partner[k], s[k]));  // x2 cos + x1 sin
      out.v[k] = __float2bfloat16_rn(r);
    }
    if (head < kQHeads) {
      *reinterpret_cast<uint2 *>(q + ((long long)t * kQHeads + head) * kDim + d0) = out.raw;
    } else if (head < kQHeads + kKvHeads) {
      const int h = head - kQHeads;
      *reinterpret_cast<uint2 *>(kv_cache + ((block * kKvHeads + h) * kBlockSize + offset) * 2 * kDim + d0) = out.raw;
    } else if (head < kHeads - 1) {
      const int h = head - kQHeads - 2 * kKvHeads;
      *reinterpret_cast<uint2 *>(iq + ((long long)t * kIndexQHeads + h) * kDim + d0) = out.raw;
    } else {
      const long long index_slot = __ldg(index_slot_mapping + t);  // row index_slot of [640, 128]
      *reinterpret_cast<uint2 *>(index_cache + index_slot * kDim + d0) = out.raw;
    }
  }
}

/* mkb:plan
launch dual_insert grid(num_tokens) block(256)
  args(qkv, q_norm_weight, k_norm_weight, index_q_norm_weight, index_k_norm_weight, positions, cos_sin_cache,
       slot_mapping, index_slot_mapping, q, iq, kv_cache, index_cache, f32(eps))
*/
