// Split-K flash decoding for paged GQA decode (32 query heads, 8 KV heads, head dim 128, page size 1).
//
// decode_partial: one 128-thread block per (chunk of up to kChunk tokens of one request, KV head). The
//   four query heads that share the KV head are served by one read of each K and V row. Each half-warp
//   streams its own tokens (16 lanes x 8 dims = one 256-byte row, one 16-byte load per lane), four
//   tokens per step with all eight loads in flight, and keeps an online softmax per query head in base 2:
//   running max m, running sum l, running o[8 dims] in fp32. The block's eight half-warp states are
//   merged through shared memory and written as one fp32 partial (m, l, o[128]) per (chunk, query head).
// decode_combine: one block per (query head, request) merges the request's partials:
//   M = max m_c, L = sum l_c 2^(m_c - M), o = sum o_c 2^(m_c - M) / L -> bf16 once; lse = M + log2 L.
// Chunks are numbered request after request: request b owns chunks [cs[b], cs[b+1]) with
// cs[b+1] - cs[b] = ceil(T_b / kChunk); every block rebuilds cs from kv_indptr with one warp scan.
// Logits are (q.k) in fp32 times sm_scale * log2(e), so that exp2 gives the softmax and the sum's log2
// is the base-2 log-sum-exp directly.
#include <cuda_bf16.h>

constexpr int kBatch = 64, kHeads = 32, kKvHeads = 8, kGroup = kHeads / kKvHeads, kDim = 128;
constexpr int kChunk = 256;                      // tokens per split
constexpr int kThreads = 128;                    // 4 warps = 8 half-warps
constexpr int kHalfWarps = kThreads / 16;
constexpr int kUnroll = 4;                       // tokens per half-warp per step
constexpr int kStep = kHalfWarps * kUnroll;      // tokens per block step
constexpr int kCombineThreads = 512;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ float neg_inf() { return -__int_as_float(0x7f800000); }

// cs[b] = sum over b' < b of ceil(T_b' / kChunk), cs[kBatch] = total chunks. Whole block must call it.
__device__ void chunk_starts(const int *__restrict__ kv_indptr, int *cs) {
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    int carry = 0;
    if (lane == 0) cs[0] = 0;
    for (int base = 0; base < kBatch; base += 32) {
      const int b = base + lane;
      int n = 0;
      if (b < kBatch) n = (__ldg(kv_indptr + b + 1) - __ldg(kv_indptr + b) + kChunk - 1) / kChunk;
#pragma unroll
      for (int offset = 1; offset < 32; offset <<= 1) {
        const int up = __shfl_up_sync(kFull, n, offset);
        if (lane >= offset) n += up;
      }
      if (b < kBatch) cs[b + 1] = carry + n;
      carry += __shfl_sync(kFull, n, 31);
    }
  }
  __syncthreads();
}

__device__ __forceinline__ void unpack8(uint4 raw, float *out) {
  const __nv_bfloat162 *pairs = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float2 f = __bfloat1622float2(pairs[e]);
    out[2 * e] = f.x;
    out[2 * e + 1] = f.y;
  }
}

extern "C" __global__ void __launch_bounds__(kThreads)
decode_partial(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k_cache,
               const __nv_bfloat16 *__restrict__ v_cache, const int *__restrict__ kv_indptr,
               const int *__restrict__ kv_indices, float *__restrict__ part_o, float *__restrict__ part_ml,
               float scale_log2) {
  __shared__ int cs[kBatch + 1];
  __shared__ float merge_m[kHalfWarps][kGroup], merge_l[kHalfWarps][kGroup];
  __shared__ float merge_o[kHalfWarps][kGroup][kDim];
  chunk_starts(kv_indptr, cs);
  const int chunk = blockIdx.x, kv_head = blockIdx.y;
  if (chunk >= cs[kBatch]) return;  // uniform over the block
  int lo = 0, hi = kBatch;          // cs[lo] <= chunk < cs[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (cs[mid] <= chunk) lo = mid;
    else hi = mid;
  }
  const int b = lo;
  const int seq_start = __ldg(kv_indptr + b), length = __ldg(kv_indptr + b + 1) - seq_start;
  const int t0 = (chunk - cs[b]) * kChunk, t1 = min(t0 + kChunk, length);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int sub = lane & 15, half = lane >> 4, half_warp = threadIdx.x >> 4;
  const int dim0 = sub * 8;

  float qf[kGroup][8];
#pragma unroll
  for (int g = 0; g < kGroup; ++g)
    unpack8(__ldg(reinterpret_cast<const uint4 *>(q + ((long long)b * kHeads + kv_head * kGroup + g) * kDim + dim0)), qf[g]);

  float m[kGroup], l[kGroup], o[kGroup][8];
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    m[g] = neg_inf();
    l[g] = 0.0f;
#pragma unroll
    for (int e = 0; e < 8; ++e) o[g][e] = 0.0f;
  }

  // Warp w covers tokens t0 + 8w + 32i + (4 * half + u): the loop bound is uniform over the warp.
  for (int warp_base = t0 + warp * 2 * kUnroll; warp_base < t1; warp_base += kStep) {
    const int base = warp_base + half * kUnroll;
    uint4 k_raw[kUnroll], v_raw[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int j = base + u;
      if (j < t1) {
        const long long row = ((long long)__ldg(kv_indices + seq_start + j) * kKvHeads + kv_head) * kDim + dim0;
        k_raw[u] = __ldg(reinterpret_cast<const uint4 *>(k_cache + row));
        v_raw[u] = __ldg(reinterpret_cast<const uint4 *>(v_cache + row));
      } else {
        k_raw[u] = make_uint4(0, 0, 0, 0);
        v_raw[u] = make_uint4(0, 0, 0, 0);
      }
    }
    float s[kUnroll][kGroup];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      float kf[8];
      unpack8(k_raw[u], kf);
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        float dot = 0.0f;
#pragma unroll
        for (int e = 0; e < 8; ++e) dot = fmaf(qf[g][e], kf[e], dot);
#pragma unroll
        for (int offset = 8; offset > 0; offset >>= 1) dot += __shfl_xor_sync(kFull, dot, offset);
        s[u][g] = base + u < t1 ? dot * scale_log2 : neg_inf();
      }
    }
