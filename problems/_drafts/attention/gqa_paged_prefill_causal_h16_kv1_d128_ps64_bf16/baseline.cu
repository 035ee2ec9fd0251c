// The eager baseline: one launch per operation of the original's reference() as eager PyTorch runs
// it, every intermediate an fp32 tensor in memory. The original loops over requests and 512-query
// chunks in Python; here each operation is one launch over all requests and chunks at once, extents
// read from the indptr arrays on the device (eager.py keeps the loop). The logits of request b start
// at num_qo_heads * pair_off[b], laid out [head][query][key] as the eager einsum writes them.
#define NUM_QO_HEADS 16
#define NUM_KV_HEADS 1
#define HEAD_DIM 128
#define PAGE_SIZE 64
#define GROUPED_LAYOUT 0 // the hqk einsum over repeat_interleave'd K and V

#include "mkb_ops.cuh"

__device__ __forceinline__ float inf_f() { return __int_as_float(0x7f800000); }

namespace {

constexpr int kGroup = NUM_QO_HEADS / NUM_KV_HEADS;

__device__ int kv_length(const int *kv_indptr, const int *last_page_len, int b) {
  const int pages = kv_indptr[b + 1] - kv_indptr[b];
  if (PAGE_SIZE == 1) return pages;
  return pages > 0 ? (pages - 1) * PAGE_SIZE + last_page_len[b] : 0;
}

// The request b with offsets[b] <= x < offsets[b + 1] (empty requests skipped), for x < offsets[batch].
__device__ int find_request(const int *offsets, int batch, int x) {
  int lo = 0, hi = batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (offsets[mid + 1] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Row (query i, head h) of a request's logits, counted from the request's first row.
__device__ long long row_in_request(int h, int i, int q_len) {
#if GROUPED_LAYOUT
  return ((long long)(h / kGroup) * q_len + i) * kGroup + h % kGroup; // [kv head][query][group head]
#else
  return (long long)h * q_len + i; // [head][query]
#endif
}

// Row (token t, head h) among all requests' rows: where per-row results (maxima, sums) are kept.
__device__ long long row_global(int h, int t, int total_q) {
#if GROUPED_LAYOUT
  return ((long long)(h / kGroup) * total_q + t) * kGroup + h % kGroup;
#else
  return (long long)h * total_q + t;
#endif
}

// What a logits row (query token t, head h) needs: its request and where its keys start.
struct logits_row {
  int b, i, q_len, kv_len;
  long long base; // first logit of the row
};

__device__ logits_row row_of(const int *qo_indptr, const int *kv_off, const long long *pair_off, int batch, int t,
                             int h) {
  logits_row r;
  r.b = find_request(qo_indptr, batch, t);
  r.i = t - qo_indptr[r.b];
  r.q_len = qo_indptr[r.b + 1] - qo_indptr[r.b];
  r.kv_len = kv_off[r.b + 1] - kv_off[r.b];
  r.base = (long long)NUM_QO_HEADS * pair_off[r.b] + row_in_request(h, r.i, r.q_len) * r.kv_len;
  return r;
}

// ---- A tiled fp32 SIMT GEMM standing for the einsums' cuBLAS SGEMM (fp32 products and sums, no
// TF32): C = A B for one (request, head or KV head) per blockIdx.z, 128 x 128 tiles, 8 x 8 results
// per thread.
constexpr int kTile = 128, kDepth = 8;

template <bool BKFastest, class A, class B, class C>
__device__ void gemm_tile(int M, int N, int K, A a_at, B b_at, C c_store) {
  __shared__ __align__(16) float as[kDepth][kTile + 4];
  __shared__ __align__(16) float bs[kDepth][kTile + 4];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  if (m0 >= M || n0 >= N) return;
  float acc[8][8] = {};
  for (int k0 = 0; k0 < K; k0 += kDepth) {
    for (int e = 0; e < 4; ++e) {
      const int idx = tid + e * 256;
      const int mm = idx / kDepth, kk = idx % kDepth;
      as[kk][mm] = (m0 + mm < M && k0 + kk < K) ? a_at(m0 + mm, k0 + kk) : 0.0f;
      const int nn = BKFastest ? idx / kDepth : idx % kTile, kb = BKFastest ? idx % kDepth : idx / kTile;
      bs[kb][nn] = (n0 + nn < N && k0 + kb < K) ? b_at(k0 + kb, n0 + nn) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
      float av[8], bv[8];
      *reinterpret_cast<float4 *>(av) = *reinterpret_cast<const float4 *>(&as[kk][ty * 4]);
      *reinterpret_cast<float4 *>(av + 4) = *reinterpret_cast<const float4 *>(&as[kk][64 + ty * 4]);
      *reinterpret_cast<float4 *>(bv) = *reinterpret_cast<const float4 *>(&bs[kk][tx * 4]);
      *reinterpret_cast<float4 *>(bv + 4) = *reinterpret_cast<const float4 *>(&bs[kk][64 + tx * 4]);
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] = fmaf(av[r], bv[c], acc[r][c]);
    }
    __syncthreads();
  }
  for (int r = 0; r < 8; ++r) {
    const int m = m0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + r - 4);
    if (m >= M) continue;
    for (int c = 0; c < 8; ++c) {
      const int n = n0 + (c < 4 ? tx * 4 + c : 64 + tx * 4 + c - 4);
      if (n < N) c_store(m, n, acc[r][c]);
    }
  }
}

// Four elements per thread a block apart, loads before stores (as eager's elementwise kernels).
template <class F> __device__ void for_each4(long long n, F f) {
  for (long long base = (long long)blockIdx.x * 1024; base < n; base += (long long)gridDim.x * 1024) {
    float v[4];
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + k * 256;
      if (i < n) v[k] = f.load(i);
    }
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + k * 256;
      if (i < n) f.store(i, v[k]);
    }
  }
}

} // namespace

