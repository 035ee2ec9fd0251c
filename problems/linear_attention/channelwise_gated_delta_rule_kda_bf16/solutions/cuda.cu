// KDA (channel-wise gated delta rule), fused: two launches.
//  1. normalize_qk: one warp per (b, t, h) row normalizes q and k (fp32 sum of squares, sqrt, clamp,
//     an IEEE division per element, as F.normalize) and scales q; fp32 rows to scratch.
//  2. kda_recurrent: one 128-thread block per (32-column slice of the state, b, h). Each state column is
//     an independent recurrence: thread (column c, part p) keeps 32 of column c's 128 key channels in
//     registers for all 1024 tokens; a sum over the key channels is 32 terms in the thread and two
//     shuffles over the column's 4 threads. Per token the block stages the next token's kn, qs,
//     exp(g), v and beta in shared memory (double buffer, loads issued before this token's arithmetic),
//     one barrier per token. Output is bf16, so the arithmetic uses fused multiply-adds.
#include <cuda_bf16.h>

constexpr int kDim = 128;                 // head_dim (key and value channels)
constexpr int kCols = 32;                 // state columns per block
constexpr int kParts = 4;                 // threads per column
constexpr int kThreads = kCols * kParts;  // 128 == kDim: one staged element per thread
constexpr int kPer = kDim / kParts;       // 32 key channels per thread
constexpr int kGroups = kPer / 4;         // float4 group j of part p: channels (j * 4 + p) * 4 .. + 3

extern "C" __global__ void __launch_bounds__(256)
normalize_qk(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k, float *__restrict__ qs,
             float *__restrict__ kn, long long rows, float scale, float eps) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;  // whole warps return together
  const uint2 qraw = reinterpret_cast<const uint2 *>(q + row * kDim)[lane];
  const uint2 kraw = reinterpret_cast<const uint2 *>(k + row * kDim)[lane];
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
  reinterpret_cast<float4 *>(qs + row * kDim)[lane] = qo;
  reinterpret_cast<float4 *>(kn + row * kDim)[lane] = ko;
}