#pragma unroll
    for (int g = 0; g < kGroup; ++g) {
      float m_new = m[g];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) m_new = fmaxf(m_new, s[u][g]);
      if (m_new == neg_inf()) continue;  // nothing valid yet (uniform over the half-warp)
      const float alpha = exp2f(m[g] - m_new);
      l[g] *= alpha;
#pragma unroll
      for (int e = 0; e < 8; ++e) o[g][e] *= alpha;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const float p = exp2f(s[u][g] - m_new);
        l[g] += p;
        float vf[8];
        unpack8(v_raw[u], vf);
#pragma unroll
        for (int e = 0; e < 8; ++e) o[g][e] = fmaf(p, vf[e], o[g][e]);
      }
      m[g] = m_new;
    }
  }

  // Merge the eight half-warp states of the block.
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    if (sub == 0) {
      merge_m[half_warp][g] = m[g];
      merge_l[half_warp][g] = l[g];
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) merge_o[half_warp][g][dim0 + e] = o[g][e];
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < kGroup * kDim; idx += kThreads) {
    const int g = idx / kDim, d = idx % kDim;
    float big = neg_inf();
#pragma unroll
    for (int w = 0; w < kHalfWarps; ++w) big = fmaxf(big, merge_m[w][g]);
    float sum = 0.0f, acc = 0.0f;
#pragma unroll
    for (int w = 0; w < kHalfWarps; ++w) {
      const float mw = merge_m[w][g];
      if (mw != neg_inf()) {
        const float weight = exp2f(mw - big);
        sum = fmaf(merge_l[w][g], weight, sum);
        acc = fmaf(merge_o[w][g][d], weight, acc);
      }
    }
    const long long slot = (long long)chunk * kHeads + kv_head * kGroup + g;
    part_o[slot * kDim + d] = acc;
    if (d == 0) {
      part_ml[slot * 2] = big;
      part_ml[slot * 2 + 1] = sum;
    }
  }
}

template <bool kMax> __device__ float block_reduce(float v, float *scratch) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(kFull, v, offset);
    v = kMax ? fmaxf(v, other) : v + other;
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < kCombineThreads / 32 ? scratch[lane] : (kMax ? neg_inf() : 0.0f);
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(kFull, v, offset);
    v = kMax ? fmaxf(v, other) : v + other;
  }
  __syncthreads();
  return v;
}

extern "C" __global__ void __launch_bounds__(kCombineThreads)
decode_combine(const float *__restrict__ part_o, const float *__restrict__ part_ml, const int *__restrict__ kv_indptr,
               __nv_bfloat16 *__restrict__ output, float *__restrict__ lse) {
  __shared__ int cs[kBatch + 1];
  __shared__ float red[32];
  __shared__ float partial[kCombineThreads / kDim][kDim];
  chunk_starts(kv_indptr, cs);
  const int h = blockIdx.x, b = blockIdx.y;
  const int c0 = cs[b], c1 = cs[b + 1];

  float big = neg_inf();
  for (int c = c0 + threadIdx.x; c < c1; c += kCombineThreads) big = fmaxf(big, part_ml[((long long)c * kHeads + h) * 2]);
  big = block_reduce<true>(big, red);
  float sum = 0.0f;
  for (int c = c0 + threadIdx.x; c < c1; c += kCombineThreads) {
    const float mc = part_ml[((long long)c * kHeads + h) * 2];
    if (mc != neg_inf()) sum += part_ml[((long long)c * kHeads + h) * 2 + 1] * exp2f(mc - big);
  }
  sum = block_reduce<false>(sum, red);

  const int group = threadIdx.x / kDim, d = threadIdx.x % kDim;
  float acc = 0.0f;
#pragma unroll 4
  for (int c = c0 + group; c < c1; c += kCombineThreads / kDim) {
    const long long slot = (long long)c * kHeads + h;
    const float mc = part_ml[slot * 2];
    if (mc != neg_inf()) acc = fmaf(part_o[slot * kDim + d], exp2f(mc - big), acc);
  }
  partial[group][d] = acc;
  __syncthreads();
  if (group == 0) {
#pragma unroll
    for (int g = 1; g < kCombineThreads / kDim; ++g) acc += partial[g][d];
    const bool empty = c1 == c0 || sum == 0.0f;
    output[((long long)b * kHeads + h) * kDim + d] = __float2bfloat16_rn(empty ? 0.0f : acc / sum);
    if (d == 0) lse[(long long)b * kHeads + h] = empty ? neg_inf() : big + log2f(sum);
  }
}

/* mkb:plan
scratch part_o fp32[(ceil_div(num_kv_indices, 256) + batch_size) * num_qo_heads * head_dim]
scratch part_ml fp32[(ceil_div(num_kv_indices, 256) + batch_size) * num_qo_heads * 2]
launch decode_partial grid(ceil_div(num_kv_indices, 256) + batch_size, num_kv_heads) block(128)
  args(q, k_cache, v_cache, kv_indptr, kv_indices, part_o, part_ml, f32(sm_scale * 1.4426950408889634))
launch decode_combine grid(num_qo_heads, batch_size) block(512) args(part_o, part_ml, kv_indptr, output, lse)
*/
