// The eager baseline: the device work of the original's reference(), one launch per eager operation at
// eager's dtypes (fp32 intermediates, bool masks, int64 positions). The original loops over requests
// in Python (with .item() host syncs); a plan has no loops, so each operation of the loop body runs
// once for all 71 requests, every request's tensors laid out one after another exactly as eager
// allocates them per request (logits of request b: [num_qo_heads, q_len, kv_len], contiguous).
// The two einsums are cuBLAS fp32 GEMMs in eager; a matmul step cannot take ragged batches, so a
// tiled fp32 GEMM kernel (fp32 accumulation, no TF32) stands for them.
#include "mkb_ops.cuh"

namespace mkb_ops {
template <> struct store_as<long long> {
  __device__ static long long from(long long v) { return v; }
};
template <> struct store_as<unsigned char> {
  __device__ static unsigned char from(bool v) { return v ? 1 : 0; }
};
} // namespace mkb_ops

namespace {

constexpr int kQoHeads = 16, kKvHeads = 2, kQkDim = 128, kVoDim = 128;
constexpr int kTile = 64, kTileK = 16;
constexpr int kMaxRequests = 128;

__device__ __forceinline__ float inf_f32() { return __int_as_float(0x7f800000); }

// The last b in [0, batch) with indptr[b] <= t: the request that holds row t.
__device__ int request_of(const int *indptr, int batch, long long t) {
  int lo = 0, hi = batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (indptr[mid] <= t) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// Per-request offsets, written once by ragged_meta: meta[f * (batch + 1) + b] for field f.
enum { kLogitsOff = 0, kMaskOff = 1, kGemm1Tiles = 2, kGemm2Tiles = 3, kFields = 4 };

struct Request {
  int b, qs, q_len, ks, kv_len;
  long long logits_off, mask_off;
};

__device__ Request request_at(const int *qo_indptr, const int *kv_indptr, const long long *meta, int batch, int b) {
  Request r;
  r.b = b;
  r.qs = qo_indptr[b];
  r.q_len = qo_indptr[b + 1] - r.qs;
  r.ks = kv_indptr[b];
  r.kv_len = kv_indptr[b + 1] - r.ks;
  r.logits_off = meta[kLogitsOff * (batch + 1) + b];
  r.mask_off = meta[kMaskOff * (batch + 1) + b];
  return r;
}

// The last b with prefix[b] <= t, over a prefix array of batch + 1 entries.
__device__ int search_prefix(const long long *prefix, int batch, long long t) {
  int lo = 0, hi = batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (prefix[mid] <= t) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// One 64 x 64 tile of C = A B in fp32: A is M x K with K contiguous (row stride lda); B is N x K with
// K contiguous when b_nk, else K x N with N contiguous (row stride ldb); C row stride ldc.
template <bool b_nk>
__device__ void gemm_tile(const float *A, long long lda, const float *B, long long ldb, float *C, long long ldc, int M,
                          int N, int K, int m0, int n0) {
  __shared__ __align__(16) float As[kTileK][kTile + 4];
  __shared__ __align__(16) float Bs[kTileK][kTile + 4];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  float acc[4][4];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[r][c] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTileK) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int idx = tid + e * 256, r = idx / kTileK, kk = idx % kTileK;
      As[kk][r] = (m0 + r < M && k0 + kk < K) ? A[(long long)(m0 + r) * lda + k0 + kk] : 0.0f;
      if (b_nk) {
        Bs[kk][r] = (n0 + r < N && k0 + kk < K) ? B[(long long)(n0 + r) * ldb + k0 + kk] : 0.0f;
      } else {
        const int kb = idx / kTile, c = idx % kTile;
        Bs[kb][c] = (k0 + kb < K && n0 + c < N) ? B[(long long)(k0 + kb) * ldb + n0 + c] : 0.0f;
      }
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      const float4 a = *reinterpret_cast<const float4 *>(&As[kk][ty * 4]);
      const float4 b = *reinterpret_cast<const float4 *>(&Bs[kk][tx * 4]);
      const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = fmaf(av[r], bv[c], acc[r][c]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int row = m0 + ty * 4 + r, col = n0 + tx * 4 + c;
      if (row < M && col < N) C[(long long)row * ldc + col] = acc[r][c];
    }
}

} // namespace

// Bookkeeping (the host's .item() reads in eager): per-request offsets of the batched intermediates.
extern "C" __global__ void ragged_meta(long long *meta, const int *qo_indptr, const int *kv_indptr, int batch) {
  __shared__ long long counts[kFields][kMaxRequests];
  const int b = threadIdx.x;
  if (batch > kMaxRequests) __trap();
  if (b < batch) {
    const long long q_len = qo_indptr[b + 1] - qo_indptr[b], kv_len = kv_indptr[b + 1] - kv_indptr[b];
    counts[kLogitsOff][b] = kQoHeads * q_len * kv_len;
    counts[kMaskOff][b] = q_len * kv_len;
    counts[kGemm1Tiles][b] = kQoHeads * ((q_len + kTile - 1) / kTile) * ((kv_len + kTile - 1) / kTile);
    counts[kGemm2Tiles][b] = kQoHeads * ((q_len + kTile - 1) / kTile) * ((kVoDim + kTile - 1) / kTile);
  }
  __syncthreads();
  if (b <= batch) {
    for (int f = 0; f < kFields; ++f) {
      long long sum = 0;
      for (int x = 0; x < b; ++x) sum += counts[f][x];
      meta[f * (batch + 1) + b] = sum;
    }
  }
}

// output = torch.zeros(...), lse = torch.full(..., -inf)
MKB_MAP(fill_bf16, bf16, (float value), value)
MKB_MAP(fill_inf_f32, float, (float sign), sign * inf_f32())
// q_wide, k_wide, v_wide = .to(float32)
MKB_MAP(to_fp32, float, (const bf16 *s), f32(s[i]))
// k_batch.repeat_interleave(group, dim=1) (the same for v): [kv, kv_heads, dim] -> [kv, qo_heads, dim]
MKB_MAP(repeat_heads, float, (const float *s, unsigned dim, unsigned group),
        s[(long long)((unsigned)i / (dim * group)) * dim + (unsigned)i % dim])

// logits = einsum("qhd,khd->qhk", q_batch, k_expanded): per request and head, [q_len, kv_len].
extern "C" __global__ void __launch_bounds__(256)
qk_gemm(float *logits, const float *q_wide, const float *k_exp, const int *qo_indptr, const int *kv_indptr,
        const long long *meta, int batch) {
  const long long *prefix = meta + kGemm1Tiles * (batch + 1);
  const long long tile = blockIdx.x;
  if (tile >= prefix[batch]) return;
  const int b = search_prefix(prefix, batch, tile);
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, b);
  const int mt = (r.q_len + kTile - 1) / kTile, nt = (r.kv_len + kTile - 1) / kTile;
  const long long local = tile - prefix[b];
  const int h = (int)(local / (mt * nt)), rem = (int)(local % (mt * nt));
  gemm_tile<true>(q_wide + ((long long)r.qs * kQoHeads + h) * kQkDim, (long long)kQoHeads * kQkDim,
                  k_exp + ((long long)r.ks * kQoHeads + h) * kQkDim, (long long)kQoHeads * kQkDim,
                  logits + r.logits_off + (long long)h * r.q_len * r.kv_len, r.kv_len, r.q_len, r.kv_len, kQkDim,
                  (rem / nt) * kTile, (rem % nt) * kTile);
}

