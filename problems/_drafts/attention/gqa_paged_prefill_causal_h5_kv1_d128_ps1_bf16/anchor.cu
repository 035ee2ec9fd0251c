// The float64 anchor: causal paged GQA prefill with every intermediate in double. One block per
// (query token, KV head) serves the KV head's group of query heads; 128 threads, thread d owns output
// dimension d. Keys are visited in chunks of 128 (one per thread): the logits of the chunk in double,
// then an exact online rescaling of the running maximum, sum and weighted values (all double).
#include <cuda_bf16.h>

#define NUM_QO_HEADS 5
#define NUM_KV_HEADS 1
#define HEAD_DIM 128
#define PAGE_SIZE 1

namespace {

constexpr int kGroup = NUM_QO_HEADS / NUM_KV_HEADS;
constexpr int kThreads = 128;
static_assert(HEAD_DIM == kThreads, "thread d owns output dimension d");

__device__ int kv_length(const int *kv_indptr, const int *last_page_len, int b) {
  const int pages = kv_indptr[b + 1] - kv_indptr[b];
  if (PAGE_SIZE == 1) return pages;
  return pages > 0 ? (pages - 1) * PAGE_SIZE + last_page_len[b] : 0;
}

// Element offset of KV token j of request b, KV head g, in k_cache / v_cache.
__device__ long long kv_offset(const int *kv_indptr, const int *kv_indices, int b, int j, int g) {
  const long long page = kv_indices[kv_indptr[b] + j / PAGE_SIZE];
  return ((page * PAGE_SIZE + j % PAGE_SIZE) * NUM_KV_HEADS + g) * HEAD_DIM;
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
anchor_paged_prefill(const __nv_bfloat16 *q, const __nv_bfloat16 *k_cache, const __nv_bfloat16 *v_cache,
                     const int *qo_indptr, const int *kv_indptr, const int *kv_indices, const int *last_page_len,
                     double *output, double *lse, int batch_size, double sm_scale) {
  __shared__ double qs[kGroup][HEAD_DIM];
  __shared__ double ps[kGroup][kThreads];
  const int t = blockIdx.x, g = blockIdx.y, tid = threadIdx.x;
  const double inf = __longlong_as_double(0x7ff0000000000000ll);

  // The request holding query row t: qo_indptr[b] <= t < qo_indptr[b + 1] (empty requests skipped).
  int b = 0;
  while (b < batch_size - 1 && qo_indptr[b + 1] <= t) ++b;
  const int i = t - qo_indptr[b];
  const int q_len = qo_indptr[b + 1] - qo_indptr[b];
  const int kv_len = kv_length(kv_indptr, last_page_len, b);
  const int delta = kv_len - q_len;
  const int n = min(kv_len, i + delta + 1); // keys 0 .. n-1 are unmasked (j <= i + delta)

  for (int h = 0; h < kGroup; ++h)
    qs[h][tid] = (double)__bfloat162float(q[((long long)t * NUM_QO_HEADS + g * kGroup + h) * HEAD_DIM + tid]);
  __syncthreads();

  double m[kGroup], l[kGroup], acc[kGroup];
  for (int h = 0; h < kGroup; ++h) {
    m[h] = -inf;
    l[h] = 0.0;
    acc[h] = 0.0;
  }

  for (int j0 = 0; j0 < n; j0 += kThreads) {
    const int j = j0 + tid;
    double s[kGroup];
    for (int h = 0; h < kGroup; ++h) s[h] = -inf;
    if (j < n) {
      for (int h = 0; h < kGroup; ++h) s[h] = 0.0;
      const uint4 *row = reinterpret_cast<const uint4 *>(k_cache + kv_offset(kv_indptr, kv_indices, b, j, g));
      for (int c = 0; c < HEAD_DIM / 8; ++c) {
        const uint4 packed = row[c];
        const __nv_bfloat16 *e = reinterpret_cast<const __nv_bfloat16 *>(&packed);
        for (int u = 0; u < 8; ++u) {
          const double kd = (double)__bfloat162float(e[u]);
          for (int h = 0; h < kGroup; ++h) s[h] += qs[h][c * 8 + u] * kd;
        }
      }
      for (int h = 0; h < kGroup; ++h) s[h] *= sm_scale;
    }
    for (int h = 0; h < kGroup; ++h) ps[h][tid] = s[h];
    __syncthreads();
    const int count = min(kThreads, n - j0);
    for (int h = 0; h < kGroup; ++h) {
      double chunk_max = -inf;
      for (int u = 0; u < count; ++u) chunk_max = fmax(chunk_max, ps[h][u]);
      const double m_new = fmax(m[h], chunk_max);
      const double alpha = m[h] == -inf ? 0.0 : exp(m[h] - m_new);
      l[h] *= alpha;
      acc[h] *= alpha;
      m[h] = m_new;
    }
    __syncthreads();
    for (int h = 0; h < kGroup; ++h) ps[h][tid] = j < n ? exp(s[h] - m[h]) : 0.0;
    __syncthreads();
    for (int u = 0; u < count; ++u) {
      const double vd =
          (double)__bfloat162float(v_cache[kv_offset(kv_indptr, kv_indices, b, j0 + u, g) + tid]);
      for (int h = 0; h < kGroup; ++h) {
        acc[h] += ps[h][u] * vd;
        l[h] += ps[h][u];
      }
    }
    __syncthreads();
  }

  for (int h = 0; h < kGroup; ++h) {
    const long long row = (long long)t * NUM_QO_HEADS + g * kGroup + h;
    output[row * HEAD_DIM + tid] = l[h] > 0.0 ? acc[h] / l[h] : 0.0;
    if (tid == 0) lse[row] = l[h] > 0.0 ? (m[h] + log(l[h])) / log(2.0) : -inf;
  }
}

/* mkb:plan
# page size 1: the last-page-length argument is not read (kv_indptr stands in for it)
launch anchor_paged_prefill grid(total_q, num_kv_heads) block(128)
  args(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, kv_indptr, output, lse, i32(batch_size), f64(sm_scale))
*/