extern "C" __global__ void __launch_bounds__(kThreads)
kda_recurrent(const float *__restrict__ kn, const float *__restrict__ qs, const __nv_bfloat16 *__restrict__ v,
              const __nv_bfloat16 *__restrict__ g, const __nv_bfloat16 *__restrict__ beta,
              __nv_bfloat16 *__restrict__ o, int seq_len, int num_heads) {
  __shared__ __align__(16) float s_k[2][kDim];
  __shared__ __align__(16) float s_q[2][kDim];
  __shared__ __align__(16) float s_e[2][kDim];
  __shared__ float s_v[2][kCols];
  __shared__ float s_beta[2];
  const int tid = threadIdx.x, col = tid / kParts, part = tid % kParts;
  const int b = blockIdx.y / num_heads, h = blockIdx.y % num_heads;
  const int c0 = blockIdx.x * kCols;
  const int column = c0 + col;
  const long long row0 = (long long)b * seq_len * num_heads + h;  // row of token t: row0 + t * num_heads

  float S[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) S[j] = 0.0f;

  s_k[0][tid] = kn[row0 * kDim + tid];
  s_q[0][tid] = qs[row0 * kDim + tid];
  s_e[0][tid] = expf(__bfloat162float(g[row0 * kDim + tid]));
  if (tid < kCols) s_v[0][tid] = __bfloat162float(v[row0 * kDim + c0 + tid]);
  if (tid == 0) s_beta[0] = __bfloat162float(beta[row0]);
  __syncthreads();

  for (int t = 0; t < seq_len; ++t) {
    const int buf = t & 1;
    const long long row = row0 + (long long)t * num_heads;
    const long long next = row + num_heads;
    float next_k = 0.0f, next_q = 0.0f, next_g = 0.0f, next_v = 0.0f, next_beta = 0.0f;
    if (t + 1 < seq_len) {
      next_k = kn[next * kDim + tid];
      next_q = qs[next * kDim + tid];
      next_g = __bfloat162float(g[next * kDim + tid]);
      if (tid < kCols) next_v = __bfloat162float(v[next * kDim + c0 + tid]);
      if (tid == 0) next_beta = __bfloat162float(beta[next]);
    }

    const float4 *k4 = reinterpret_cast<const float4 *>(s_k[buf]);
    const float4 *q4 = reinterpret_cast<const float4 *>(s_q[buf]);
    const float4 *e4 = reinterpret_cast<const float4 *>(s_e[buf]);
    float kk[kPer];
    float r0 = 0.0f, r1 = 0.0f, r2 = 0.0f, r3 = 0.0f;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const float4 x = k4[j * kParts + part], e = e4[j * kParts + part];
      kk[j * 4 + 0] = x.x;
      kk[j * 4 + 1] = x.y;
      kk[j * 4 + 2] = x.z;
      kk[j * 4 + 3] = x.w;
      S[j * 4 + 0] *= e.x;
      S[j * 4 + 1] *= e.y;
      S[j * 4 + 2] *= e.z;
      S[j * 4 + 3] *= e.w;
      r0 = fmaf(x.x, S[j * 4 + 0], r0);
      r1 = fmaf(x.y, S[j * 4 + 1], r1);
      r2 = fmaf(x.z, S[j * 4 + 2], r2);
      r3 = fmaf(x.w, S[j * 4 + 3], r3);
    }
    float read = (r0 + r1) + (r2 + r3);
    read += __shfl_xor_sync(0xffffffffu, read, 1);
    read += __shfl_xor_sync(0xffffffffu, read, 2);
    const float w = s_beta[buf] * (s_v[buf][col] - read);

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const float4 x = q4[j * kParts + part];
      S[j * 4 + 0] = fmaf(kk[j * 4 + 0], w, S[j * 4 + 0]);
      S[j * 4 + 1] = fmaf(kk[j * 4 + 1], w, S[j * 4 + 1]);
      S[j * 4 + 2] = fmaf(kk[j * 4 + 2], w, S[j * 4 + 2]);
      S[j * 4 + 3] = fmaf(kk[j * 4 + 3], w, S[j * 4 + 3]);
      a0 = fmaf(x.x, S[j * 4 + 0], a0);
      a1 = fmaf(x.y, S[j * 4 + 1], a1);
      a2 = fmaf(x.z, S[j * 4 + 2], a2);
      a3 = fmaf(x.w, S[j * 4 + 3], a3);
    }
    float out = (a0 + a1) + (a2 + a3);
    out += __shfl_xor_sync(0xffffffffu, out, 1);
    out += __shfl_xor_sync(0xffffffffu, out, 2);
    if (part == 0) o[row * kDim + column] = __float2bfloat16_rn(out);

    if (t + 1 < seq_len) {  // the other buffer was last read before the previous barrier
      s_k[buf ^ 1][tid] = next_k;
      s_q[buf ^ 1][tid] = next_q;
      s_e[buf ^ 1][tid] = expf(next_g);
      if (tid < kCols) s_v[buf ^ 1][tid] = next_v;
      if (tid == 0) s_beta[buf ^ 1] = next_beta;
    }
    __syncthreads();
  }
}

/* mkb:plan
scratch qs fp32[batch_size * seq_len * num_k_heads * head_dim]
scratch kn fp32[batch_size * seq_len * num_k_heads * head_dim]
launch normalize_qk grid(ceil_div(batch_size * seq_len * num_k_heads * 32, 256)) block(256)
  args(q, k, qs, kn, i64(batch_size * seq_len * num_k_heads), f32(scale), f32(norm_eps))
launch kda_recurrent grid(head_dim / 32, batch_size * num_v_heads) block(128)
  args(kn, qs, v, g, beta, o, i32(seq_len), i32(num_v_heads))
*/