// logits * sm_scale
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)

// q_positions = arange(q_len), kv_positions = arange(kv_len), per request (int64)
extern "C" __global__ void arange_per_request(long long *out, const int *indptr, int batch, long long n) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = t - indptr[request_of(indptr, batch, t)];
}
// q_positions[:, None] + 1
MKB_MAP(add_i64, long long, (const long long *x, long long c), x[i] + c)
// (...) + delta, delta = kv_len - q_len of the row's request
extern "C" __global__ void add_delta(long long *out, const long long *x, const int *qo_indptr, const int *kv_indptr,
                                     int batch, long long n) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    const int b = request_of(qo_indptr, batch, t);
    out[t] = x[t] + ((kv_indptr[b + 1] - kv_indptr[b]) - (qo_indptr[b + 1] - qo_indptr[b]));
  }
}
// causal_mask = kv_positions[None, :] < (...)[:, None]: bool [q_len, kv_len] per request; one block per query row
extern "C" __global__ void causal_mask(unsigned char *mask, const long long *kv_pos, const long long *q_lim,
                                       const int *qo_indptr, const int *kv_indptr, const long long *meta, int batch) {
  const long long t = blockIdx.x;
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, request_of(qo_indptr, batch, t));
  const long long base = r.mask_off + (t - r.qs) * r.kv_len;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) mask[base + j] = kv_pos[r.ks + j] < q_lim[t];
}
// ~causal_mask
MKB_MAP(logical_not, unsigned char, (const unsigned char *m), !m[i])
// logits.masked_fill(...) = clone, then masked_fill_
MKB_MAP(copy_f32, float, (const float *x), x[i])
// masked_fill_(~mask[:, None, :], -inf): one block per (query row, head)
extern "C" __global__ void masked_fill_rows(float *x, const unsigned char *not_mask, const int *qo_indptr,
                                            const int *kv_indptr, const long long *meta, int batch) {
  const long long t = blockIdx.x;
  const int h = blockIdx.y;
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, request_of(qo_indptr, batch, t));
  const long long i = t - r.qs;
  float *row = x + r.logits_off + ((long long)h * r.q_len + i) * r.kv_len;
  const unsigned char *m = not_mask + r.mask_off + i * r.kv_len;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) row[j] = m[j] ? -inf_f32() : row[j];
}

