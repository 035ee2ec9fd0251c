// The float64 anchor: for query token q = qo_indptr[b] + i of sequence b and head h, over the first
// n = (kv_len - q_len) + i + 1 tokens of the sequence's KV, kv_indices[kv_indptr[b] .. + n) (causal:
// the later positions are masked; page_size 1: the page id is the token's row in the caches),
//   s_t = sm_scale * (q_nope[q,h] . ckv[t] + q_pe[q,h] . kpe[t])     in double
//   lse[q,h] = logsumexp_t(s_t) / ln 2;  output[q,h] = sum_t softmax(s)_t ckv[t]
// with no rounding; a query with nothing visible would give lse -inf and a zero row (none occurs). One
// block per (q, h): pass 1
// finds the maximum and the sum of exponentials (online, per thread, then merged), pass 2 recomputes
// the logits a block of tokens at a time and accumulates the output columns.
#include "mkb_ops.cuh"

namespace {
constexpr int kHeads = 16, kCkv = 512, kKpe = 64, kThreads = 256;

__device__ double logit(const double *q, const bf16 *ckv, const bf16 *kpe, long long tok) {
  const bf16 *kc = ckv + tok * kCkv, *kp = kpe + tok * kKpe;
  double s = 0.0;
  for (int d = 0; d < kCkv; ++d) s += q[d] * f64(kc[d]);
  for (int d = 0; d < kKpe; ++d) s += q[kCkv + d] * f64(kp[d]);
  return s;
}
} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
anchor_mla_prefill(double *__restrict__ output, double *__restrict__ lse, const bf16 *__restrict__ q_nope,
                  const bf16 *__restrict__ q_pe, const bf16 *__restrict__ ckv, const bf16 *__restrict__ kpe,
                  const int *__restrict__ qo_indptr, const int *__restrict__ kv_indptr,
                  const int *__restrict__ kv_indices, int batch, double sm_scale) {
  __shared__ double qv[kCkv + kKpe];
  __shared__ double p[kThreads];
  __shared__ double red_m[kThreads], red_l[kThreads];
  const int q = blockIdx.x / kHeads, h = blockIdx.x % kHeads, tid = threadIdx.x;
  for (int d = tid; d < kCkv; d += kThreads) qv[d] = f64(q_nope[((long long)q * kHeads + h) * kCkv + d]);
  for (int d = tid; d < kKpe; d += kThreads) qv[kCkv + d] = f64(q_pe[((long long)q * kHeads + h) * kKpe + d]);
  __syncthreads();
  int seq = 0;
  while (seq + 1 < batch && qo_indptr[seq + 1] <= q) ++seq;  // the sequence of query q
  const int q_len = qo_indptr[seq + 1] - qo_indptr[seq], kv_len = kv_indptr[seq + 1] - kv_indptr[seq];
  const int begin = kv_indptr[seq], len = max(0, min(kv_len, kv_len - q_len + (q - qo_indptr[seq]) + 1));
  const double ninf = -__longlong_as_double(0x7ff0000000000000ll);

  double m = ninf, l = 0.0;
  for (int i = tid; i < len; i += kThreads) {
    const double s = sm_scale * logit(qv, ckv, kpe, kv_indices[begin + i]);
    if (s > m) {
      l = l * exp(m - s) + 1.0;
      m = s;
    } else {
      l += exp(s - m);
    }
  }
  red_m[tid] = m;
  red_l[tid] = l;
  __syncthreads();
  if (tid == 0) {
    double mm = ninf;
    for (int i = 0; i < kThreads; ++i) mm = red_m[i] > mm ? red_m[i] : mm;
    double ll = 0.0;
    if (mm != ninf)
      for (int i = 0; i < kThreads; ++i)
        if (red_l[i] > 0.0) ll += red_l[i] * exp(red_m[i] - mm);
    red_m[0] = mm;
    red_l[0] = ll;
    lse[q * kHeads + h] = ll > 0.0 ? (mm + log(ll)) / 0.69314718055994530942 : ninf;
  }
  __syncthreads();
  const double mm = red_m[0], ll = red_l[0];

  double acc0 = 0.0, acc1 = 0.0;  // columns tid and tid + 256
  for (int base = 0; base < len; base += kThreads) {
    const int i = base + tid;
    __syncthreads();
    p[tid] = i < len ? exp(sm_scale * logit(qv, ckv, kpe, kv_indices[begin + i]) - mm) / ll : 0.0;
    __syncthreads();
    const int n = min(kThreads, len - base);
    for (int j = 0; j < n; ++j) {
      const bf16 *kc = ckv + (long long)kv_indices[begin + base + j] * kCkv;
      acc0 += p[j] * f64(kc[tid]);
      acc1 += p[j] * f64(kc[tid + kThreads]);
    }
  }
  output[((long long)q * kHeads + h) * kCkv + tid] = acc0;
  output[((long long)q * kHeads + h) * kCkv + tid + kThreads] = acc1;
}

/* mkb:plan
launch anchor_mla_prefill grid(total_q * num_qo_heads) block(256)
  args(output, lse, q_nope, q_pe, ckv_cache, kpe_cache, qo_indptr, kv_indptr, kv_indices, i32(batch_size), f64(sm_scale))
*/
