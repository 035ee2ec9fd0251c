// The float64 anchor: paged GQA decode (page size 64, last-page lengths) with every intermediate in
// double. One 512-thread block per (query head, request): the threads first compute the request's logits
// for this head (one token per thread at a time) into a float64 scratch, reduce their max and sum of
// exponentials, then four groups of 128 threads (one per head dimension) accumulate the
// probability-weighted values.
#include "mkb_ops.cuh"

constexpr int kHeads = 32, kKvHeads = 8, kGroup = kHeads / kKvHeads, kDim = 128, kPage = 64, kThreads = 512;

// Tokens of request b: all of its pages but the last, and kv_last_page_len[b] tokens of the last.
__device__ __forceinline__ long long request_tokens(const int *kv_indptr, const int *kv_last_page_len, int b) {
  const int pages = kv_indptr[b + 1] - kv_indptr[b];
  return pages > 0 ? (long long)(pages - 1) * kPage + kv_last_page_len[b] : 0;
}

// Element offset of (token j of the request whose pages start at kv_indices[page_start], kv_head, 0).
__device__ __forceinline__ long long token_row(const int *kv_indices, int page_start, long long j, int kv_head) {
  const long long page = kv_indices[page_start + j / kPage];
  return ((page * kPage + j % kPage) * kKvHeads + kv_head) * kDim;
}

extern "C" __global__ void __launch_bounds__(kThreads)
anchor_gqa_decode(const bf16 *q, const bf16 *k_cache, const bf16 *v_cache, const int *kv_indptr, const int *kv_indices,
                  const int *kv_last_page_len, double *output, double *lse, double *logits, double sm_scale) {
  __shared__ double q_row[kDim];
  __shared__ double partial[kThreads / kDim][kDim];
  __shared__ long long token_start;
  const int h = blockIdx.x, b = blockIdx.y, kv_head = h / kGroup;
  const int page_start = kv_indptr[b];
  const long long length = request_tokens(kv_indptr, kv_last_page_len, b);
  if (threadIdx.x == 0) {
    long long start = 0;
    for (int r = 0; r < b; ++r) start += request_tokens(kv_indptr, kv_last_page_len, r);
    token_start = start;  // the request's first row in the token-major logits scratch
  }
  for (int d = threadIdx.x; d < kDim; d += blockDim.x) q_row[d] = f64(q[((long long)b * kHeads + h) * kDim + d]);
  __syncthreads();
  double *row_logits = logits + token_start * kHeads + h;  // token j at row_logits[j * kHeads]

  double row_max = -__longlong_as_double(0x7ff0000000000000ll);
  for (long long j = threadIdx.x; j < length; j += blockDim.x) {
    const bf16 *k = k_cache + token_row(kv_indices, page_start, j, kv_head);
    double dot = 0.0;
    for (int d = 0; d < kDim; ++d) dot += q_row[d] * f64(k[d]);
    const double s = dot * sm_scale;
    row_logits[j * kHeads] = s;
    row_max = fmax(row_max, s);
  }
  row_max = mkb_ops::block_reduce<mkb_ops::max_op>(row_max);
  double sum = 0.0;
  for (long long j = threadIdx.x; j < length; j += blockDim.x) sum += exp(row_logits[j * kHeads] - row_max);
  sum = mkb_ops::block_reduce<mkb_ops::sum_op>(sum);
  if (threadIdx.x == 0)
    lse[(long long)b * kHeads + h] = length > 0 ? (row_max + log(sum)) / log(2.0) : -__longlong_as_double(0x7ff0000000000000ll);
  __syncthreads();  // every logit written above is visible to the whole block

  const int group = threadIdx.x / kDim, d = threadIdx.x % kDim;
  double acc = 0.0;
  for (long long j = group; j < length; j += kThreads / kDim) {
    const double p = exp(row_logits[j * kHeads] - row_max);
    acc += p * f64(v_cache[token_row(kv_indices, page_start, j, kv_head) + d]);
  }
  partial[group][d] = acc;
  __syncthreads();
  if (group == 0) {
    for (int g = 1; g < kThreads / kDim; ++g) acc += partial[g][d];
    output[((long long)b * kHeads + h) * kDim + d] = length > 0 ? acc / sum : 0.0;
  }
}

/* mkb:plan
scratch logits fp64[num_kv_tokens * num_qo_heads]
launch anchor_gqa_decode grid(num_qo_heads, batch_size) block(512)
  args(q, k_cache, v_cache, kv_indptr, kv_indices, kv_last_page_len, output, lse, logits, f64(sm_scale))
*/
