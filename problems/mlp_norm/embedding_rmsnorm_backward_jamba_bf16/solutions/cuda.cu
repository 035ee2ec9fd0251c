// Fused backward of embedding lookup + RMSNorm (Jamba sizes: hidden 4096, vocabulary 65536) from the
// saved fp32 hidden states and rstd; no fp32 copy of the whole table.
//
// 1. count_ids: counts[v] = how many tokens have id v (int atomics into a zeroed scratch).
// 2. prepare_rows: one block per vocabulary row: an id no token has gets its bf16 zero row; an id that
//    several tokens share gets a zeroed fp32 accumulator row in `sums` (only those rows are touched).
// 3. rmsnorm_backward (persistent, 2 blocks per SM, 512 threads x 8 columns): per token, the row's
//    gradient gh = rstd * (g - n * mean(g * n)) in fp32 (one block reduction), the weight gradient summed
//    per thread in registers; gh goes straight to its bf16 table row when its id is unique, else it is
//    added with fp32 atomics into the id's accumulator row.
// 4. finish_rows: the shared ids' accumulator rows, rounded once to bf16.
// 5. grad_weight_reduce: sums the per-block weight-gradient rows and rounds once.
// All arithmetic is fp32 and the only roundings are the final bf16 casts (reference.md); only summation
// orders differ from the baseline.
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

constexpr int kHidden = 4096;
constexpr int kVec = 8;                   // columns per thread
constexpr int kThreads = kHidden / kVec;  // 512
constexpr int kWarps = kThreads / 32;     // 16
static_assert(kThreads * kVec == kHidden, "each thread owns 8 columns of a row");

union pack8 {
  uint4 v;
  bf16 e[8];
};

__device__ __forceinline__ float bf(bf16 v) { return __bfloat162float(v); }

extern "C" __global__ void count_ids(const long long *__restrict__ ids, int *__restrict__ counts, int tokens) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) atomicAdd(&counts[ids[t]], 1);
}