// The loop's bookkeeping: per request, its first KV token among all requests' and its first logit per
// head (the sums of kv_len and q_len * kv_len before it). One thread.
extern "C" __global__ void request_table(int *kv_off, long long *pair_off, const int *qo_indptr, const int *kv_indptr,
                                         const int *last_page_len, int batch) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  int kv = 0;
  long long pairs = 0;
  for (int b = 0; b < batch; ++b) {
    kv_off[b] = kv;
    pair_off[b] = pairs;
    const int kv_len = kv_length(kv_indptr, last_page_len, b);
    kv += kv_len;
    pairs += (long long)(qo_indptr[b + 1] - qo_indptr[b]) * kv_len;
  }
  kv_off[batch] = kv;
  pair_off[batch] = pairs;
}

// torch.zeros / torch.full(-inf)
MKB_MAP(fill_bf16, bf16, (float value), value)
MKB_MAP(fill_f32, float, (float value), value)
MKB_MAP(fill_inf, float, (float sign), sign * inf_f())
// .to(fp32)
MKB_MAP(to_fp32, float, (const bf16 *x), f32(x[i]))
// a plain copy into a slice (the same layout)
MKB_MAP(copy_f32, float, (const float *x), x[i])
MKB_MAP(copy_bf16, bf16, (const bf16 *x), x[i])
// .to(bf16), the one rounding of the output
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

#if PAGE_SIZE == 1
// pool[page_ids] for page size 1: whole rows of `row` elements, every request's pages in kv_indices
// order (which is the order of the requests' tokens).
MKB_MAP(gather_pages, bf16, (const bf16 *pool, const int *ids, unsigned row),
        pool[(long long)ids[(unsigned)i / row] * row + (unsigned)i % row])
