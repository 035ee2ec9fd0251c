// Gated linear attention, fused in one launch: a 256-thread block per (32 value channels, b, h), 512
// blocks. Every state column is an independent recurrence: thread (column c, part p) keeps 32 of column
// c's 256 key channels in registers for the 1024 tokens. Per token: h = h * exp(gk) + k * v_c channel by
// channel, then o_c = sum_k (q_k * scale) * h_k, 32 terms in the thread and three shuffles over the
// column's 8 threads. The next token's q * scale, k and exp(gk) (one channel per thread) and v are
// staged in shared memory (double buffer, loads issued before this token's arithmetic); one barrier per
// token. Output is bf16, so the arithmetic uses fused multiply-adds.
#include <cuda_bf16.h>

constexpr int kKey = 256, kValue = 512;
constexpr int kCols = 32;                 // value channels per block
constexpr int kParts = 8;                 // threads per column
constexpr int kThreads = kCols * kParts;  // 256 == kKey: one staged channel per thread
constexpr int kPer = kKey / kParts;       // 32 key channels per thread
constexpr int kGroups = kPer / 4;         // float4 group j of part p: channels (j * 8 + p) * 4 .. + 3

extern "C" __global__ void __launch_bounds__(kThreads)
gla_recurrent(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
              const __nv_bfloat16 *__restrict__ v, const __nv_bfloat16 *__restrict__ gk,
              __nv_bfloat16 *__restrict__ o, int seq_len, int num_heads, float scale) {
  __shared__ __align__(16) float s_q[2][kKey];
  __shared__ __align__(16) float s_k[2][kKey];
  __shared__ __align__(16) float s_e[2][kKey];
  __shared__ float s_v[2][kCols];
  const int tid = threadIdx.x, col = tid / kParts, part = tid % kParts;
  const int b = blockIdx.y / num_heads, h = blockIdx.y % num_heads;
  const int c0 = blockIdx.x * kCols, column = c0 + col;
  const long long row0 = (long long)b * seq_len * num_heads + h;  // token t: row0 + t * num_heads

  float S[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) S[j] = 0.0f;

  s_q[0][tid] = __bfloat162float(q[row0 * kKey + tid]) * scale;
  s_k[0][tid] = __bfloat162float(k[row0 * kKey + tid]);
  s_e[0][tid] = expf(__bfloat162float(gk[row0 * kKey + tid]));
  if (tid < kCols) s_v[0][tid] = __bfloat162float(v[row0 * kValue + c0 + tid]);
  __syncthreads();

  for (int t = 0; t < seq_len; ++t) {
    const int buf = t & 1;
    const long long row = row0 + (long long)t * num_heads, next = row + num_heads;
    __nv_bfloat16 nq = __float2bfloat16_rn(0.0f), nk = nq, ng = nq, nv = nq;
    if (t + 1 < seq_len) {
      nq = q[next * kKey + tid];
      nk = k[next * kKey + tid];
      ng = gk[next * kKey + tid];
      if (tid < kCols) nv = v[next * kValue + c0 + tid];
    }

    const float4 *q4 = reinterpret_cast<const float4 *>(s_q[buf]);
    const float4 *k4 = reinterpret_cast<const float4 *>(s_k[buf]);
    const float4 *e4 = reinterpret_cast<const float4 *>(s_e[buf]);
    const float vc = s_v[buf][col];
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const int g4 = j * kParts + part;
      const float4 e = e4[g4], x = k4[g4], y = q4[g4];
      S[j * 4 + 0] = fmaf(x.x, vc, S[j * 4 + 0] * e.x);
      S[j * 4 + 1] = fmaf(x.y, vc, S[j * 4 + 1] * e.y);
      S[j * 4 + 2] = fmaf(x.z, vc, S[j * 4 + 2] * e.z);
      S[j * 4 + 3] = fmaf(x.w, vc, S[j * 4 + 3] * e.w);
      a0 = fmaf(y.x, S[j * 4 + 0], a0);
      a1 = fmaf(y.y, S[j * 4 + 1], a1);
      a2 = fmaf(y.z, S[j * 4 + 2], a2);
      a3 = fmaf(y.w, S[j * 4 + 3], a3);
    }
    float out = (a0 + a1) + (a2 + a3);
    out += __shfl_xor_sync(0xffffffffu, out, 1);
    out += __shfl_xor_sync(0xffffffffu, out, 2);
    out += __shfl_xor_sync(0xffffffffu, out, 4);
    if (part == 0) o[row * kValue + column] = __float2bfloat16_rn(out);

    if (t + 1 < seq_len) {  // the other buffer was last read before the previous barrier
      s_q[buf ^ 1][tid] = __bfloat162float(nq) * scale;
      s_k[buf ^ 1][tid] = __bfloat162float(nk);
      s_e[buf ^ 1][tid] = expf(__bfloat162float(ng));
      if (tid < kCols) s_v[buf ^ 1][tid] = __bfloat162float(nv);
    }
    __syncthreads();
  }
}

/* mkb:plan
launch gla_recurrent grid(value_dim / 32, batch_size * num_heads) block(256)
  args(q, k, v, gk, o, i32(seq_len), i32(num_heads), f32(scale))
*/
