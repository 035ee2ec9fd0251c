// DeltaNet delta rule, fused: two launches.
//  1. normalize_qk: one warp per (b, h, t) row normalizes q and k (fp32 sum of squares, sqrt, clamp,
//     one IEEE division per element as F.normalize) and scales q; writes fp32 rows.
//  2. delta_rule_recurrent: one 128-thread block per (32-column slice of the state, b, h). Every state
//     column is an independent recurrence, so thread (column c, part p) holds 32 of column c's 128
//     key-channel entries in registers for the whole sequence; the sums over the key channels are 32
//     products in the thread plus two shuffles across the column's 4 threads. Per token the block stages
//     the next token's kn, qs, v and beta in shared memory (double buffer, loads issued before the
//     current token's arithmetic) with one barrier per token. The state update keeps the reference's
//     roundings (the product S * kn rounded before the sum, k * w rounded before the add), so the fp32
//     final state carries eager's rounding pattern.
#include <cuda_bf16.h>

constexpr int kKey = 128, kValue = 128;
constexpr int kCols = 32;                  // state columns per block
constexpr int kParts = 4;                  // threads per column
constexpr int kThreads = kCols * kParts;   // 128 == kKey: one staged element per thread
constexpr int kPer = kKey / kParts;        // 32 key channels per thread
constexpr int kGroups = kPer / 4;          // as 8 float4 groups: group j holds channels (j * 4 + part) * 4 .. + 3

extern "C" __global__ void __launch_bounds__(256)
normalize_qk(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k, float *__restrict__ qs,
             float *__restrict__ kn, long long rows, float scale, float eps) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;  // whole warps return together
  const uint2 qraw = reinterpret_cast<const uint2 *>(q + row * kKey)[lane];
  const uint2 kraw = reinterpret_cast<const uint2 *>(k + row * kKey)[lane];
  const __nv_bfloat162 *qp = reinterpret_cast<const __nv_bfloat162 *>(&qraw);
  const __nv_bfloat162 *kp = reinterpret_cast<const __nv_bfloat162 *>(&kraw);
  const float2 q01 = __bfloat1622float2(qp[0]), q23 = __bfloat1622float2(qp[1]);
  const float2 k01 = __bfloat1622float2(kp[0]), k23 = __bfloat1622float2(kp[1]);
  float sq = q01.x * q01.x + q01.y * q01.y + q23.x * q23.x + q23.y * q23.y;
  float sk = k01.x * k01.x + k01.y * k01.y + k23.x * k23.x + k23.y * k23.y;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    sq += __shfl_xor_sync(0xffffffffu, sq, offset);
    sk += __shfl_xor_sync(0xffffffffu, sk, offset);
  }
  const float qd = fmaxf(sqrtf(sq), eps), kd = fmaxf(sqrtf(sk), eps);
  float4 qo, ko;
  qo.x = __fmul_rn(__fdiv_rn(q01.x, qd), scale);
  qo.y = __fmul_rn(__fdiv_rn(q01.y, qd), scale);
  qo.z = __fmul_rn(__fdiv_rn(q23.x, qd), scale);
  qo.w = __fmul_rn(__fdiv_rn(q23.y, qd), scale);
  ko.x = __fdiv_rn(k01.x, kd);
  ko.y = __fdiv_rn(k01.y, kd);
  ko.z = __fdiv_rn(k23.x, kd);
  ko.w = __fdiv_rn(k23.y, kd);
  reinterpret_cast<float4 *>(qs + row * kKey)[lane] = qo;
  reinterpret_cast<float4 *>(kn + row * kKey)[lane] = ko;
}