#else
// pool[page_ids[:-1]] (which = 0: the full pages) or pool[page_ids[-1], :last_len] (which = 1: the
// last page's tokens), bf16, written at the tokens' places among all requests' tokens.
// grid(total_kv_tokens) block(256)
extern "C" __global__ void gather_tokens(bf16 *out, const bf16 *pool, const int *kv_indptr, const int *kv_indices,
                                         const int *kv_off, int batch, int which) {
  const int x = blockIdx.x, b = find_request(kv_off, batch, x), j = x - kv_off[b];
  const int full = (kv_indptr[b + 1] - kv_indptr[b] - 1) * PAGE_SIZE;
  if ((j >= full) != (which == 1)) return;
  const long long page = kv_indices[kv_indptr[b] + j / PAGE_SIZE];
  const bf16 *src = pool + (page * PAGE_SIZE + j % PAGE_SIZE) * (NUM_KV_HEADS * HEAD_DIM);
  for (int e = threadIdx.x; e < NUM_KV_HEADS * HEAD_DIM; e += blockDim.x)
    out[(long long)x * NUM_KV_HEADS * HEAD_DIM + e] = src[e];
}
// .to(fp32) of either part. grid(total_kv_tokens) block(256)
extern "C" __global__ void tokens_to_fp32(float *out, const bf16 *in, const int *kv_indptr, const int *kv_off, int batch,
                                          int which) {
  const int x = blockIdx.x, b = find_request(kv_off, batch, x), j = x - kv_off[b];
  const int full = (kv_indptr[b + 1] - kv_indptr[b] - 1) * PAGE_SIZE;
  if ((j >= full) != (which == 1)) return;
  for (int e = threadIdx.x; e < NUM_KV_HEADS * HEAD_DIM; e += blockDim.x)
    out[(long long)x * NUM_KV_HEADS * HEAD_DIM + e] = f32(in[(long long)x * NUM_KV_HEADS * HEAD_DIM + e]);
}
// torch.cat([full, last]): fp32 copy. grid(total_kv_tokens) block(256)
extern "C" __global__ void cat_tokens(float *out, const float *full_part, const float *last_part, const int *kv_indptr,
                                      const int *kv_off, int batch) {
  const int x = blockIdx.x, b = find_request(kv_off, batch, x), j = x - kv_off[b];
  const float *src = j >= (kv_indptr[b + 1] - kv_indptr[b] - 1) * PAGE_SIZE ? last_part : full_part;
  for (int e = threadIdx.x; e < NUM_KV_HEADS * HEAD_DIM; e += blockDim.x)
    out[(long long)x * NUM_KV_HEADS * HEAD_DIM + e] = src[(long long)x * NUM_KV_HEADS * HEAD_DIM + e];
}
#endif

#if !GROUPED_LAYOUT
// tokens.permute(1, 0, 2).repeat_interleave(group, dim=0): [kv_len, kv heads, d] -> [heads, kv_len, d]
// per request. grid(total_kv_tokens, num_qo_heads) block(head_dim)
extern "C" __global__ void repeat_heads(float *out, const float *tokens, const int *kv_off, int batch) {
  const int x = blockIdx.x, h = blockIdx.y, d = threadIdx.x;
  const int b = find_request(kv_off, batch, x);
  const int j = x - kv_off[b], kv_len = kv_off[b + 1] - kv_off[b];
  out[((long long)NUM_QO_HEADS * kv_off[b] + (long long)h * kv_len + j) * HEAD_DIM + d] =
      tokens[((long long)x * NUM_KV_HEADS + h / kGroup) * HEAD_DIM + d];
}