// logsumexp(logits, -1) as eager runs it: maxes = amax(x, -1); maxes[|maxes| == inf] = 0;
// sum(exp(x - maxes), -1); log; + maxes. Row reductions write [token, head] (t * heads + h).
extern "C" __global__ void row_max(float *out, const float *x, const int *qo_indptr, const int *kv_indptr,
                                   const long long *meta, int batch) {
  const long long t = blockIdx.x;
  const int h = blockIdx.y;
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, request_of(qo_indptr, batch, t));
  const float *row = x + r.logits_off + ((long long)h * r.q_len + (t - r.qs)) * r.kv_len;
  float acc = -inf_f32();
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) acc = mkb_ops::max_op::apply(acc, row[j]);
  acc = mkb_ops::block_reduce<mkb_ops::max_op>(acc);
  if (threadIdx.x == 0) out[t * kQoHeads + h] = acc;
}
MKB_MAP(abs_f32, float, (const float *x), fabsf(x[i]))
MKB_MAP(eq_inf, unsigned char, (const float *x), x[i] == inf_f32())
MKB_MAP(zero_where, float, (const float *x, const unsigned char *m), m[i] ? 0.0f : x[i])
// x - maxes (maxes broadcast along the row)
extern "C" __global__ void sub_row(float *out, const float *x, const float *maxes, const int *qo_indptr,
                                   const int *kv_indptr, const long long *meta, int batch) {
  const long long t = blockIdx.x;
  const int h = blockIdx.y;
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, request_of(qo_indptr, batch, t));
  const long long base = r.logits_off + ((long long)h * r.q_len + (t - r.qs)) * r.kv_len;
  const float m = maxes[t * kQoHeads + h];
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) out[base + j] = x[base + j] - m;
}
MKB_MAP(exp_f32, float, (const float *x), expf(x[i]))
extern "C" __global__ void row_sum(float *out, const float *x, const int *qo_indptr, const int *kv_indptr,
                                   const long long *meta, int batch) {
  const long long t = blockIdx.x;
  const int h = blockIdx.y;
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, request_of(qo_indptr, batch, t));
  const float *row = x + r.logits_off + ((long long)h * r.q_len + (t - r.qs)) * r.kv_len;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) acc += row[j];
  acc = mkb_ops::block_reduce<mkb_ops::sum_op>(acc);
  if (threadIdx.x == 0) out[t * kQoHeads + h] = acc;
}
MKB_MAP(log_f32, float, (const float *x), logf(x[i]))
MKB_MAP(add_f32, float, (const float *a, const float *b), a[i] + b[i])
// / math.log(2.0): eager divides by a scalar as a product with its fp32 reciprocal
MKB_MAP(div_ln2, float, (const float *x), x[i] * (1.0f / (float)0.6931471805599453))
// lse[q_start:q_end] = lse_batch
// (copy_f32 above)

// softmax(logits, -1) in fp32: max, sum of exp(x - max), exp(x - max) / sum
extern "C" __global__ void softmax_rows(float *out, const float *x, const int *qo_indptr, const int *kv_indptr,
                                        const long long *meta, int batch) {
  const long long t = blockIdx.x;
  const int h = blockIdx.y;
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, request_of(qo_indptr, batch, t));
  const long long base = r.logits_off + ((long long)h * r.q_len + (t - r.qs)) * r.kv_len;
  float m = -inf_f32();
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) m = mkb_ops::max_op::apply(m, x[base + j]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  float s = 0.0f;
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) s += expf(x[base + j] - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int j = threadIdx.x; j < r.kv_len; j += blockDim.x) out[base + j] = expf(x[base + j] - m) / s;
}

