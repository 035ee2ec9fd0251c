// Gated delta-rule varlen prefill, fused in one launch: a 128-thread block per (32 value rows, value head,
// sequence), 256 blocks. Row v of the k-last state is column v of the [K, V] state the rule works on and
// rows are independent: thread (row v, part p) keeps 32 of row v's 128 key channels in registers over the
// sequence's tokens. Per token: old = g * S, old_v = k . old (32 terms in the thread, two shuffles over the
// row's 4 threads), new_v = beta * v + (1 - beta) * old_v, S = (old - k * old_v) + k * new_v,
// out = bf16(scale * (q . S)). The next token's q and k (head h / 2), v and gate are staged in shared memory
// (double buffer, loads issued before this token's arithmetic; thread 0 computes g and beta with eager's
// fp32 operations); one barrier per token. The state arithmetic keeps eager's roundings, so the fp32 new
// state carries eager's rounding pattern.
#include <cuda_bf16.h>

constexpr int kDim = 128, kVHeads = 16, kQKHeads = 8, kGroup = kVHeads / kQKHeads;
constexpr int kRows = 32, kParts = 4, kThreads = kRows * kParts;  // 128 == kDim
constexpr int kPer = kDim / kParts, kGroups = kPer / 4;           // float4 group j of part p: channels (j*4+p)*4..+3

struct gate_t {
  float g, beta;
};

__device__ __forceinline__ gate_t gate_of(const __nv_bfloat16 *a, const __nv_bfloat16 *b, long long index, float neg_a,
                                          float bias) {
  const float x = __fadd_rn(__bfloat162float(a[index]), bias);
  const float softplus = x > 20.0f ? x : log1pf(expf(x));
  return {expf(__fmul_rn(neg_a, softplus)), __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(-__bfloat162float(b[index]))))};
}

extern "C" __global__ void __launch_bounds__(kThreads)
gdn_prefill(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k, const __nv_bfloat16 *__restrict__ v,
            const float *__restrict__ state, const float *__restrict__ A_log, const __nv_bfloat16 *__restrict__ a,
            const float *__restrict__ dt_bias, const __nv_bfloat16 *__restrict__ b,
            const long long *__restrict__ cu_seqlens, __nv_bfloat16 *__restrict__ output,
            float *__restrict__ new_state, float scale) {
  __shared__ __align__(16) float s_q[2][kDim];
  __shared__ __align__(16) float s_k[2][kDim];
  __shared__ float s_v[2][kRows];
  __shared__ float s_g[2], s_beta[2];
  const int tid = threadIdx.x, r = tid / kParts, part = tid % kParts;
  const int h = blockIdx.y, hk = h / kGroup, seq = blockIdx.z, r0 = blockIdx.x * kRows, row = r0 + r;
  const long long first = cu_seqlens[seq], last = cu_seqlens[seq + 1];
  const float neg_a = -expf(A_log[h]), bias = dt_bias[h];
  const long long mat = ((long long)seq * kVHeads + h) * kDim * kDim;

  float S[kPer];
  {
    const float4 *src = reinterpret_cast<const float4 *>(state + mat + (long long)row * kDim);
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const float4 x = src[j * kParts + part];
      S[j * 4 + 0] = x.x;
      S[j * 4 + 1] = x.y;
      S[j * 4 + 2] = x.z;
      S[j * 4 + 3] = x.w;
    }
  }
  if (first < last) {
    s_q[0][tid] = __bfloat162float(q[(first * kQKHeads + hk) * kDim + tid]);
    s_k[0][tid] = __bfloat162float(k[(first * kQKHeads + hk) * kDim + tid]);
    if (tid < kRows) s_v[0][tid] = __bfloat162float(v[(first * kVHeads + h) * kDim + r0 + tid]);
    if (tid == 0) {
      const gate_t gb = gate_of(a, b, first * kVHeads + h, neg_a, bias);
      s_g[0] = gb.g;
      s_beta[0] = gb.beta;
    }
  }
  __syncthreads();

  for (long long tok = first; tok < last; ++tok) {
    const int buf = (int)((tok - first) & 1);
    const long long next = tok + 1;
    __nv_bfloat16 nq = __float2bfloat16_rn(0.0f), nk = nq, nv = nq;
    if (next < last) {
      nq = q[(next * kQKHeads + hk) * kDim + tid];
      nk = k[(next * kQKHeads + hk) * kDim + tid];
      if (tid < kRows) nv = v[(next * kVHeads + h) * kDim + r0 + tid];
    }

    const float4 *k4 = reinterpret_cast<const float4 *>(s_k[buf]);
    const float4 *q4 = reinterpret_cast<const float4 *>(s_q[buf]);
    const float g = s_g[buf], beta = s_beta[buf];
    float kk[kPer];
    float r_0 = 0.0f, r_1 = 0.0f, r_2 = 0.0f, r_3 = 0.0f;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const float4 x = k4[j * kParts + part];
      kk[j * 4 + 0] = x.x;
      kk[j * 4 + 1] = x.y;
      kk[j * 4 + 2] = x.z;
      kk[j * 4 + 3] = x.w;
      S[j * 4 + 0] = __fmul_rn(g, S[j * 4 + 0]);
      S[j * 4 + 1] = __fmul_rn(g, S[j * 4 + 1]);
      S[j * 4 + 2] = __fmul_rn(g, S[j * 4 + 2]);
      S[j * 4 + 3] = __fmul_rn(g, S[j * 4 + 3]);
      r_0 = fmaf(x.x, S[j * 4 + 0], r_0);
      r_1 = fmaf(x.y, S[j * 4 + 1], r_1);
      r_2 = fmaf(x.z, S[j * 4 + 2], r_2);
      r_3 = fmaf(x.w, S[j * 4 + 3], r_3);
    }
    float old_v = (r_0 + r_1) + (r_2 + r_3);
    old_v += __shfl_xor_sync(0xffffffffu, old_v, 1);
    old_v += __shfl_xor_sync(0xffffffffu, old_v, 2);
    const float new_v = __fadd_rn(__fmul_rn(beta, s_v[buf][r]), __fmul_rn(__fsub_rn(1.0f, beta), old_v));

    float a_0 = 0.0f, a_1 = 0.0f, a_2 = 0.0f, a_3 = 0.0f;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const float4 y = q4[j * kParts + part];
