// DSA top-k indexer, two launches.
// 1. indexer_scores: one block per (page, sequence) of the sequences longer than topk (a shorter
//    sequence keeps all its tokens whatever their scores, so its scores are never needed). The 64x64
//    head-by-token dot products of the page over the 128 fp8 values, fp32 accumulation, from shared
//    memory (transposed, padded rows); then score[t] = sum_h w[h] * relu(scale[t] * dot[h][t]).
// 2. indexer_select: one block of 1024 threads per sequence. Short sequences write their tokens in
//    order and the -1 fill. A long one finds the k-th largest score by a bitwise search over
//    order-preserving integer keys (__syncthreads_count per bit), keeps every key above it and the
//    lowest positions among keys equal to it, and writes the kept positions in ascending order through
//    a block-wide scan, as global token ids page * 64 + offset.
#include <cuda_fp8.h>

namespace {
constexpr int kHeads = 64, kDim = 128, kPage = 64;
constexpr int kPageBytes = kPage * (kDim + 4);  // 8448
constexpr int kPitch = 65;                      // padded shared row: conflict-free transposed access
constexpr int kThreads = 1024, kPerThread = 3;  // 3072 >= 43 * 64 positions per sequence

__device__ __forceinline__ float fp8_to_float(unsigned byte) {
  __nv_fp8_e4m3 v;
  v.__x = (unsigned char)byte;
  return float(v);
}

// Order-preserving map of a float to an unsigned integer.
__device__ __forceinline__ unsigned ordered_key(float f) {
  const unsigned u = __float_as_uint(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// Exclusive prefix sum of v over the 1024 threads of the block, in thread order.
__device__ int block_exclusive_scan(int v, int *warp_sums) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int x = v;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, x, offset);
    if (lane >= offset) x += y;
  }
  if (lane == 31) warp_sums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int s = warp_sums[lane];
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, s, offset);
      if (lane >= offset) s += y;
    }
    warp_sums[lane] = s;
  }
  __syncthreads();
  const int before = (warp > 0 ? warp_sums[warp - 1] : 0) + x - v;
  __syncthreads();  // warp_sums is reused by the next scan
  return before;
}
} // namespace

extern "C" __global__ void __launch_bounds__(256)
indexer_scores(const unsigned char *__restrict__ q_index_fp8, const unsigned char *__restrict__ k_cache,
               const float *__restrict__ weights, const int *__restrict__ seq_lens, const int *__restrict__ block_table,
               float *__restrict__ scores, int max_num_pages, int topk) {
  extern __shared__ float smem[];
  float *qT = smem;                 // [128][65]: qT[d][h]
  float *kT = smem + kDim * kPitch; // [128][65]: kT[d][t]
  __shared__ float partial[16][kPage];
  __shared__ float scale_s[kPage], weight_s[kHeads];

  const int b = blockIdx.y, slot = blockIdx.x, tid = threadIdx.x;
  const int seq_len = seq_lens[b];
  if (seq_len <= topk || slot * kPage >= seq_len) return;  // uniform over the block
  const long long page = block_table[(long long)b * max_num_pages + slot];
  const unsigned *qw = reinterpret_cast<const unsigned *>(q_index_fp8 + (long long)b * kHeads * kDim);
  const unsigned *kw = reinterpret_cast<const unsigned *>(k_cache + page * kPageBytes);
  for (int w = tid; w < kHeads * kDim / 4; w += 256) {
    const unsigned qa = qw[w], ka = kw[w];
    const int row = (w * 4) / kDim, d0 = (w * 4) % kDim;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      qT[(d0 + c) * kPitch + row] = fp8_to_float((qa >> (8 * c)) & 0xffu);
      kT[(d0 + c) * kPitch + row] = fp8_to_float((ka >> (8 * c)) & 0xffu);
    }
  }
  if (tid < kPage) {
    scale_s[tid] = reinterpret_cast<const float *>(k_cache + page * kPageBytes + kPage * kDim)[tid];
    weight_s[tid] = weights[b * kHeads + tid];
  }
  __syncthreads();

  const int th = tid / 16, tt = tid % 16;  // heads th + 16 i, tokens tt + 16 j
  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