// output_batch = einsum("qhk,khd->qhd", attn, v_expanded): per request and head, [q_len, vo_dim],
// laid out [heads, q_len, vo_dim] per request from row qs * heads * vo_dim on.
extern "C" __global__ void __launch_bounds__(256)
pv_gemm(float *out, const float *attn, const float *v_exp, const int *qo_indptr, const int *kv_indptr,
        const long long *meta, int batch) {
  const long long *prefix = meta + kGemm2Tiles * (batch + 1);
  const long long tile = blockIdx.x;
  if (tile >= prefix[batch]) return;
  const int b = search_prefix(prefix, batch, tile);
  const Request r = request_at(qo_indptr, kv_indptr, meta, batch, b);
  const int mt = (r.q_len + kTile - 1) / kTile, nt = (kVoDim + kTile - 1) / kTile;
  const long long local = tile - prefix[b];
  const int h = (int)(local / (mt * nt)), rem = (int)(local % (mt * nt));
  gemm_tile<false>(attn + r.logits_off + (long long)h * r.q_len * r.kv_len, r.kv_len,
                   v_exp + ((long long)r.ks * kQoHeads + h) * kVoDim, (long long)kQoHeads * kVoDim,
                   out + ((long long)r.qs * kQoHeads + (long long)h * r.q_len) * kVoDim, kVoDim, r.q_len, kVoDim,
                   r.kv_len, (rem / nt) * kTile, (rem % nt) * kTile);
}

// .to(bfloat16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
// output[q_start:q_end] = ...: [heads, q_len, dim] per request -> [token, heads, dim]
extern "C" __global__ void scatter_output(bf16 *output, const bf16 *x, const int *qo_indptr, int batch) {
  const long long t = blockIdx.x;
  const int h = blockIdx.y;
  const int b = request_of(qo_indptr, batch, t);
  const int qs = qo_indptr[b], q_len = qo_indptr[b + 1] - qs;
  const bf16 *src = x + ((long long)qs * kQoHeads + (long long)h * q_len + (t - qs)) * kVoDim;
  bf16 *dst = output + (t * kQoHeads + h) * kVoDim;
  for (int d = threadIdx.x; d < kVoDim; d += blockDim.x) dst[d] = src[d];
}

