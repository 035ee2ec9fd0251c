// The eager baseline: the device work of the original's reference(), one launch per eager operation at
// eager's dtypes (fp32 from the gathered caches on). The original loops over the 64 sequences in Python
// with .item() host syncs; a plan has no loops, so each per-sequence operation runs once here over all
// sequences (grid over sequences or over flat tiles of them, extents read from kv_indptr on the
// device). The per-sequence logits [16, L_b] lie one after another: sequence b's at 16 * kv_indptr[b],
// head h's row at + h * L_b. The two products per sequence that eager sends to cuBLAS (M = 16 rows, one
// per head) are batched fp32 kernels here, since their extents differ per sequence (a matmul step needs
// one shape). eager.py keeps the loop; speedup_vs_eager is the comparable figure.
#include "mkb_ops.cuh"

namespace {
constexpr int kHeads = 16, kCkv = 512;
#define kInf (__int_as_float(0x7f800000))

// Row r = (sequence b, head h) of the per-sequence logits: offset and length.
__device__ void row_of(int r, const int *kv_indptr, long long &off, int &len) {
  const int b = r / kHeads, h = r % kHeads, s0 = kv_indptr[b];
  len = kv_indptr[b + 1] - s0;
  off = (long long)kHeads * s0 + (long long)h * len;
}

// Flat tile c of 64 positions over the sequences: false past the last.
__device__ bool locate_tile(const int *kv_indptr, int batch, int c, int &b, int &begin, int &end) {
  int acc = 0;
  for (int s = 0; s < batch; ++s) {
    const int lo = kv_indptr[s], hi = kv_indptr[s + 1], n = (hi - lo + 63) / 64;
    if (c < acc + n) {
      b = s;
      begin = lo + (c - acc) * 64;
      end = min(hi, begin + 64);
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
// logsumexp's pieces (at::logsumexp): maxes = amax; maxes.masked_fill_(maxes.abs() == inf, 0);
// sum((x - maxes).exp_()); .log_().add_(maxes); then / log(2); then lse[b] = ...
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

// Row reductions over the per-sequence logits, one block per (sequence, head): amax and sum.
extern "C" __global__ void row_amax(float *__restrict__ out, const float *__restrict__ x, const int *__restrict__ kv_indptr) {
  long long off;
  int len;
  row_of(blockIdx.x, kv_indptr, off, len);
  float m = -kInf;
  for (int i = threadIdx.x; i < len; i += blockDim.x) m = mkb_ops::max_op::apply(m, x[off + i]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}
extern "C" __global__ void row_sum(float *__restrict__ out, const float *__restrict__ x, const int *__restrict__ kv_indptr) {
  long long off;
  int len;
  row_of(blockIdx.x, kv_indptr, off, len);
  float s = 0.0f;
  for (int i = threadIdx.x; i < len; i += blockDim.x) s += x[off + i];
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
// self - maxes (the row's max broadcast along it)
extern "C" __global__ void row_sub(float *__restrict__ out, const float *__restrict__ x, const float *__restrict__ m,
                                   const int *__restrict__ kv_indptr) {
  long long off;
  int len;
  row_of(blockIdx.x, kv_indptr, off, len);
  const float v = m[blockIdx.x];
  for (int i = threadIdx.x; i < len; i += blockDim.x) out[off + i] = x[off + i] - v;
}
// torch.softmax(logits_scaled, dim=-1): max, sum of exp(x - max), exp(x - max) / sum
extern "C" __global__ void row_softmax(float *__restrict__ out, const float *__restrict__ x, const int *__restrict__ kv_indptr) {
  long long off;
  int len;
  row_of(blockIdx.x, kv_indptr, off, len);
  float m = -kInf;
  for (int i = threadIdx.x; i < len; i += blockDim.x) m = fmaxf(m, x[off + i]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  float s = 0.0f;
  for (int i = threadIdx.x; i < len; i += blockDim.x) s += expf(x[off + i] - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int i = threadIdx.x; i < len; i += blockDim.x) out[off + i] = expf(x[off + i] - m) / s;
}

// q[b] @ K_b.T per sequence (cuBLAS in eager: M = 16, N = L_b, K = dim, fp32): out rows [16][L_b].
// One block per flat tile of 64 positions; 256 threads = 64 positions x 4 groups of 4 heads.
extern "C" __global__ void __launch_bounds__(256)
seq_q_kt(float *__restrict__ out, const float *__restrict__ q, const float *__restrict__ k, const int *__restrict__ kv_indptr,
         int batch, int dim) {
  __shared__ float ks[64][33];
  __shared__ float qs[kHeads][32];
  int b, begin, end;
  if (!locate_tile(kv_indptr, batch, blockIdx.x, b, begin, end)) return;
  const int p = threadIdx.x & 63, hg = threadIdx.x >> 6, s0 = kv_indptr[b], len = kv_indptr[b + 1] - s0;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = 0; k0 < dim; k0 += 32) {
    for (int e = threadIdx.x; e < 64 * 32; e += 256) {
      const int r = e >> 5, kk = e & 31;
      ks[r][kk] = begin + r < end ? k[(long long)(begin + r) * dim + k0 + kk] : 0.0f;
    }
    for (int e = threadIdx.x; e < kHeads * 32; e += 256) {
      const int h = e >> 5, kk = e & 31;
      qs[h][kk] = q[((long long)b * kHeads + h) * dim + k0 + kk];
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
    for (int j = 0; j < 4; ++j) out[(long long)kHeads * s0 + (long long)(hg * 4 + j) * len + (begin + p - s0)] = acc[j];
}

// attn @ Kc per sequence (cuBLAS in eager: M = 16, N = 512, K = L_b, fp32): out [b][16][512].
// One block per (sequence, 64 columns); 256 threads = 64 columns x 4 groups of 4 heads.
extern "C" __global__ void __launch_bounds__(256)
seq_p_v(float *__restrict__ out, const float *__restrict__ attn, const float *__restrict__ v, const int *__restrict__ kv_indptr) {
  __shared__ float ps[kHeads][33];
  __shared__ float vs[32][64];
  const int b = blockIdx.x / (kCkv / 64), c0 = (blockIdx.x % (kCkv / 64)) * 64;
  const int c = threadIdx.x & 63, hg = threadIdx.x >> 6, s0 = kv_indptr[b], len = kv_indptr[b + 1] - s0;
  const long long base = (long long)kHeads * s0;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int t0 = 0; t0 < len; t0 += 32) {
    for (int e = threadIdx.x; e < kHeads * 32; e += 256) {
      const int h = e >> 5, tt = e & 31;
      ps[h][tt] = t0 + tt < len ? attn[base + (long long)h * len + t0 + tt] : 0.0f;
    }
    for (int e = threadIdx.x; e < 32 * 64; e += 256) {
      const int tt = e >> 6, cc = e & 63;
      vs[tt][cc] = t0 + tt < len ? v[(long long)(s0 + t0 + tt) * kCkv + c0 + cc] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int tt = 0; tt < 32; ++tt) {
      const float x = vs[tt][c];
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[j] += ps[hg * 4 + j][tt] * x;
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) out[((long long)b * kHeads + hg * 4 + j) * kCkv + c0 + c] = acc[j];
}

/* mkb:plan
scratch idx int64[num_kv_indices]
scratch kc_g bf16[num_kv_indices * head_dim_ckv]
scratch kc fp32[num_kv_indices * head_dim_ckv]
scratch kp_g bf16[num_kv_indices * head_dim_kpe]
scratch kp fp32[num_kv_indices * head_dim_kpe]
scratch qn fp32[batch_size * num_qo_heads * head_dim_ckv]
scratch qp fp32[batch_size * num_qo_heads * head_dim_kpe]
scratch l1 fp32[num_qo_heads * num_kv_indices]
scratch l2 fp32[num_qo_heads * num_kv_indices]
scratch logits fp32[num_qo_heads * num_kv_indices]
scratch scaled fp32[num_qo_heads * num_kv_indices]
scratch mx fp32[batch_size * num_qo_heads]
scratch mx_abs fp32[batch_size * num_qo_heads]
scratch mx_inf bool[batch_size * num_qo_heads]
scratch mx0 fp32[batch_size * num_qo_heads]
scratch diff fp32[num_qo_heads * num_kv_indices]
scratch ex fp32[num_qo_heads * num_kv_indices]
scratch se fp32[batch_size * num_qo_heads]
scratch lg fp32[batch_size * num_qo_heads]
scratch lse_e fp32[batch_size * num_qo_heads]
scratch lse_2 fp32[batch_size * num_qo_heads]
scratch attn fp32[num_qo_heads * num_kv_indices]
scratch out_f fp32[batch_size * num_qo_heads * head_dim_ckv]
scratch out_b bf16[batch_size * num_qo_heads * head_dim_ckv]
launch fill_bf16 grid(ceil_div(batch_size * num_qo_heads * head_dim_ckv, 1024)) block(256) args(output, f32(0), i64(batch_size * num_qo_heads * head_dim_ckv))
launch fill_neg_inf grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse, i32(0), i64(batch_size * num_qo_heads))
launch to_long grid(ceil_div(num_kv_indices, 256)) block(256) args(idx, kv_indices, i64(num_kv_indices))
launch gather_rows_512 grid(ceil_div(num_kv_indices * head_dim_ckv, 1024)) block(256) args(kc_g, ckv_cache, idx, i64(num_kv_indices * head_dim_ckv))
launch to_f32 grid(ceil_div(num_kv_indices * head_dim_ckv, 1024)) block(256) args(kc, kc_g, i64(num_kv_indices * head_dim_ckv))
launch gather_rows_64 grid(ceil_div(num_kv_indices * head_dim_kpe, 1024)) block(256) args(kp_g, kpe_cache, idx, i64(num_kv_indices * head_dim_kpe))
launch to_f32 grid(ceil_div(num_kv_indices * head_dim_kpe, 1024)) block(256) args(kp, kp_g, i64(num_kv_indices * head_dim_kpe))
launch to_f32 grid(ceil_div(batch_size * num_qo_heads * head_dim_ckv, 1024)) block(256) args(qn, q_nope, i64(batch_size * num_qo_heads * head_dim_ckv))
launch to_f32 grid(ceil_div(batch_size * num_qo_heads * head_dim_kpe, 1024)) block(256) args(qp, q_pe, i64(batch_size * num_qo_heads * head_dim_kpe))
launch seq_q_kt grid(ceil_div(num_kv_indices, 64) + batch_size) block(256) args(l1, qn, kc, kv_indptr, i32(batch_size), i32(head_dim_ckv))
launch seq_q_kt grid(ceil_div(num_kv_indices, 64) + batch_size) block(256) args(l2, qp, kp, kv_indptr, i32(batch_size), i32(head_dim_kpe))
launch add_f32 grid(ceil_div(num_qo_heads * num_kv_indices, 1024)) block(256) args(logits, l1, l2, i64(num_qo_heads * num_kv_indices))
launch mul_scalar grid(ceil_div(num_qo_heads * num_kv_indices, 1024)) block(256) args(scaled, logits, f32(sm_scale), i64(num_qo_heads * num_kv_indices))
launch row_amax grid(batch_size * num_qo_heads) block(256) args(mx, scaled, kv_indptr)
launch abs_f32 grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(mx_abs, mx, i64(batch_size * num_qo_heads))
launch eq_inf grid(ceil_div(batch_size * num_qo_heads, 256)) block(256) args(mx_inf, mx_abs, i64(batch_size * num_qo_heads))
launch masked_fill_zero grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(mx0, mx, mx_inf, i64(batch_size * num_qo_heads))
launch row_sub grid(batch_size * num_qo_heads) block(256) args(diff, scaled, mx0, kv_indptr)
launch exp_f32 grid(ceil_div(num_qo_heads * num_kv_indices, 1024)) block(256) args(ex, diff, i64(num_qo_heads * num_kv_indices))
launch row_sum grid(batch_size * num_qo_heads) block(256) args(se, ex, kv_indptr)
launch log_f32 grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lg, se, i64(batch_size * num_qo_heads))
launch add_f32 grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse_e, lg, mx0, i64(batch_size * num_qo_heads))
launch div_scalar grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse_2, lse_e, f32(0.6931471805599453), i64(batch_size * num_qo_heads))
launch copy_f32 grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse, lse_2, i64(batch_size * num_qo_heads))
launch row_softmax grid(batch_size * num_qo_heads) block(256) args(attn, scaled, kv_indptr)
launch seq_p_v grid(batch_size * head_dim_ckv / 64) block(256) args(out_f, attn, kc, kv_indptr)
launch to_bf16 grid(ceil_div(batch_size * num_qo_heads * head_dim_ckv, 1024)) block(256) args(out_b, out_f, i64(batch_size * num_qo_heads * head_dim_ckv))
launch copy_bf16 grid(ceil_div(batch_size * num_qo_heads * head_dim_ckv, 1024)) block(256) args(output, out_b, i64(batch_size * num_qo_heads * head_dim_ckv))
*/
