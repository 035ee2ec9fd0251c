// The float64 anchor. Scores: q . k8 over the 128 fp8 values is exact in double (each product of two
// e4m3 values is exact and the sum spans fewer than 53 bits), then times the token's fp32 scale, relu,
// times the head's weight and the sum over heads, all in double. Selection: a position is chosen when
// fewer than k = min(topk, seq_len) positions beat it (a higher score, or an equal score at a lower
// position); the chosen positions are written in ascending order as global token ids, then -1.
#include <cuda_fp8.h>

namespace {
constexpr int kHeads = 64, kDim = 128, kPage = 64, kRowBytes = kDim + 4;  // 132: padded smem row
constexpr int kPageBytes = kPage * kRowBytes;                            // 8448 bytes per cache page
constexpr int kMaxTokens = 43 * 64;

__device__ float fp8_value(unsigned char byte) {
  __nv_fp8_e4m3 v;
  v.__x = byte;
  return float(v);
}
} // namespace

// One block of 64 threads per (page slot, sequence); thread t scores token slot * 64 + t.
extern "C" __global__ void __launch_bounds__(64)
anchor_scores(const unsigned char *q_index_fp8, const unsigned char *k_cache, const float *weights,
              const int *seq_lens, const int *block_table, double *scores, int max_num_pages) {
  __shared__ float q[kHeads * kDim];
  __shared__ unsigned char k[kPage * kRowBytes];
  const int b = blockIdx.y, slot = blockIdx.x, t = threadIdx.x;
  const int seq_len = seq_lens[b];
  if (slot * kPage >= seq_len) return;  // the whole block: no page here
  const long long page = block_table[(long long)b * max_num_pages + slot];
  for (int e = t; e < kHeads * kDim; e += kPage) q[e] = fp8_value(q_index_fp8[(long long)b * kHeads * kDim + e]);
  const unsigned char *values = k_cache + page * kPageBytes;
  for (int e = t; e < kPage * kDim; e += kPage) k[(e / kDim) * kRowBytes + e % kDim] = values[e];
  __syncthreads();
  const int pos = slot * kPage + t;
  if (pos >= seq_len) return;
  const double scale = (double)reinterpret_cast<const float *>(values + kPage * kDim)[t];
  double score = 0.0;
  for (int h = 0; h < kHeads; ++h) {
    double dot = 0.0;
    for (int d = 0; d < kDim; ++d) dot += (double)q[h * kDim + d] * (double)fp8_value(k[t * kRowBytes + d]);
    const double s = dot * scale;
    score += (double)weights[b * kHeads + h] * (s > 0.0 ? s : 0.0);
  }
  scores[(long long)b * kMaxTokens + pos] = score;
}

// One block per sequence.
extern "C" __global__ void __launch_bounds__(1024)
anchor_select(const double *scores, const int *seq_lens, const int *block_table, int *topk_indices,
              int max_num_pages, int topk) {
  __shared__ double s[kMaxTokens];
  __shared__ unsigned char chosen[kMaxTokens];
  const int b = blockIdx.x;
  const int n = seq_lens[b] < kMaxTokens ? seq_lens[b] : kMaxTokens;
  const int k = n < topk ? n : topk;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = scores[(long long)b * kMaxTokens + i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    int beaten_by = 0;
    for (int j = 0; j < n; ++j) beaten_by += (s[j] > s[i] || (s[j] == s[i] && j < i)) ? 1 : 0;
    chosen[i] = beaten_by < k ? 1 : 0;
  }
  __syncthreads();
  int *row = topk_indices + (long long)b * topk;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (!chosen[i]) continue;
    int before = 0;
    for (int j = 0; j < i; ++j) before += chosen[j];
    row[before] = block_table[(long long)b * max_num_pages + i / kPage] * kPage + i % kPage;
  }
  for (int j = k + threadIdx.x; j < topk; j += blockDim.x) row[j] = -1;
}

/* mkb:plan
scratch scores fp64[batch_size * max_num_pages * page_size]
launch anchor_scores grid(max_num_pages, batch_size) block(64)
  args(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, scores, i32(max_num_pages))
launch anchor_select grid(batch_size) block(1024)
  args(scores, seq_lens, block_table, topk_indices, i32(max_num_pages), i32(topk))
*/