// logits = einsum("qhd,hkd->hqk", q_chunk, k_exp) (bmm over heads). grid(ceil_div(max_kv_len, 128),
// ceil_div(max_q_len, 128), batch * num_qo_heads) block(256)
extern "C" __global__ void __launch_bounds__(256)
qk_gemm(float *logits, const float *q_wide, const float *k_exp, const int *qo_indptr, const int *kv_off,
        const long long *pair_off) {
  const int b = blockIdx.z / NUM_QO_HEADS, h = blockIdx.z % NUM_QO_HEADS;
  const int qs = qo_indptr[b], q_len = qo_indptr[b + 1] - qs, kv_len = kv_off[b + 1] - kv_off[b];
  const float *qa = q_wide + ((long long)qs * NUM_QO_HEADS + h) * HEAD_DIM;
  const float *kb = k_exp + ((long long)NUM_QO_HEADS * kv_off[b] + (long long)h * kv_len) * HEAD_DIM;
  float *c = logits + (long long)NUM_QO_HEADS * pair_off[b] + (long long)h * q_len * kv_len;
  gemm_tile<true>(
      q_len, kv_len, HEAD_DIM, [&](int m, int k) { return qa[(long long)m * NUM_QO_HEADS * HEAD_DIM + k]; },
      [&](int k, int n) { return kb[(long long)n * HEAD_DIM + k]; },
      [&](int m, int n, float v) { c[(long long)m * kv_len + n] = v; });
}

// einsum("hqk,hkd->qhd", attn, v_exp): the bmm's [head][token][d] fp32 result. grid(1,
// ceil_div(max_q_len, 128), batch * num_qo_heads) block(256)
extern "C" __global__ void __launch_bounds__(256)
pv_gemm(float *out, const float *attn, const float *v_exp, const int *qo_indptr, const int *kv_off,
        const long long *pair_off, int total_q) {
  const int b = blockIdx.z / NUM_QO_HEADS, h = blockIdx.z % NUM_QO_HEADS;
  const int qs = qo_indptr[b], q_len = qo_indptr[b + 1] - qs, kv_len = kv_off[b + 1] - kv_off[b];
  const float *pa = attn + (long long)NUM_QO_HEADS * pair_off[b] + (long long)h * q_len * kv_len;
  const float *vb = v_exp + ((long long)NUM_QO_HEADS * kv_off[b] + (long long)h * kv_len) * HEAD_DIM;
  float *c = out + ((long long)h * total_q + qs) * HEAD_DIM;
  gemm_tile<false>(
      q_len, HEAD_DIM, kv_len, [&](int m, int k) { return pa[(long long)m * kv_len + k]; },
      [&](int k, int n) { return vb[(long long)k * HEAD_DIM + n]; },
      [&](int m, int n, float v) { c[(long long)m * HEAD_DIM + n] = v; });
}
#else
// logits = einsum("qhd,kd->qhk", q_group, k_head): one mm per (request, KV head) of the group's rows
// [query][group head] (q_grouped: [kv head][token][group head][d]) with the KV head's keys, read in
// place from the [token][kv head][d] tokens. grid(ceil_div(max_kv_len, 128), ceil_div(max_q_len *
// group, 128), batch * num_kv_heads) block(256)
extern "C" __global__ void __launch_bounds__(256)
qk_gemm(float *logits, const float *q_grouped, const float *k_tok, const int *qo_indptr, const int *kv_off,
        const long long *pair_off, int total_q) {
  const int b = blockIdx.z / NUM_KV_HEADS, g = blockIdx.z % NUM_KV_HEADS;
  const int qs = qo_indptr[b], q_len = qo_indptr[b + 1] - qs, kv_len = kv_off[b + 1] - kv_off[b];
  const float *qa = q_grouped + ((long long)g * total_q + qs) * kGroup * HEAD_DIM;
  const float *kb = k_tok + ((long long)kv_off[b] * NUM_KV_HEADS + g) * HEAD_DIM;
  float *c = logits + (long long)NUM_QO_HEADS * pair_off[b] + (long long)g * q_len * kGroup * kv_len;
  gemm_tile<true>(
      q_len * kGroup, kv_len, HEAD_DIM, [&](int m, int k) { return qa[(long long)m * HEAD_DIM + k]; },
      [&](int k, int n) { return kb[(long long)n * NUM_KV_HEADS * HEAD_DIM + k]; },
      [&](int m, int n, float v) { c[(long long)m * kv_len + n] = v; });
}

