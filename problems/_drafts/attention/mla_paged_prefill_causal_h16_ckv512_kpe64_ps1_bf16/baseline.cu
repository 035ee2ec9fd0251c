// The eager baseline: the device work of the original's reference(), one launch per eager operation at
// eager's dtypes (fp32 from the gathered caches on). The original loops in Python over the 28
// sequences and, inside, over each sequence's query tokens (1954 in all), with .item() host syncs; a
// plan has no loops, so each per-sequence or per-query operation runs once here over all of them
// (grids over queries, rows or flat tiles, extents read from qo_indptr and kv_indptr on the device).
// Query q = qo_indptr[s] + i of sequence s owns a [16, kv_len_s] block of logits, as eager computes it
// (the full KV row, then masked): these blocks lie one after another in query order, query q's at
// 16 * off(q) with off(q) = sum over earlier sequences of q_len * kv_len, plus i * kv_len_s; head h's
// row at + h * kv_len_s. The two products per query that eager sends to cuBLAS (M = 16 rows, one per
// head) are batched fp32 kernels here, since their extents differ per sequence (a matmul step needs
// one shape). eager.py keeps the loops; speedup_vs_eager is the comparable figure.
#include "mkb_ops.cuh"

#define kInf (__int_as_float(0x7f800000))

namespace {
constexpr int kHeads = 16, kCkv = 512;

struct Query {
  int seq, i, q_len, kv_len;
  long long off;  // offset of the query's per-position arrays; its logits start at kHeads * off
};

__device__ Query query_of(int q, const int *qo_indptr, const int *kv_indptr, int batch) {
  long long acc = 0;
  int s = 0;
  while (s + 1 < batch && qo_indptr[s + 1] <= q) {
    acc += (long long)(qo_indptr[s + 1] - qo_indptr[s]) * (kv_indptr[s + 1] - kv_indptr[s]);
    ++s;
  }
  Query r;
  r.seq = s;
  r.i = q - qo_indptr[s];
  r.q_len = qo_indptr[s + 1] - qo_indptr[s];
  r.kv_len = kv_indptr[s + 1] - kv_indptr[s];
  r.off = acc + (long long)r.i * r.kv_len;
  return r;
}

// Row r = (query q, head h) of the logits: offset and length.
__device__ void row_of(int r, const int *qo_indptr, const int *kv_indptr, int batch, long long &off, int &len) {
  const Query x = query_of(r / kHeads, qo_indptr, kv_indptr, batch);
  len = x.kv_len;
  off = (long long)kHeads * x.off + (long long)(r % kHeads) * x.kv_len;
}

// Flat tile c of 64 KV positions of one query: false past the last.
__device__ bool locate_tile(const int *qo_indptr, const int *kv_indptr, int batch, int c, int &q, int &begin, int &end) {
  int acc = 0;
  for (int s = 0; s < batch; ++s) {
    const int q_len = qo_indptr[s + 1] - qo_indptr[s], kv_len = kv_indptr[s + 1] - kv_indptr[s];
    const int per_query = (kv_len + 63) / 64, n = q_len * per_query;
    if (c < acc + n) {
      q = qo_indptr[s] + (c - acc) / per_query;
      begin = ((c - acc) % per_query) * 64;
      end = min(kv_len, begin + 64);
      return true;
    }
    acc += n;
  }
  return false;
}
} // namespace

