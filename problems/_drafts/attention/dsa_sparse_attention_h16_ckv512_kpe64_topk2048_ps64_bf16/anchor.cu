// The float64 anchor: for each (token q, head h), over the slots j of sparse_indices[q] whose value
// t_j is not -1 (t_j indexes the flattened caches: page t_j / 64, row t_j % 64),
//   s_j = sm_scale * (q_nope[q,h] . ckv[t_j] + q_pe[q,h] . kpe[t_j])      in double
//   lse[q,h] = logsumexp_j(s_j) / ln 2;  output[q,h] = sum_j softmax(s)_j ckv[t_j]
// with no rounding. One block per (q, h): pass 1 finds the maximum and the sum of exponentials
// (online, per thread, then merged), pass 2 recomputes the logits 256 slots at a time and accumulates
// the output columns.
#include "mkb_ops.cuh"

namespace {
constexpr int kHeads = 16, kCkv = 512, kKpe = 64, kTopk = 2048, kThreads = 256;

__device__ double logit(const double *q, const bf16 *ckv, const bf16 *kpe, long long tok) {
  const bf16 *kc = ckv + tok * kCkv, *kp = kpe + tok * kKpe;
  double s = 0.0;
  for (int d = 0; d < kCkv; ++d) s += q[d] * f64(kc[d]);
  for (int d = 0; d < kKpe; ++d) s += q[kCkv + d] * f64(kp[d]);
  return s;
}
} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
anchor_dsa(double *__restrict__ output, double *__restrict__ lse, const bf16 *__restrict__ q_nope,
           const bf16 *__restrict__ q_pe, const bf16 *__restrict__ ckv, const bf16 *__restrict__ kpe,
           const int *__restrict__ sparse_indices, double sm_scale) {
  __shared__ double q[kCkv + kKpe];
  __shared__ double p[kThreads];
  __shared__ double red_m[kThreads], red_l[kThreads];
  const int b = blockIdx.x / kHeads, h = blockIdx.x % kHeads, tid = threadIdx.x;
  const int *slots = sparse_indices + (long long)b * kTopk;
  for (int d = tid; d < kCkv; d += kThreads) q[d] = f64(q_nope[((long long)b * kHeads + h) * kCkv + d]);
  for (int d = tid; d < kKpe; d += kThreads) q[kCkv + d] = f64(q_pe[((long long)b * kHeads + h) * kKpe + d]);
  __syncthreads();
  const double ninf = -__longlong_as_double(0x7ff0000000000000ll);

  double m = ninf, l = 0.0;
  for (int i = tid; i < kTopk; i += kThreads) {
    const int tok = slots[i];
    if (tok < 0) continue;
    const double s = sm_scale * logit(q, ckv, kpe, tok);
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
    lse[b * kHeads + h] = ll > 0.0 ? (mm + log(ll)) / 0.69314718055994530942 : ninf;
  }
  __syncthreads();
  const double mm = red_m[0], ll = red_l[0];

  double acc0 = 0.0, acc1 = 0.0;  // columns tid and tid + 256
  for (int base = 0; base < kTopk; base += kThreads) {
    const int tok = slots[base + tid];
    __syncthreads();
    p[tid] = tok >= 0 ? exp(sm_scale * logit(q, ckv, kpe, tok) - mm) / ll : 0.0;
    __syncthreads();
    for (int j = 0; j < kThreads; ++j) {
      const int t = slots[base + j];
      if (t < 0) continue;
      const bf16 *kc = ckv + (long long)t * kCkv;
      acc0 += p[j] * f64(kc[tid]);
      acc1 += p[j] * f64(kc[tid + kThreads]);
    }
  }
  output[((long long)b * kHeads + h) * kCkv + tid] = acc0;
  output[((long long)b * kHeads + h) * kCkv + tid + kThreads] = acc1;
}

/* mkb:plan
launch anchor_dsa grid(num_tokens * num_qo_heads) block(256)
  args(output, lse, q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, f64(sm_scale))
*/