// einsum("qhk,kd->qhd", attn, v_head): one mm per (request, KV head), written [kv head][token][group
// head][d]. grid(1, ceil_div(max_q_len * group, 128), batch * num_kv_heads) block(256)
extern "C" __global__ void __launch_bounds__(256)
pv_gemm(float *out, const float *attn, const float *v_tok, const int *qo_indptr, const int *kv_off,
        const long long *pair_off, int total_q) {
  const int b = blockIdx.z / NUM_KV_HEADS, g = blockIdx.z % NUM_KV_HEADS;
  const int qs = qo_indptr[b], q_len = qo_indptr[b + 1] - qs, kv_len = kv_off[b + 1] - kv_off[b];
  const float *pa = attn + (long long)NUM_QO_HEADS * pair_off[b] + (long long)g * q_len * kGroup * kv_len;
  const float *vb = v_tok + ((long long)kv_off[b] * NUM_KV_HEADS + g) * HEAD_DIM;
  float *c = out + ((long long)g * total_q + qs) * kGroup * HEAD_DIM;
  gemm_tile<false>(
      q_len * kGroup, HEAD_DIM, kv_len, [&](int m, int k) { return pa[(long long)m * kv_len + k]; },
      [&](int k, int n) { return vb[(long long)k * NUM_KV_HEADS * HEAD_DIM + n]; },
      [&](int m, int n, float v) { c[(long long)m * HEAD_DIM + n] = v; });
}

// [token][head][d] <-> [kv head][token][group head][d] (head = kv head * group + group head): the
// q_group.reshape copy (to_grouped = 1) and the out_chunk[:, heads] = ... copy back (to_grouped = 0).
MKB_MAP(regroup_rows, float, (const float *x, unsigned total_q, int to_grouped),
        to_grouped ? x[(((unsigned)i / HEAD_DIM % kGroup + (unsigned)i / (HEAD_DIM * kGroup * total_q) * kGroup) +
                        (unsigned)i / (HEAD_DIM * kGroup) % total_q * NUM_QO_HEADS) * HEAD_DIM + (unsigned)i % HEAD_DIM]
                   : x[(((unsigned)i / HEAD_DIM % NUM_QO_HEADS / kGroup * total_q + (unsigned)i / (HEAD_DIM * NUM_QO_HEADS)) *
                            kGroup + (unsigned)i / HEAD_DIM % kGroup) * HEAD_DIM + (unsigned)i % HEAD_DIM])
#endif

// logits * sm_scale (a new tensor in eager; in place here, the same traffic)
struct scale_op {
  float *x;
  float s;
  __device__ float load(long long i) const { return x[i] * s; }
  __device__ void store(long long i, float v) const { x[i] = v; }
};
extern "C" __global__ void scale_logits(float *x, float s, long long n) { for_each4(n, scale_op{x, s}); }

// The causal mask of every query row: bool [query][key] per request (broadcast over heads), true where
// key j is masked (j > i + delta), or, with allowed = 1, true where it is kept (j <= i + delta).
// grid(total_q) block(256)
extern "C" __global__ void causal_mask(bool *mask, const int *qo_indptr, const int *kv_off, const long long *pair_off,
                                       int batch, int allowed) {
  const logits_row r = row_of(qo_indptr, kv_off, pair_off, batch, blockIdx.x, 0);
  const int delta = r.kv_len - r.q_len;
  bool *row = mask + pair_off[r.b] + (long long)r.i * r.kv_len;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) row[j] = allowed ? j <= r.i + delta : j > r.i + delta;
}
// ~mask (a new bool tensor)
extern "C" __global__ void logical_not(bool *out, const bool *x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = !x[i];
}

// logits.masked_fill(mask, -inf), the [query][key] mask broadcast over heads; out may be logits (the
// in-place masked_fill_). grid(total_q, num_qo_heads) block(256)
extern "C" __global__ void masked_fill(float *out, const float *logits, const bool *mask, const int *qo_indptr,
                                       const int *kv_off, const long long *pair_off, int batch) {
  const logits_row r = row_of(qo_indptr, kv_off, pair_off, batch, blockIdx.x, blockIdx.y);
  const bool *m = mask + pair_off[r.b] + (long long)r.i * r.kv_len;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) out[r.base + j] = m[j] ? -inf_f() : logits[r.base + j];
}