extern "C" __global__ void __launch_bounds__(kThreads)
delta_rule_recurrent(const float *__restrict__ kn, const float *__restrict__ qs, const __nv_bfloat16 *__restrict__ v,
                     const __nv_bfloat16 *__restrict__ beta, const float *__restrict__ initial_state,
                     __nv_bfloat16 *__restrict__ o, float *__restrict__ final_state, int seq_len) {
  __shared__ __align__(16) float s_k[2][kKey];
  __shared__ __align__(16) float s_q[2][kKey];
  __shared__ float s_v[2][kCols];
  __shared__ float s_beta[2];
  const int tid = threadIdx.x, col = tid / kParts, part = tid % kParts;
  const long long pair = blockIdx.y;
  const int c0 = blockIdx.x * kCols;
  const int column = c0 + col;

  float S[kPer];
#pragma unroll
  for (int j = 0; j < kGroups; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      S[j * 4 + e] = initial_state[(pair * kKey + (j * kParts + part) * 4 + e) * kValue + column];

  // Stage token 0.
  {
    const long long row = pair * seq_len;
    s_k[0][tid] = kn[row * kKey + tid];
    s_q[0][tid] = qs[row * kKey + tid];
    if (tid < kCols) s_v[0][tid] = __bfloat162float(v[row * kValue + c0 + tid]);
    if (tid == 0) s_beta[0] = __bfloat162float(beta[row]);
  }
  __syncthreads();

  for (int t = 0; t < seq_len; ++t) {
    const int buf = t & 1;
    const long long row = pair * seq_len + t;
    // Next token's operands, in flight during this token's arithmetic.
    float next_k = 0.0f, next_q = 0.0f, next_v = 0.0f, next_beta = 0.0f;
    if (t + 1 < seq_len) {
      next_k = kn[(row + 1) * kKey + tid];
      next_q = qs[(row + 1) * kKey + tid];
      if (tid < kCols) next_v = __bfloat162float(v[(row + 1) * kValue + c0 + tid]);
      if (tid == 0) next_beta = __bfloat162float(beta[row + 1]);
    }

    const float4 *k4 = reinterpret_cast<const float4 *>(s_k[buf]);
    const float4 *q4 = reinterpret_cast<const float4 *>(s_q[buf]);
    float kk[kPer];
    float r0 = 0.0f, r1 = 0.0f, r2 = 0.0f, r3 = 0.0f;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const float4 x = k4[j * kParts + part];
      kk[j * 4 + 0] = x.x;
      kk[j * 4 + 1] = x.y;
      kk[j * 4 + 2] = x.z;
      kk[j * 4 + 3] = x.w;
      r0 = __fadd_rn(r0, __fmul_rn(S[j * 4 + 0], x.x));
      r1 = __fadd_rn(r1, __fmul_rn(S[j * 4 + 1], x.y));
      r2 = __fadd_rn(r2, __fmul_rn(S[j * 4 + 2], x.z));
      r3 = __fadd_rn(r3, __fmul_rn(S[j * 4 + 3], x.w));
    }
    float read = (r0 + r1) + (r2 + r3);
    read += __shfl_xor_sync(0xffffffffu, read, 1);
    read += __shfl_xor_sync(0xffffffffu, read, 2);
    const float w = __fmul_rn(__fsub_rn(s_v[buf][col], read), s_beta[buf]);

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const float4 x = q4[j * kParts + part];
      S[j * 4 + 0] = __fadd_rn(S[j * 4 + 0], __fmul_rn(kk[j * 4 + 0], w));
      S[j * 4 + 1] = __fadd_rn(S[j * 4 + 1], __fmul_rn(kk[j * 4 + 1], w));
      S[j * 4 + 2] = __fadd_rn(S[j * 4 + 2], __fmul_rn(kk[j * 4 + 2], w));
      S[j * 4 + 3] = __fadd_rn(S[j * 4 + 3], __fmul_rn(kk[j * 4 + 3], w));
      a0 = fmaf(x.x, S[j * 4 + 0], a0);
      a1 = fmaf(x.y, S[j * 4 + 1], a1);
      a2 = fmaf(x.z, S[j * 4 + 2], a2);
      a3 = fmaf(x.w, S[j * 4 + 3], a3);
    }
    float out = (a0 + a1) + (a2 + a3);
    out += __shfl_xor_sync(0xffffffffu, out, 1);
    out += __shfl_xor_sync(0xffffffffu, out, 2);
    if (part == 0) o[row * kValue + column] = __float2bfloat16_rn(out);

    if (t + 1 < seq_len) {  // the other buffer was last read before the previous barrier
      s_k[buf ^ 1][tid] = next_k;
      s_q[buf ^ 1][tid] = next_q;
      if (tid < kCols) s_v[buf ^ 1][tid] = next_v;
      if (tid == 0) s_beta[buf ^ 1] = next_beta;
    }
    __syncthreads();
  }

#pragma unroll
  for (int j = 0; j < kGroups; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      final_state[(pair * kKey + (j * kParts + part) * 4 + e) * kValue + column] = S[j * 4 + e];
}

/* mkb:plan
scratch qs fp32[batch_size * num_heads * seq_len * key_dim]
scratch kn fp32[batch_size * num_heads * seq_len * key_dim]
launch normalize_qk grid(ceil_div(batch_size * num_heads * seq_len * 32, 256)) block(256)
  args(q, k, qs, kn, i64(batch_size * num_heads * seq_len), f32(scale), f32(norm_eps))
launch delta_rule_recurrent grid(value_dim / 32, batch_size * num_heads) block(128)
  args(kn, qs, v, beta, initial_state, o, final_state, i32(seq_len))
*/
