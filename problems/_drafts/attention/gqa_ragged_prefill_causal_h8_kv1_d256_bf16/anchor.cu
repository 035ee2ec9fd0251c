// The float64 anchor: one block per (query token, query head). The block finds the token's request,
// computes every allowed logit in double twice (once for the maximum, once for the weights) and
// reduces the weighted values, also in double. Outputs are written as double.
#include <cuda_bf16.h>

namespace {

constexpr int kQoHeads = 8, kKvHeads = 1, kQkDim = 256, kVoDim = 256;
constexpr int kGroup = kQoHeads / kKvHeads;
constexpr int kWarps = 4;

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// q_row . k_row in double, over one warp (every lane gets the sum).
__device__ double dot(const double *q_row, const __nv_bfloat16 *k_row, int lane) {
  double s = 0.0;
#pragma unroll
  for (int c = 0; c < kQkDim / 32; ++c) s += q_row[lane + 32 * c] * (double)__bfloat162float(k_row[lane + 32 * c]);
  return warp_sum(s);
}

} // namespace

extern "C" __global__ void __launch_bounds__(128)
anchor_ragged_prefill(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, const int *qo_indptr,
                      const int *kv_indptr, double *output, double *lse, int batch, double sm_scale) {
  const int t = blockIdx.x, h = blockIdx.y, g = h / kGroup;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // The request holding token t: the last b with qo_indptr[b] <= t.
  int lo = 0, hi = batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (qo_indptr[mid] <= t) lo = mid; else hi = mid - 1;
  }
  const int qs = qo_indptr[lo], q_len = qo_indptr[lo + 1] - qs;
  const int ks = kv_indptr[lo], kv_len = kv_indptr[lo + 1] - ks;
  const int i = t - qs;
  // Keys 0 .. allowed-1 of the request pass the bottom-right causal mask (j < i + 1 + kv_len - q_len).
  const int allowed = max(0, min(kv_len, i + 1 + kv_len - q_len));

  __shared__ double q_row[kQkDim];
  __shared__ double warp_max[kWarps], warp_l[kWarps];
  __shared__ double warp_acc[kWarps][kVoDim];
  for (int d = threadIdx.x; d < kQkDim; d += blockDim.x)
    q_row[d] = (double)__bfloat162float(q[((long long)t * kQoHeads + h) * kQkDim + d]);
  __syncthreads();

  const double inf = __longlong_as_double(0x7ff0000000000000ll);
  double m = -inf;
  for (int j = warp; j < allowed; j += kWarps)
    m = fmax(m, dot(q_row, k + ((long long)(ks + j) * kKvHeads + g) * kQkDim, lane) * sm_scale);
  if (lane == 0) warp_max[warp] = m;
  __syncthreads();
  double row_max = warp_max[0];
  for (int w = 1; w < kWarps; ++w) row_max = fmax(row_max, warp_max[w]);

  double l = 0.0, acc[kVoDim / 32];
#pragma unroll
  for (int c = 0; c < kVoDim / 32; ++c) acc[c] = 0.0;
  for (int j = warp; j < allowed; j += kWarps) {
    const double p = exp(dot(q_row, k + ((long long)(ks + j) * kKvHeads + g) * kQkDim, lane) * sm_scale - row_max);
    l += p;
    const __nv_bfloat16 *v_row = v + ((long long)(ks + j) * kKvHeads + g) * kVoDim;
#pragma unroll
    for (int c = 0; c < kVoDim / 32; ++c) acc[c] += p * (double)__bfloat162float(v_row[lane + 32 * c]);
  }
  if (lane == 0) warp_l[warp] = l;
#pragma unroll
  for (int c = 0; c < kVoDim / 32; ++c) warp_acc[warp][lane + 32 * c] = acc[c];
  __syncthreads();

  double total = 0.0;
  for (int w = 0; w < kWarps; ++w) total += warp_l[w];
  for (int d = threadIdx.x; d < kVoDim; d += blockDim.x) {
    double sum = 0.0;
    for (int w = 0; w < kWarps; ++w) sum += warp_acc[w][d];
    // A query that sees no key (none in this workload) gets output 0 and lse -inf.
    output[((long long)t * kQoHeads + h) * kVoDim + d] = allowed > 0 ? sum / total : 0.0;
  }
  if (threadIdx.x == 0)
    lse[(long long)t * kQoHeads + h] = allowed > 0 ? (row_max + log(total)) / log(2.0) : -inf;
}

/* mkb:plan
launch anchor_ragged_prefill grid(total_q, num_qo_heads) block(128)
  args(q, k, v, qo_indptr, kv_indptr, output, lse, i32(batch_size), f64(sm_scale))
*/