// torch.logsumexp as PyTorch computes it: maxes = amax(x); maxes[|maxes| == inf] = 0;
// sum((x - maxes).exp_()).log_().add_(maxes). Per-row results are kept in row_global order.
// amax over keys: grid(total_q, num_qo_heads) block(256)
extern "C" __global__ void row_amax(float *out, const float *logits, const int *qo_indptr, const int *kv_off,
                                    const long long *pair_off, int batch, int total_q) {
  const logits_row r = row_of(qo_indptr, kv_off, pair_off, batch, blockIdx.x, blockIdx.y);
  float acc = -inf_f();
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) acc = mkb_ops::max_op::apply(acc, logits[r.base + j]);
  acc = mkb_ops::block_reduce<mkb_ops::max_op>(acc);
  if (threadIdx.x == 0) out[row_global(blockIdx.y, blockIdx.x, total_q)] = acc;
}
// maxes.masked_fill_(maxes.abs() == inf, 0) (three small eager ops, one launch)
MKB_MAP(finite_or_zero, float, (const float *x), fabsf(x[i]) == inf_f() ? 0.0f : x[i])
// x - maxes (a new tensor): grid(total_q, num_qo_heads) block(256)
extern "C" __global__ void sub_row_max(float *out, const float *logits, const float *maxes, const int *qo_indptr,
                                       const int *kv_off, const long long *pair_off, int batch, int total_q) {
  const logits_row r = row_of(qo_indptr, kv_off, pair_off, batch, blockIdx.x, blockIdx.y);
  const float mx = maxes[row_global(blockIdx.y, blockIdx.x, total_q)];
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) out[r.base + j] = logits[r.base + j] - mx;
}
// .exp_() (in place)
struct exp_op {
  float *x;
  __device__ float load(long long i) const { return expf(x[i]); }
  __device__ void store(long long i, float v) const { x[i] = v; }
};
extern "C" __global__ void exp_inplace(float *x, long long n) { for_each4(n, exp_op{x}); }
// sum over keys: grid(total_q, num_qo_heads) block(256)
extern "C" __global__ void row_sum(float *out, const float *x, const int *qo_indptr, const int *kv_off,
                                   const long long *pair_off, int batch, int total_q) {
  const logits_row r = row_of(qo_indptr, kv_off, pair_off, batch, blockIdx.x, blockIdx.y);
  float acc = 0.0f;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) acc += x[r.base + j];
  acc = mkb_ops::block_reduce<mkb_ops::sum_op>(acc);
  if (threadIdx.x == 0) out[row_global(blockIdx.y, blockIdx.x, total_q)] = acc;
}
// .log_(); .add_(maxes) (in place in eager; new buffers here, the same traffic); / math.log(2.0)
MKB_MAP(log_map, float, (const float *x), logf(x[i]))
MKB_MAP(add_map, float, (const float *x, const float *y), x[i] + y[i])
MKB_MAP(div_map, float, (const float *x, float y), x[i] / y)
// per-row results from row_global order to [token][head] (the lse slice assignment)
MKB_MAP(rows_to_token_major, float, (const float *x, unsigned total_q),
        x[row_global((unsigned)i % NUM_QO_HEADS, (unsigned)i / NUM_QO_HEADS, total_q)])

// attn = torch.softmax(logits, dim=-1) (a new tensor; PyTorch's exp(x - max) / sum).
// grid(total_q, num_qo_heads) block(256)
extern "C" __global__ void softmax_rows(float *out, const float *logits, const int *qo_indptr, const int *kv_off,
                                        const long long *pair_off, int batch) {
  const logits_row r = row_of(qo_indptr, kv_off, pair_off, batch, blockIdx.x, blockIdx.y);
  const float *x = logits + r.base;
  float mx = -inf_f();
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) mx = fmaxf(mx, x[j]);
  mx = mkb_ops::block_reduce<mkb_ops::max_op>(mx);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) sum += expf(x[j] - mx);
  sum = mkb_ops::block_reduce<mkb_ops::sum_op>(sum);
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) out[r.base + j] = expf(x[j] - mx) / sum;
}