#pragma unroll 4
  for (int d = 0; d < kDim; ++d) {
    float qv[4], kv[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) qv[i] = qT[d * kPitch + th + 16 * i];
#pragma unroll
    for (int j = 0; j < 4; ++j) kv[j] = kT[d * kPitch + tt + 16 * j];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(qv[i], kv[j], acc[i][j]);
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float scale = scale_s[tt + 16 * j];
    float part = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) part += weight_s[th + 16 * i] * fmaxf(scale * acc[i][j], 0.0f);
    partial[th][tt + 16 * j] = part;
  }
  __syncthreads();
  if (tid < kPage) {
    float total = 0.0f;
#pragma unroll
    for (int g = 0; g < 16; ++g) total += partial[g][tid];
    const int pos = slot * kPage + tid;
    if (pos < seq_len) scores[(long long)b * max_num_pages * kPage + pos] = total;
  }
}

extern "C" __global__ void __launch_bounds__(kThreads)
indexer_select(const float *__restrict__ scores, const int *__restrict__ seq_lens, const int *__restrict__ block_table,
               int *__restrict__ topk_indices, int max_num_pages, int topk) {
  __shared__ int warp_sums[32];
  const int b = blockIdx.x, tid = threadIdx.x;
  const int n = seq_lens[b];
  const int *pages = block_table + (long long)b * max_num_pages;
  int *row = topk_indices + (long long)b * topk;
  if (n <= topk) {  // every token is kept, in order
    for (int j = tid; j < topk; j += kThreads) row[j] = j < n ? pages[j / kPage] * kPage + j % kPage : -1;
    return;
  }
  const int k = topk;
  unsigned key[kPerThread];
  bool valid[kPerThread];
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int i = tid * kPerThread + e;
    valid[e] = i < n;
    key[e] = valid[e] ? ordered_key(scores[(long long)b * max_num_pages * kPage + i]) : 0u;
  }
  // The largest threshold with at least k keys at or above it: the k-th largest key.
  unsigned threshold = 0u;
  for (int bit = 31; bit >= 0; --bit) {
    const unsigned candidate = threshold | (1u << bit);
    int count = 0;
#pragma unroll
    for (int e = 0; e < kPerThread; ++e) count += __syncthreads_count(valid[e] && key[e] >= candidate);
    if (count >= k) threshold = candidate;
  }
  int above = 0, my_equal = 0;
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    above += __syncthreads_count(valid[e] && key[e] > threshold);
    my_equal += (valid[e] && key[e] == threshold) ? 1 : 0;
  }
  const int need_equal = k - above;  // >= 1: the lowest positions among the keys equal to the threshold
  int equal_rank = block_exclusive_scan(my_equal, warp_sums);
  bool keep[kPerThread];
  int my_kept = 0;
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    if (valid[e] && key[e] == threshold) keep[e] = equal_rank++ < need_equal;
    else keep[e] = valid[e] && key[e] > threshold;
    my_kept += keep[e] ? 1 : 0;
  }
  int pos = block_exclusive_scan(my_kept, warp_sums);
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    if (!keep[e]) continue;
    const int i = tid * kPerThread + e;
    if (pos < topk) row[pos] = pages[i / kPage] * kPage + i % kPage;
    ++pos;
  }
}

/* mkb:plan
scratch scores fp32[batch_size * max_num_pages * page_size]
launch indexer_scores grid(max_num_pages, batch_size) block(256) shared(66560)
  args(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, scores, i32(max_num_pages), i32(topk))
launch indexer_select grid(batch_size) block(1024)
  args(scores, seq_lens, block_table, topk_indices, i32(max_num_pages), i32(topk))
*/