extern "C" __global__ void __launch_bounds__(kThreads)
prepare_rows(const int *__restrict__ counts, bf16 *__restrict__ grad_embedding, float *__restrict__ sums) {
  const long long v = blockIdx.x;
  const int c = counts[v];
  const long long at = v * kHidden + threadIdx.x * kVec;
  if (c == 0) {
    *reinterpret_cast<uint4 *>(grad_embedding + at) = make_uint4(0, 0, 0, 0);
  } else if (c > 1) {
    float4 *dst = reinterpret_cast<float4 *>(sums + at);
    dst[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    dst[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
}

extern "C" __global__ void __launch_bounds__(kThreads, 2)
rmsnorm_backward(const bf16 *__restrict__ grad_output, const long long *__restrict__ ids,
                 const float *__restrict__ hidden, const float *__restrict__ rstd, const bf16 *__restrict__ weight,
                 const int *__restrict__ counts, bf16 *__restrict__ grad_embedding, float *__restrict__ sums,
                 float *__restrict__ gw_partial, int tokens) {
  __shared__ float red[2][kWarps];  // double-buffered by row parity: one __syncthreads per row
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int col = tid * kVec;

  pack8 wp;
  wp.v = __ldg(reinterpret_cast<const uint4 *>(weight + col));
  float w[kVec], gw[kVec];
#pragma unroll
  for (int k = 0; k < kVec; ++k) {
    w[k] = bf(wp.e[k]);
    gw[k] = 0.0f;
  }

  int parity = 0;
  for (int t = blockIdx.x; t < tokens; t += gridDim.x) {
    const long long at = (long long)t * kHidden + col;
    pack8 go;
    go.v = __ldg(reinterpret_cast<const uint4 *>(grad_output + at));
    const float4 h0 = __ldg(reinterpret_cast<const float4 *>(hidden + at));
    const float4 h1 = __ldg(reinterpret_cast<const float4 *>(hidden + at + 4));
    const float r = rstd[t];
    const float hs[kVec] = {h0.x, h0.y, h0.z, h0.w, h1.x, h1.y, h1.z, h1.w};

    float g[kVec], n[kVec], dot = 0.0f;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const float dy = bf(go.e[k]);
      n[k] = hs[k] * r;
      g[k] = dy * w[k];
      gw[k] += dy * n[k];
      dot += g[k] * n[k];
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, offset);
    if (lane == 0) red[parity][warp] = dot;
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int i = 0; i < kWarps; ++i) total += red[parity][i];
    parity ^= 1;

    const float mean = total / (float)kHidden;  // (g * n).mean(-1)
    float gh[kVec];
#pragma unroll
    for (int k = 0; k < kVec; ++k) gh[k] = r * (g[k] - n[k] * mean);

    const long long id = ids[t];
    const long long dst = id * kHidden + col;
    if (counts[id] == 1) {
      pack8 out;
#pragma unroll
      for (int k = 0; k < kVec; ++k) out.e[k] = __float2bfloat16_rn(gh[k]);
      *reinterpret_cast<uint4 *>(grad_embedding + dst) = out.v;
    } else {
#pragma unroll
      for (int k = 0; k < kVec; ++k) atomicAdd(&sums[dst + k], gh[k]);
    }
  }

  float4 *part = reinterpret_cast<float4 *>(gw_partial + (long long)blockIdx.x * kHidden + col);
  part[0] = make_float4(gw[0], gw[1], gw[2], gw[3]);
  part[1] = make_float4(gw[4], gw[5], gw[6], gw[7]);
}

extern "C" __global__ void __launch_bounds__(kThreads)
finish_rows(const int *__restrict__ counts, const float *__restrict__ sums, bf16 *__restrict__ grad_embedding) {
  const long long v = blockIdx.x;
  if (counts[v] < 2) return;
  const long long at = v * kHidden + threadIdx.x * kVec;
  const float4 a = *reinterpret_cast<const float4 *>(sums + at);
  const float4 b = *reinterpret_cast<const float4 *>(sums + at + 4);
  const float s[kVec] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  pack8 out;
#pragma unroll
  for (int k = 0; k < kVec; ++k) out.e[k] = __float2bfloat16_rn(s[k]);
  *reinterpret_cast<uint4 *>(grad_embedding + at) = out.v;
}

// grad_weight[c] = bf16(sum over parts of gw_partial[p, c]); block (32, 32): 32 columns x 32 part lanes.
extern "C" __global__ void __launch_bounds__(1024)
grad_weight_reduce(const float *__restrict__ gw_partial, bf16 *__restrict__ grad_weight, int parts) {
  __shared__ float part_sums[32][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.0f;
  for (int p = threadIdx.y; p < parts; p += 32) acc += gw_partial[(long long)p * kHidden + c];
  part_sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0) {
    float total = 0.0f;
    for (int y = 0; y < 32; ++y) total += part_sums[y][threadIdx.x];
    grad_weight[c] = __float2bfloat16_rn(total);
  }
}

/* mkb:plan
# 264 = 2 resident 512-thread blocks per SM x 132 SMs.
scratch counts int32[vocab_size] zeroed
scratch sums fp32[vocab_size * hidden_size]
scratch gw_partial fp32[264 * hidden_size]
launch count_ids grid(ceil_div(batch_size * seq_len, 256)) block(256) args(input_ids, counts, i32(batch_size * seq_len))
launch prepare_rows grid(vocab_size) block(512) args(counts, grad_embedding, sums)
launch rmsnorm_backward grid(264) block(512)
  args(grad_output, input_ids, hidden_states_fp32, rstd, norm_weight, counts, grad_embedding, sums, gw_partial,
       i32(batch_size * seq_len))
launch finish_rows grid(vocab_size) block(512) args(counts, sums, grad_embedding)
launch grad_weight_reduce grid(hidden_size / 32) block(32, 32) args(gw_partial, grad_weight, i32(264))
*/