// [head][token][d] -> [token][head][d] (the output slice assignment of the hqk form)
MKB_MAP(heads_to_token_major, bf16, (const bf16 *x, unsigned total_q),
        x[(((unsigned)i / HEAD_DIM % NUM_QO_HEADS) * total_q + (unsigned)i / (HEAD_DIM * NUM_QO_HEADS)) * HEAD_DIM +
          (unsigned)i % HEAD_DIM])

/* mkb:plan
scratch kv_off int32[batch_size + 1]
scratch pair_off int64[batch_size + 1]
scratch q_wide fp32[total_q * num_qo_heads * head_dim]
scratch k_rows bf16[total_kv_tokens * num_kv_heads * head_dim]
scratch v_rows bf16[total_kv_tokens * num_kv_heads * head_dim]
scratch k_part fp32[total_kv_tokens * num_kv_heads * head_dim]
scratch v_part fp32[total_kv_tokens * num_kv_heads * head_dim]
scratch k_tok fp32[total_kv_tokens * num_kv_heads * head_dim]
scratch v_tok fp32[total_kv_tokens * num_kv_heads * head_dim]
scratch logits fp32[attn_pairs * num_qo_heads]
scratch work fp32[attn_pairs * num_qo_heads]
scratch mask bool[attn_pairs]
scratch amax_raw fp32[total_q * num_qo_heads]
scratch maxes fp32[total_q * num_qo_heads]
scratch sums fp32[total_q * num_qo_heads]
scratch logs fp32[total_q * num_qo_heads]
scratch lsum fp32[total_q * num_qo_heads]
scratch lse_rows fp32[total_q * num_qo_heads]
scratch out_f fp32[total_q * num_qo_heads * head_dim]
scratch out_b bf16[total_q * num_qo_heads * head_dim]
scratch k_exp fp32[total_kv_tokens * num_qo_heads * head_dim]
scratch v_exp fp32[total_kv_tokens * num_qo_heads * head_dim]
# output = zeros; lse = full(-inf); q_wide = q.to(fp32)
launch fill_bf16 grid(ceil_div(total_q * num_qo_heads * head_dim, 1024)) block(256) args(output, f32(0), i64(total_q * num_qo_heads * head_dim))
launch fill_inf grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse, f32(-1), i64(total_q * num_qo_heads))
launch to_fp32 grid(ceil_div(total_q * num_qo_heads * head_dim, 1024)) block(256) args(q_wide, q, i64(total_q * num_qo_heads * head_dim))
launch request_table grid(1) block(32) args(kv_off, pair_off, qo_indptr, kv_indptr, kv_last_page_len, i32(batch_size))
# k_tokens = cat([k_cache[page_ids[:-1]].to(fp32), k_cache[page_ids[-1], :last_len].to(fp32)]); v likewise
launch gather_tokens grid(total_kv_tokens) block(256) args(k_rows, k_cache, kv_indptr, kv_indices, kv_off, i32(batch_size), i32(0))
launch tokens_to_fp32 grid(total_kv_tokens) block(256) args(k_part, k_rows, kv_indptr, kv_off, i32(batch_size), i32(0))
launch gather_tokens grid(total_kv_tokens) block(256) args(k_rows, k_cache, kv_indptr, kv_indices, kv_off, i32(batch_size), i32(1))
launch tokens_to_fp32 grid(total_kv_tokens) block(256) args(k_part, k_rows, kv_indptr, kv_off, i32(batch_size), i32(1))
launch cat_tokens grid(total_kv_tokens) block(256) args(k_tok, k_part, k_part, kv_indptr, kv_off, i32(batch_size))
launch gather_tokens grid(total_kv_tokens) block(256) args(v_rows, v_cache, kv_indptr, kv_indices, kv_off, i32(batch_size), i32(0))
launch tokens_to_fp32 grid(total_kv_tokens) block(256) args(v_part, v_rows, kv_indptr, kv_off, i32(batch_size), i32(0))
launch gather_tokens grid(total_kv_tokens) block(256) args(v_rows, v_cache, kv_indptr, kv_indices, kv_off, i32(batch_size), i32(1))
launch tokens_to_fp32 grid(total_kv_tokens) block(256) args(v_part, v_rows, kv_indptr, kv_off, i32(batch_size), i32(1))
launch cat_tokens grid(total_kv_tokens) block(256) args(v_tok, v_part, v_part, kv_indptr, kv_off, i32(batch_size))
# k_tokens.permute(1, 0, 2).repeat_interleave(16); v likewise
launch repeat_heads grid(total_kv_tokens, num_qo_heads) block(head_dim) args(k_exp, k_tok, kv_off, i32(batch_size))
launch repeat_heads grid(total_kv_tokens, num_qo_heads) block(head_dim) args(v_exp, v_tok, kv_off, i32(batch_size))
# per chunk: logits = einsum(...) * sm_scale; mask; masked_fill_
launch qk_gemm grid(ceil_div(max_kv_len, 128), ceil_div(max_q_len, 128), batch_size * num_qo_heads) block(256)
  args(logits, q_wide, k_exp, qo_indptr, kv_off, pair_off)
launch scale_logits grid(ceil_div(attn_pairs * num_qo_heads, 1024)) block(256) args(logits, f32(sm_scale), i64(attn_pairs * num_qo_heads))
launch causal_mask grid(total_q) block(256) args(mask, qo_indptr, kv_off, pair_off, i32(batch_size), i32(0))
launch masked_fill grid(total_q, num_qo_heads) block(256) args(logits, logits, mask, qo_indptr, kv_off, pair_off, i32(batch_size))
# lse = (logsumexp(logits) / ln 2).permute(1, 0)
launch row_amax grid(total_q, num_qo_heads) block(256) args(amax_raw, logits, qo_indptr, kv_off, pair_off, i32(batch_size), i32(total_q))
launch finite_or_zero grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(maxes, amax_raw, i64(total_q * num_qo_heads))
launch sub_row_max grid(total_q, num_qo_heads) block(256) args(work, logits, maxes, qo_indptr, kv_off, pair_off, i32(batch_size), i32(total_q))
launch exp_inplace grid(ceil_div(attn_pairs * num_qo_heads, 1024)) block(256) args(work, i64(attn_pairs * num_qo_heads))
launch row_sum grid(total_q, num_qo_heads) block(256) args(sums, work, qo_indptr, kv_off, pair_off, i32(batch_size), i32(total_q))
launch log_map grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(logs, sums, i64(total_q * num_qo_heads))
launch add_map grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lsum, logs, maxes, i64(total_q * num_qo_heads))
launch div_map grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse_rows, lsum, f32(0.6931471805599453), i64(total_q * num_qo_heads))
launch rows_to_token_major grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse, lse_rows, u32(total_q), i64(total_q * num_qo_heads))
# output = einsum(softmax(logits), v_exp).to(bf16)
launch softmax_rows grid(total_q, num_qo_heads) block(256) args(work, logits, qo_indptr, kv_off, pair_off, i32(batch_size))
launch pv_gemm grid(1, ceil_div(max_q_len, 128), batch_size * num_qo_heads) block(256)
  args(out_f, work, v_exp, qo_indptr, kv_off, pair_off, i32(total_q))
launch to_bf16 grid(ceil_div(total_q * num_qo_heads * head_dim, 1024)) block(256) args(out_b, out_f, i64(total_q * num_qo_heads * head_dim))
launch heads_to_token_major grid(ceil_div(total_q * num_qo_heads * head_dim, 1024)) block(256)
  args(output, out_b, u32(total_q), i64(total_q * num_qo_heads * head_dim))
*/
