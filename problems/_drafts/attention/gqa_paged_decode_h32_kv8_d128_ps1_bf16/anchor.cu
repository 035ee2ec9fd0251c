// The float64 anchor: paged GQA decode with every intermediate in double. One 512-thread block per
// (query head, request): the threads first compute the request's logits for this head (one token per
// thread at a time) into a float64 scratch, reduce their max and sum of exponentials, then four groups
// of 128 threads (one per head dimension) accumulate the probability-weighted values.
#include "mkb_ops.cuh"

constexpr int kHeads = 32, kKvHeads = 8, kGroup = kHeads / kKvHeads, kDim = 128, kThreads = 512;

extern "C" __global__ void __launch_bounds__(kThreads)
anchor_gqa_decode(const bf16 *q, const bf16 *k_cache, const bf16 *v_cache, const int *kv_indptr, const int *kv_indices,
                  double *output, double *lse, double *logits, double sm_scale) {
  __shared__ double q_row[kDim];
  __shared__ double partial[kThreads / kDim][kDim];
  const int h = blockIdx.x, b = blockIdx.y, kv_head = h / kGroup;
  const int start = kv_indptr[b], length = kv_indptr[b + 1] - start;
  for (int d = threadIdx.x; d < kDim; d += blockDim.x) q_row[d] = f64(q[((long long)b * kHeads + h) * kDim + d]);
  __syncthreads();

  // logits[t, h] for the request's tokens t = start + j (token-major scratch).
  double row_max = -__longlong_as_double(0x7ff0000000000000ll);
  for (int j = threadIdx.x; j < length; j += blockDim.x) {
    const bf16 *k = k_cache + ((long long)kv_indices[start + j] * kKvHeads + kv_head) * kDim;
    double dot = 0.0;
    for (int d = 0; d < kDim; ++d) dot += q_row[d] * f64(k[d]);
    const double s = dot * sm_scale;
    logits[(long long)(start + j) * kHeads + h] = s;
    row_max = fmax(row_max, s);
  }
  row_max = mkb_ops::block_reduce<mkb_ops::max_op>(row_max);
  double sum = 0.0;
  for (int j = threadIdx.x; j < length; j += blockDim.x) sum += exp(logits[(long long)(start + j) * kHeads + h] - row_max);
  sum = mkb_ops::block_reduce<mkb_ops::sum_op>(sum);
  if (threadIdx.x == 0)
    lse[(long long)b * kHeads + h] = length > 0 ? (row_max + log(sum)) / log(2.0) : -__longlong_as_double(0x7ff0000000000000ll);
  __syncthreads();  // every logit written above is visible to the whole block

  const int group = threadIdx.x / kDim, d = threadIdx.x % kDim;
  double acc = 0.0;
  for (int j = group; j < length; j += kThreads / kDim) {
    const double p = exp(logits[(long long)(start + j) * kHeads + h] - row_max);
    acc += p * f64(v_cache[((long long)kv_indices[start + j] * kKvHeads + kv_head) * kDim + d]);
  }
  partial[group][d] = acc;
  __syncthreads();
  if (group == 0) {
    for (int g = 1; g < kThreads / kDim; ++g) acc += partial[g][d];
    output[((long long)b * kHeads + h) * kDim + d] = length > 0 ? acc / sum : 0.0;
  }
}

/* mkb:plan
scratch logits fp64[num_kv_indices * num_qo_heads]
launch anchor_gqa_decode grid(num_qo_heads, batch_size) block(512)
  args(q, k_cache, v_cache, kv_indptr, kv_indices, output, lse, logits, f64(sm_scale))
*/
