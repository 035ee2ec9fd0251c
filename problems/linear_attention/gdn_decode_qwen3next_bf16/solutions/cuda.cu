// Gated delta-rule decode, fused in one launch and bound by the state's bytes (64 MB read, 64 MB
// written). One warp per (sequence, value head, value row v): the k-last state's row v (128 fp32, four
// per lane as one 16-byte load) is column v of the [K, V] state the rule works on, and every row is
// independent. Per row: old = g * S, old_v = k . old (shuffle reduction), new_v = beta * v + (1 - beta) *
// old_v, S' = (old - k * old_v) + k * new_v, out = scale * (q . S'). The gate and beta are recomputed per
// warp with eager's operations; the state arithmetic keeps eager's roundings (explicit round-to-nearest
// intrinsics, no contraction), so the fp32 new state differs from eager's only in the dot products' order.
#include <cuda_bf16.h>

constexpr int kDim = 128, kVHeads = 16, kQKHeads = 8, kGroup = kVHeads / kQKHeads;
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
gdn_decode(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k, const __nv_bfloat16 *__restrict__ v,
           const float *__restrict__ state, const float *__restrict__ A_log, const __nv_bfloat16 *__restrict__ a,
           const float *__restrict__ dt_bias, const __nv_bfloat16 *__restrict__ b, __nv_bfloat16 *__restrict__ output,
           float *__restrict__ new_state, float scale) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int pair = blockIdx.x / (kDim / kRowsPerBlock);
  const int row = (blockIdx.x % (kDim / kRowsPerBlock)) * kRowsPerBlock + warp;
  const int bi = pair / kVHeads, h = pair % kVHeads, hk = h / kGroup;
  const long long state_row = ((long long)pair * kDim + row) * kDim;

  const float4 s = reinterpret_cast<const float4 *>(state + state_row)[lane];
  const float4 kv = bf16x4(k + ((long long)bi * kQKHeads + hk) * kDim + lane * 4);
  const float4 qv = bf16x4(q + ((long long)bi * kQKHeads + hk) * kDim + lane * 4);
  const float vr = __bfloat162float(v[(long long)pair * kDim + row]);

  // g = exp(-exp(A_log) * softplus(a + dt_bias)), beta = sigmoid(b): eager's fp32 operations.
  const float x = __fadd_rn(__bfloat162float(a[pair]), dt_bias[h]);
  const float softplus = x > 20.0f ? x : log1pf(expf(x));
  const float g = expf(__fmul_rn(-expf(A_log[h]), softplus));
  const float beta = __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(-__bfloat162float(b[pair]))));

  const float o0 = __fmul_rn(g, s.x), o1 = __fmul_rn(g, s.y), o2 = __fmul_rn(g, s.z), o3 = __fmul_rn(g, s.w);
  const float old_v = warp_sum(fmaf(kv.w, o3, fmaf(kv.z, o2, fmaf(kv.y, o1, kv.x * o0))));
  const float new_v = __fadd_rn(__fmul_rn(beta, vr), __fmul_rn(__fsub_rn(1.0f, beta), old_v));
  float4 ns;
  ns.x = __fadd_rn(__fsub_rn(o0, __fmul_rn(kv.x, old_v)), __fmul_rn(kv.x, new_v));
  ns.y = __fadd_rn(__fsub_rn(o1, __fmul_rn(kv.y, old_v)), __fmul_rn(kv.y, new_v));
  ns.z = __fadd_rn(__fsub_rn(o2, __fmul_rn(kv.z, old_v)), __fmul_rn(kv.z, new_v));
  ns.w = __fadd_rn(__fsub_rn(o3, __fmul_rn(kv.w, old_v)), __fmul_rn(kv.w, new_v));
  reinterpret_cast<float4 *>(new_state + state_row)[lane] = ns;
  const float out = warp_sum(fmaf(qv.w, ns.w, fmaf(qv.z, ns.z, fmaf(qv.y, ns.y, qv.x * ns.x))));
  if (lane == 0) output[(long long)pair * kDim + row] = __float2bfloat16_rn(__fmul_rn(scale, out));
}

/* mkb:plan
launch gdn_decode grid(batch_size * num_v_heads * head_size / 8) block(256)
  args(q, k, v, state, A_log, a, dt_bias, b, output, new_state, f32(scale))
*/