#pragma unroll
      for (int e = 0; e < 4; ++e)
        S[j * 4 + e] = __fadd_rn(__fsub_rn(S[j * 4 + e], __fmul_rn(kk[j * 4 + e], old_v)), __fmul_rn(kk[j * 4 + e], new_v));
      a_0 = fmaf(y.x, S[j * 4 + 0], a_0);
      a_1 = fmaf(y.y, S[j * 4 + 1], a_1);
      a_2 = fmaf(y.z, S[j * 4 + 2], a_2);
      a_3 = fmaf(y.w, S[j * 4 + 3], a_3);
    }
    float out = (a_0 + a_1) + (a_2 + a_3);
    out += __shfl_xor_sync(0xffffffffu, out, 1);
    out += __shfl_xor_sync(0xffffffffu, out, 2);
    if (part == 0) output[(tok * kVHeads + h) * kDim + row] = __float2bfloat16_rn(__fmul_rn(scale, out));

    if (next < last) {  // the other buffer was last read before the previous barrier
      s_q[buf ^ 1][tid] = __bfloat162float(nq);
      s_k[buf ^ 1][tid] = __bfloat162float(nk);
      if (tid < kRows) s_v[buf ^ 1][tid] = __bfloat162float(nv);
      if (tid == 0) {
        const gate_t gb = gate_of(a, b, next * kVHeads + h, neg_a, bias);
        s_g[buf ^ 1] = gb.g;
        s_beta[buf ^ 1] = gb.beta;
      }
    }
    __syncthreads();
  }

  float4 *dst = reinterpret_cast<float4 *>(new_state + mat + (long long)row * kDim);
#pragma unroll
  for (int j = 0; j < kGroups; ++j) dst[j * kParts + part] = make_float4(S[j * 4 + 0], S[j * 4 + 1], S[j * 4 + 2], S[j * 4 + 3]);
}

/* mkb:plan
launch gdn_prefill grid(head_size / 32, num_v_heads, num_seqs) block(128)
  args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, output, new_state, f32(scale))
*/