// output = torch.zeros(...) (bf16); lse = torch.full(..., -inf) (fp32)
MKB_MAP(fill_bf16, bf16, (float v), v)
MKB_MAP(fill_neg_inf, float, (int unused), -kInf)
// tok_idx = kv_indices[...].to(torch.long)
extern "C" __global__ void to_long(long long *__restrict__ out, const int *__restrict__ x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[i];
}
// Kc_all[tok_idx], Kp_all[tok_idx]: row gathers (bf16)
MKB_MAP(gather_rows_512, bf16, (const bf16 *src, const long long *idx), f32(src[idx[i >> 9] * 512 + (i & 511)]))
MKB_MAP(gather_rows_64, bf16, (const bf16 *src, const long long *idx), f32(src[idx[i >> 6] * 64 + (i & 63)]))
// .to(compute_dtype)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// logits = (qn @ Kc.T) + (qp @ Kp.T); logits_scaled = logits * sm_scale
MKB_MAP(add_f32, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(mul_scalar, float, (const float *a, float s), a[i] * s)
// causal_mask = torch.arange(kv_len) > query_abs_pos, one block per query
extern "C" __global__ void arange_per_query(long long *__restrict__ out, const int *__restrict__ qo_indptr,
                                            const int *__restrict__ kv_indptr, int batch) {
  const Query x = query_of(blockIdx.x, qo_indptr, kv_indptr, batch);
  for (int p = threadIdx.x; p < x.kv_len; p += blockDim.x) out[x.off + p] = p;
}
extern "C" __global__ void gt_abs_pos(bool *__restrict__ out, const long long *__restrict__ ar, const int *__restrict__ qo_indptr,
                                      const int *__restrict__ kv_indptr, int batch) {
  const Query x = query_of(blockIdx.x, qo_indptr, kv_indptr, batch);
  const long long abs_pos = (long long)(x.kv_len - x.q_len) + x.i;
  for (int p = threadIdx.x; p < x.kv_len; p += blockDim.x) out[x.off + p] = ar[x.off + p] > abs_pos;
}
// logits_scaled.masked_fill_(causal_mask.unsqueeze(0), -inf), one block per (query, head) row
extern "C" __global__ void row_masked_fill(float *__restrict__ out, const float *__restrict__ x, const bool *__restrict__ mask,
                                           const int *__restrict__ qo_indptr, const int *__restrict__ kv_indptr, int batch) {
  const Query q = query_of(blockIdx.x / kHeads, qo_indptr, kv_indptr, batch);
  const long long off = (long long)kHeads * q.off + (long long)(blockIdx.x % kHeads) * q.kv_len;
  for (int p = threadIdx.x; p < q.kv_len; p += blockDim.x) out[off + p] = mask[q.off + p] ? -kInf : x[off + p];
}
// logsumexp's pieces (at::logsumexp): maxes = amax; maxes.masked_fill_(maxes.abs() == inf, 0);
// sum((x - maxes).exp_()); .log_().add_(maxes); then / log(2); then lse[q] = ...
MKB_MAP(abs_f32, float, (const float *a), fabsf(a[i]))
extern "C" __global__ void eq_inf(bool *__restrict__ out, const float *__restrict__ a, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = a[i] == kInf;
}
MKB_MAP(masked_fill_zero, float, (const float *a, const bool *mask), mask[i] ? 0.0f : a[i])
MKB_MAP(exp_f32, float, (const float *a), expf(a[i]))
MKB_MAP(log_f32, float, (const float *a), logf(a[i]))
MKB_MAP(div_scalar, float, (const float *a, float s), a[i] / s)
MKB_MAP(copy_f32, float, (const float *a), a[i])
MKB_MAP(copy_bf16, bf16, (const bf16 *a), f32(a[i]))
// out.to(q_nope.dtype)
MKB_MAP(to_bf16, bf16, (const float *a), a[i])

// Row reductions over the logits, one block per (query, head): amax and sum.
extern "C" __global__ void row_amax(float *__restrict__ out, const float *__restrict__ x, const int *__restrict__ qo_indptr,
                                    const int *__restrict__ kv_indptr, int batch) {
  long long off;
  int len;
  row_of(blockIdx.x, qo_indptr, kv_indptr, batch, off, len);
  float m = -kInf;
  for (int i = threadIdx.x; i < len; i += blockDim.x) m = mkb_ops::max_op::apply(m, x[off + i]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}
extern "C" __global__ void row_sum(float *__restrict__ out, const float *__restrict__ x, const int *__restrict__ qo_indptr,
                                   const int *__restrict__ kv_indptr, int batch) {
  long long off;
  int len;
  row_of(blockIdx.x, qo_indptr, kv_indptr, batch, off, len);
  float s = 0.0f;
  for (int i = threadIdx.x; i < len; i += blockDim.x) s += x[off + i];
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
// self - maxes (the row's max broadcast along it)
extern "C" __global__ void row_sub(float *__restrict__ out, const float *__restrict__ x, const float *__restrict__ m,
                                   const int *__restrict__ qo_indptr, const int *__restrict__ kv_indptr, int batch) {
  long long off;
  int len;
  row_of(blockIdx.x, qo_indptr, kv_indptr, batch, off, len);
  const float v = m[blockIdx.x];
  for (int i = threadIdx.x; i < len; i += blockDim.x) out[off + i] = x[off + i] - v;
}
// torch.softmax(logits_scaled, dim=-1): max, sum of exp(x - max), exp(x - max) / sum
extern "C" __global__ void row_softmax(float *__restrict__ out, const float *__restrict__ x, const int *__restrict__ qo_indptr,
                                       const int *__restrict__ kv_indptr, int batch) {
  long long off;
  int len;
  row_of(blockIdx.x, qo_indptr, kv_indptr, batch, off, len);
  float m = -kInf;
  for (int i = threadIdx.x; i < len; i += blockDim.x) m = fmaxf(m, x[off + i]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  float s = 0.0f;
  for (int i = threadIdx.x; i < len; i += blockDim.x) s += expf(x[off + i] - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int i = threadIdx.x; i < len; i += blockDim.x) out[off + i] = expf(x[off + i] - m) / s;
}

// qn @ Kc.T per query (cuBLAS in eager: M = 16, N = kv_len, K = dim, fp32): out rows [16][kv_len].
// One block per flat tile of 64 KV positions of a query; 256 threads = 64 positions x 4 groups of 4 heads.
extern "C" __global__ void __launch_bounds__(256)
query_q_kt(float *__restrict__ out, const float *__restrict__ q, const float *__restrict__ k, const int *__restrict__ qo_indptr,
           const int *__restrict__ kv_indptr, int batch, int dim) {
  __shared__ float ks[64][33];
  __shared__ float qs[kHeads][32];
  int qi, begin, end;
  if (!locate_tile(qo_indptr, kv_indptr, batch, blockIdx.x, qi, begin, end)) return;
  const Query x = query_of(qi, qo_indptr, kv_indptr, batch);
  const long long k0row = kv_indptr[x.seq];
  const int p = threadIdx.x & 63, hg = threadIdx.x >> 6;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = 0; k0 < dim; k0 += 32) {
    for (int e = threadIdx.x; e < 64 * 32; e += 256) {
      const int r = e >> 5, kk = e & 31;
      ks[r][kk] = begin + r < end ? k[(k0row + begin + r) * dim + k0 + kk] : 0.0f;
    }
    for (int e = threadIdx.x; e < kHeads * 32; e += 256) {
      const int h = e >> 5, kk = e & 31;
      qs[h][kk] = q[((long long)qi * kHeads + h) * dim + k0 + kk];
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < 32; ++kk) {
      const float kv = ks[p][kk];
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[j] += qs[hg * 4 + j][kk] * kv;
    }
    __syncthreads();
  }
  if (begin + p < end)
#pragma unroll
    for (int j = 0; j < 4; ++j) out[(long long)kHeads * x.off + (long long)(hg * 4 + j) * x.kv_len + begin + p] = acc[j];
}

// attn @ Kc per query (cuBLAS in eager: M = 16, N = 512, K = kv_len, fp32): out [q][16][512].
// One block per (query, 64 columns); 256 threads = 64 columns x 4 groups of 4 heads.
extern "C" __global__ void __launch_bounds__(256)
query_p_v(float *__restrict__ out, const float *__restrict__ attn, const float *__restrict__ v, const int *__restrict__ qo_indptr,
          const int *__restrict__ kv_indptr, int batch) {
  __shared__ float ps[kHeads][33];
  __shared__ float vs[32][64];
  const int qi = blockIdx.x / (kCkv / 64), c0 = (blockIdx.x % (kCkv / 64)) * 64;
  const Query x = query_of(qi, qo_indptr, kv_indptr, batch);
  const int c = threadIdx.x & 63, hg = threadIdx.x >> 6, len = x.kv_len;
  const long long s0 = kv_indptr[x.seq], base = (long long)kHeads * x.off;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int t0 = 0; t0 < len; t0 += 32) {
    for (int e = threadIdx.x; e < kHeads * 32; e += 256) {
      const int h = e >> 5, tt = e & 31;
      ps[h][tt] = t0 + tt < len ? attn[base + (long long)h * len + t0 + tt] : 0.0f;
    }
    for (int e = threadIdx.x; e < 32 * 64; e += 256) {
      const int tt = e >> 6, cc = e & 63;
      vs[tt][cc] = t0 + tt < len ? v[(s0 + t0 + tt) * kCkv + c0 + cc] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int tt = 0; tt < 32; ++tt) {
      const float y = vs[tt][c];
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[j] += ps[hg * 4 + j][tt] * y;
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) out[((long long)qi * kHeads + hg * 4 + j) * kCkv + c0 + c] = acc[j];
}

/* mkb:plan
scratch idx int64[num_kv_indices]
scratch kc_g bf16[num_kv_indices * head_dim_ckv]
scratch kc fp32[num_kv_indices * head_dim_ckv]
scratch kp_g bf16[num_kv_indices * head_dim_kpe]
scratch kp fp32[num_kv_indices * head_dim_kpe]
scratch qn fp32[total_q * num_qo_heads * head_dim_ckv]
scratch qp fp32[total_q * num_qo_heads * head_dim_kpe]
scratch l1 fp32[num_qo_heads * kv_per_query_total]
scratch l2 fp32[num_qo_heads * kv_per_query_total]
scratch logits fp32[num_qo_heads * kv_per_query_total]
scratch scaled fp32[num_qo_heads * kv_per_query_total]
scratch ar int64[kv_per_query_total]
scratch cmask bool[kv_per_query_total]
scratch masked fp32[num_qo_heads * kv_per_query_total]
scratch mx fp32[total_q * num_qo_heads]
scratch mx_abs fp32[total_q * num_qo_heads]
scratch mx_inf bool[total_q * num_qo_heads]
scratch mx0 fp32[total_q * num_qo_heads]
scratch diff fp32[num_qo_heads * kv_per_query_total]
scratch ex fp32[num_qo_heads * kv_per_query_total]
scratch se fp32[total_q * num_qo_heads]
scratch lg fp32[total_q * num_qo_heads]
scratch lse_e fp32[total_q * num_qo_heads]
scratch lse_2 fp32[total_q * num_qo_heads]
scratch attn fp32[num_qo_heads * kv_per_query_total]
scratch out_f fp32[total_q * num_qo_heads * head_dim_ckv]
scratch out_b bf16[total_q * num_qo_heads * head_dim_ckv]
launch fill_bf16 grid(ceil_div(total_q * num_qo_heads * head_dim_ckv, 1024)) block(256) args(output, f32(0), i64(total_q * num_qo_heads * head_dim_ckv))
launch fill_neg_inf grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse, i32(0), i64(total_q * num_qo_heads))
launch to_long grid(ceil_div(num_kv_indices, 256)) block(256) args(idx, kv_indices, i64(num_kv_indices))
launch gather_rows_512 grid(ceil_div(num_kv_indices * head_dim_ckv, 1024)) block(256) args(kc_g, ckv_cache, idx, i64(num_kv_indices * head_dim_ckv))
launch to_f32 grid(ceil_div(num_kv_indices * head_dim_ckv, 1024)) block(256) args(kc, kc_g, i64(num_kv_indices * head_dim_ckv))
launch gather_rows_64 grid(ceil_div(num_kv_indices * head_dim_kpe, 1024)) block(256) args(kp_g, kpe_cache, idx, i64(num_kv_indices * head_dim_kpe))
launch to_f32 grid(ceil_div(num_kv_indices * head_dim_kpe, 1024)) block(256) args(kp, kp_g, i64(num_kv_indices * head_dim_kpe))
launch to_f32 grid(ceil_div(total_q * num_qo_heads * head_dim_ckv, 1024)) block(256) args(qn, q_nope, i64(total_q * num_qo_heads * head_dim_ckv))
launch to_f32 grid(ceil_div(total_q * num_qo_heads * head_dim_kpe, 1024)) block(256) args(qp, q_pe, i64(total_q * num_qo_heads * head_dim_kpe))
launch query_q_kt grid(ceil_div(kv_per_query_total, 64) + total_q) block(256) args(l1, qn, kc, qo_indptr, kv_indptr, i32(batch_size), i32(head_dim_ckv))
launch query_q_kt grid(ceil_div(kv_per_query_total, 64) + total_q) block(256) args(l2, qp, kp, qo_indptr, kv_indptr, i32(batch_size), i32(head_dim_kpe))
launch add_f32 grid(ceil_div(num_qo_heads * kv_per_query_total, 1024)) block(256) args(logits, l1, l2, i64(num_qo_heads * kv_per_query_total))
launch mul_scalar grid(ceil_div(num_qo_heads * kv_per_query_total, 1024)) block(256) args(scaled, logits, f32(sm_scale), i64(num_qo_heads * kv_per_query_total))
launch arange_per_query grid(total_q) block(128) args(ar, qo_indptr, kv_indptr, i32(batch_size))
launch gt_abs_pos grid(total_q) block(128) args(cmask, ar, qo_indptr, kv_indptr, i32(batch_size))
launch row_masked_fill grid(total_q * num_qo_heads) block(128) args(masked, scaled, cmask, qo_indptr, kv_indptr, i32(batch_size))
launch row_amax grid(total_q * num_qo_heads) block(128) args(mx, masked, qo_indptr, kv_indptr, i32(batch_size))
launch abs_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(mx_abs, mx, i64(total_q * num_qo_heads))
launch eq_inf grid(ceil_div(total_q * num_qo_heads, 256)) block(256) args(mx_inf, mx_abs, i64(total_q * num_qo_heads))
launch masked_fill_zero grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(mx0, mx, mx_inf, i64(total_q * num_qo_heads))
launch row_sub grid(total_q * num_qo_heads) block(128) args(diff, masked, mx0, qo_indptr, kv_indptr, i32(batch_size))
launch exp_f32 grid(ceil_div(num_qo_heads * kv_per_query_total, 1024)) block(256) args(ex, diff, i64(num_qo_heads * kv_per_query_total))
launch row_sum grid(total_q * num_qo_heads) block(128) args(se, ex, qo_indptr, kv_indptr, i32(batch_size))
launch log_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lg, se, i64(total_q * num_qo_heads))
launch add_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse_e, lg, mx0, i64(total_q * num_qo_heads))
launch div_scalar grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse_2, lse_e, f32(0.6931471805599453), i64(total_q * num_qo_heads))
launch copy_f32 grid(ceil_div(total_q * num_qo_heads, 1024)) block(256) args(lse, lse_2, i64(total_q * num_qo_heads))
launch row_softmax grid(total_q * num_qo_heads) block(128) args(attn, masked, qo_indptr, kv_indptr, i32(batch_size))
launch query_p_v grid(total_q * head_dim_ckv / 64) block(256) args(out_f, attn, kc, qo_indptr, kv_indptr, i32(batch_size))
launch to_bf16 grid(ceil_div(total_q * num_qo_heads * head_dim_ckv, 1024)) block(256) args(out_b, out_f, i64(total_q * num_qo_heads * head_dim_ckv))
launch copy_bf16 grid(ceil_div(total_q * num_qo_heads * head_dim_ckv, 1024)) block(256) args(output, out_b, i64(total_q * num_qo_heads * head_dim_ckv))
*/