/* mkb:plan
scratch meta int64[4 * (batch_size + 1)]
scratch q_wide fp32[total_q * num_qo_heads * head_dim]
scratch k_wide fp32[total_kv * num_kv_heads * head_dim]
scratch v_wide fp32[total_kv * num_kv_heads * head_dim]
scratch k_exp fp32[total_kv * num_qo_heads * head_dim]
scratch v_exp fp32[total_kv * num_qo_heads * head_dim]
scratch buf_a fp32[num_qo_heads * qk_pairs]
scratch buf_b fp32[num_qo_heads * qk_pairs]
scratch buf_c fp32[num_qo_heads * qk_pairs]
scratch buf_d fp32[num_qo_heads * qk_pairs]
scratch q_pos int64[total_q]
scratch kv_pos int64[total_kv]
scratch q_pos1 int64[total_q]
scratch q_lim int64[total_q]
scratch mask uint8[qk_pairs]
scratch not_mask uint8[qk_pairs]
scratch maxes fp32[total_q * num_qo_heads]
scratch abs_maxes fp32[total_q * num_qo_heads]
scratch inf_maxes uint8[total_q * num_qo_heads]
scratch maxes0 fp32[total_q * num_qo_heads]
scratch sums fp32[total_q * num_qo_heads]
scratch logs fp32[total_q * num_qo_heads]
scratch lse_e fp32[total_q * num_qo_heads]
scratch lse_b fp32[total_q * num_qo_heads]
scratch out_f32 fp32[total_q * num_qo_heads * head_dim]
scratch out_bf16 bf16[total_q * num_qo_heads * head_dim]
launch ragged_meta grid(1) block(128) args(meta, qo_indptr, kv_indptr, i32(batch_size))
launch fill_bf16 grid(ceil_div(total_q * num_qo_heads * head_dim, 1024)) block(256)
  args(output, f32(0), i64(total_q * num_qo_heads * head_dim))
launch fill_inf_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse, f32(-1), i64(total_q * num_qo_heads))
launch to_fp32 grid(ceil_div(total_q * num_qo_heads * head_dim, 1024)) block(256) args(q_wide, q, i64(total_q * num_qo_heads * head_dim))
launch to_fp32 grid(ceil_div(total_kv * num_kv_heads * head_dim, 1024)) block(256) args(k_wide, k, i64(total_kv * num_kv_heads * head_dim))
launch to_fp32 grid(ceil_div(total_kv * num_kv_heads * head_dim, 1024)) block(256) args(v_wide, v, i64(total_kv * num_kv_heads * head_dim))
launch repeat_heads grid(ceil_div(total_kv * num_qo_heads * head_dim, 1024)) block(256)
  args(k_exp, k_wide, u32(head_dim), u32(num_qo_heads / num_kv_heads), i64(total_kv * num_qo_heads * head_dim))
launch repeat_heads grid(ceil_div(total_kv * num_qo_heads * head_dim, 1024)) block(256)
  args(v_exp, v_wide, u32(head_dim), u32(num_qo_heads / num_kv_heads), i64(total_kv * num_qo_heads * head_dim))
launch qk_gemm grid(num_qo_heads * (ceil_div(qk_pairs, 4096) + ceil_div(total_q, 64) + ceil_div(total_kv, 64) + batch_size)) block(256)
  args(buf_a, q_wide, k_exp, qo_indptr, kv_indptr, meta, i32(batch_size))
launch mul_scalar grid(ceil_div(num_qo_heads * qk_pairs, 1024)) block(256) args(buf_b, buf_a, f32(sm_scale), i64(num_qo_heads * qk_pairs))
launch arange_per_request grid(ceil_div(total_q, 256)) block(256) args(q_pos, qo_indptr, i32(batch_size), i64(total_q))
launch arange_per_request grid(ceil_div(total_kv, 256)) block(256) args(kv_pos, kv_indptr, i32(batch_size), i64(total_kv))
launch add_i64 grid(ceil_div(total_q, 1024)) block(256) args(q_pos1, q_pos, i64(1), i64(total_q))
launch add_delta grid(ceil_div(total_q, 256)) block(256) args(q_lim, q_pos1, qo_indptr, kv_indptr, i32(batch_size), i64(total_q))
launch causal_mask grid(total_q) block(256) args(mask, kv_pos, q_lim, qo_indptr, kv_indptr, meta, i32(batch_size))
launch logical_not grid(ceil_div(qk_pairs, 1024)) block(256) args(not_mask, mask, i64(qk_pairs))
launch copy_f32 grid(ceil_div(num_qo_heads * qk_pairs, 1024)) block(256) args(buf_c, buf_b, i64(num_qo_heads * qk_pairs))
launch masked_fill_rows grid(total_q, num_qo_heads) block(256) args(buf_c, not_mask, qo_indptr, kv_indptr, meta, i32(batch_size))
launch row_max grid(total_q, num_qo_heads) block(256) args(maxes, buf_c, qo_indptr, kv_indptr, meta, i32(batch_size))
launch abs_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(abs_maxes, maxes, i64(total_q * num_qo_heads))
launch eq_inf grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(inf_maxes, abs_maxes, i64(total_q * num_qo_heads))
launch zero_where grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(maxes0, maxes, inf_maxes, i64(total_q * num_qo_heads))
launch sub_row grid(total_q, num_qo_heads) block(256) args(buf_d, buf_c, maxes0, qo_indptr, kv_indptr, meta, i32(batch_size))
launch exp_f32 grid(ceil_div(num_qo_heads * qk_pairs, 1024)) block(256) args(buf_a, buf_d, i64(num_qo_heads * qk_pairs))
launch row_sum grid(total_q, num_qo_heads) block(256) args(sums, buf_a, qo_indptr, kv_indptr, meta, i32(batch_size))
launch log_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(logs, sums, i64(total_q * num_qo_heads))
launch add_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse_e, logs, maxes0, i64(total_q * num_qo_heads))
launch div_ln2 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse_b, lse_e, i64(total_q * num_qo_heads))
launch copy_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse, lse_b, i64(total_q * num_qo_heads))
launch softmax_rows grid(total_q, num_qo_heads) block(256) args(buf_b, buf_c, qo_indptr, kv_indptr, meta, i32(batch_size))
launch pv_gemm grid(num_qo_heads * (head_dim / 64) * (ceil_div(total_q, 64) + batch_size)) block(256)
  args(out_f32, buf_b, v_exp, qo_indptr, kv_indptr, meta, i32(batch_size))
launch to_bf16 grid(ceil_div(total_q * num_qo_heads * head_dim, 1024)) block(256) args(out_bf16, out_f32, i64(total_q * num_qo_heads * head_dim))
launch scatter_output grid(total_q, num_qo_heads) block(128) args(output, out_bf16, qo_indptr, i32(batch_size))
*/
