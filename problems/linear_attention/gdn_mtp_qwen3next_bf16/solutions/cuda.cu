// Gated delta rule over 4 draft tokens (MTP verification), fused: two launches.
//  1. gdn_mtp: one warp per (sequence, value head, value row v). Row v of the k-last state slot the
//     sequence names (128 fp32, four per lane) is column v of the [K, V] state the rule works on, and
//     rows are independent, so the warp keeps its row in registers through the 4 tokens: per token
//     old = g * S, old_v = k . old (shuffle reduction), new_v = beta * v + (1 - beta) * old_v,
//     S = (old - k * old_v) + k * new_v, output = bf16(scale * (q . S)). The gate and beta follow eager's
//     fp32 operations; the state arithmetic keeps eager's roundings.
//  2. copy_pool: the returned pool is the input pool unchanged (the reference works on clones), so it is
//     a 16-byte-vector copy, which dominates the time (51 MB read and written).
#include <cuda_bf16.h>

constexpr int kDim = 128, kVHeads = 16, kQKHeads = 8, kGroup = kVHeads / kQKHeads, kSeqLen = 4;
constexpr int kRowsPerBlock = 8;  // 8 warps

__device__ __forceinline__ float4 bf16x4(const __nv_bfloat16 *p) {
  const uint2 raw = *reinterpret_cast<const uint2 *>(p);
  const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&raw);
  const float2 lo = __bfloat1622float2(h[0]), hi = __bfloat1622float2(h[1]);
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

extern "C" __global__ void __launch_bounds__(kRowsPerBlock * 32)
gdn_mtp(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k, const __nv_bfloat16 *__restrict__ v,
        const float *__restrict__ initial_state, const int *__restrict__ indices, const float *__restrict__ A_log,
        const __nv_bfloat16 *__restrict__ a, const float *__restrict__ dt_bias, const __nv_bfloat16 *__restrict__ b,
        __nv_bfloat16 *__restrict__ output, float scale) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int pair = blockIdx.x / (kDim / kRowsPerBlock);
  const int row = (blockIdx.x % (kDim / kRowsPerBlock)) * kRowsPerBlock + warp;
  const int bi = pair / kVHeads, h = pair % kVHeads, hk = h / kGroup;
  const float4 s = reinterpret_cast<const float4 *>(
      initial_state + (((long long)indices[bi] * kVHeads + h) * kDim + row) * kDim)[lane];
  float s0 = s.x, s1 = s.y, s2 = s.z, s3 = s.w;
  const float neg_a = -expf(A_log[h]), bias = dt_bias[h];

#pragma unroll
  for (int t = 0; t < kSeqLen; ++t) {
    const long long tok = (long long)bi * kSeqLen + t, gate = tok * kVHeads + h;
    const float4 kv = bf16x4(k + (tok * kQKHeads + hk) * kDim + lane * 4);
    const float4 qv = bf16x4(q + (tok * kQKHeads + hk) * kDim + lane * 4);
    const float vr = __bfloat162float(v[gate * kDim + row]);
    const float x = __fadd_rn(__bfloat162float(a[gate]), bias);
    const float softplus = x > 20.0f ? x : log1pf(expf(x));
    const float g = expf(__fmul_rn(neg_a, softplus));
    const float beta = __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(-__bfloat162float(b[gate]))));

    const float o0 = __fmul_rn(g, s0), o1 = __fmul_rn(g, s1), o2 = __fmul_rn(g, s2), o3 = __fmul_rn(g, s3);
    const float old_v = warp_sum(fmaf(kv.w, o3, fmaf(kv.z, o2, fmaf(kv.y, o1, kv.x * o0))));
    const float new_v = __fadd_rn(__fmul_rn(beta, vr), __fmul_rn(__fsub_rn(1.0f, beta), old_v));
    s0 = __fadd_rn(__fsub_rn(o0, __fmul_rn(kv.x, old_v)), __fmul_rn(kv.x, new_v));
    s1 = __fadd_rn(__fsub_rn(o1, __fmul_rn(kv.y, old_v)), __fmul_rn(kv.y, new_v));
    s2 = __fadd_rn(__fsub_rn(o2, __fmul_rn(kv.z, old_v)), __fmul_rn(kv.z, new_v));
    s3 = __fadd_rn(__fsub_rn(o3, __fmul_rn(kv.w, old_v)), __fmul_rn(kv.w, new_v));
    const float out = warp_sum(fmaf(qv.w, s3, fmaf(qv.z, s2, fmaf(qv.y, s1, qv.x * s0))));
    if (lane == 0) output[gate * kDim + row] = __float2bfloat16_rn(__fmul_rn(scale, out));
  }
}

extern "C" __global__ void __launch_bounds__(256)
copy_pool(const float4 *__restrict__ src, float4 *__restrict__ dst, long long n4) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

/* mkb:plan
launch gdn_mtp grid(batch_size * num_v_heads * head_size / 8) block(256)
  args(q, k, v, initial_state, initial_state_indices, A_log, a, dt_bias, b, output, f32(scale))
launch copy_pool grid(ceil_div(pool_size * num_v_heads * head_size * head_size / 4, 256)) block(256)
  args(initial_state, final_state, i64(pool_size * num_v_heads * head_size * head_size / 4))
*/
