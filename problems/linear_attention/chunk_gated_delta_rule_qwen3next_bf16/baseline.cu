// The eager baseline: one launch per eager operation of eager.py (the reference's op sequence) at
// eager's dtypes: the L2 norms in bf16 (each of x * x, the sum, + eps, rsqrt and the product a bf16
// tensor), then fp32. Eager's Python loops are kept as plan lines: the 63 rows of the forward
// substitution (six launches each: the two clones, the broadcast product, the sum over dim -2, the add,
// the copy into attn's row) and the 4 chunks of the state recurrence (18 launches each). The batched
// products of whole tensors are cuBLAS matmul steps (fp32, no TF32) as eager's; the two products of the
// chunk loop whose operands are strided chunk views (q_chunk k_chunk^T and k_cumdecay_chunk S, which
// cuBLAS reads in place with a batch stride) are sgemm_strided, a tiled fp32 SIMT GEMM reading the same
// views. Shapes: b = 16, 4 key heads, 16 value heads (value head v reads key head v % 4), 256 tokens in
// 4 chunks of 64, head dims 128.
#include "mkb_ops.cuh"

// the masks are bool tensors (mkb_ops leaves integer types to the problem)
namespace mkb_ops {
template <> struct store_as<bool> {
  __device__ static bool from(bool v) { return v; }
};
} // namespace mkb_ops

constexpr long long kB = 16, kHK = 4, kHV = 16, kS = 256, kDK = 128, kDV = 128, kL = 64, kC = kS / kL;

// ---- L2 norm in bf16 -------------------------------------------------------------------------------------
MKB_MAP(square_bf16, bf16, (const bf16 *x), f32(x[i]) * f32(x[i]))
MKB_ROW_REDUCE(rowsum_bf16, bf16, float, mkb_ops::sum_op, (const bf16 *x), f32(x[r * cols + c]), acc)
MKB_MAP(add_eps_bf16, bf16, (const bf16 *x), f32(x[i]) + 1e-6f)
MKB_MAP(rsqrt_bf16, bf16, (const bf16 *x), rsqrtf(f32(x[i])))
MKB_MAP(mul_rows_bf16, bf16, (const bf16 *x, const bf16 *s), f32(x[i]) * f32(s[i / kDK]))
// ---- fp32 elementwise ------------------------------------------------------------------------------------
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
MKB_MAP(copy_f32, float, (const float *x), x[i])
MKB_MAP(fill_f32, float, (float value), value)
MKB_MAP(exp_f32, float, (const float *x), expf(x[i]))
MKB_MAP(neg_f32, float, (const float *x), -x[i])
MKB_MAP(mul_f32, float, (const float *x, const float *y), x[i] * y[i])
MKB_MAP(add_f32, float, (const float *x, const float *y), x[i] + y[i])
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
// x [..., d] * w[..., None], d = 128
MKB_MAP(mul_rowvec, float, (const float *x, const float *w), x[i] * w[i / kDK])
// key.unsqueeze(1).expand(-1, 4, ...).reshape(b, 16, t, d): value head v reads key head v % 4
MKB_MAP(expand_heads, float, (const float *x),
        x[((i / (kHV * kS * kDK) * kHK + i / (kS * kDK) % kHV % kHK) * kS + i / kDK % kS) * kDK + i % kDK])
// g_cum[..., :, None] - g_cum[..., None, :] over [z, 64, 64]
MKB_MAP(sub_outer, float, (const float *g), g[i / (kL * kL) * kL + i / kL % kL] - g[i / (kL * kL) * kL + i % kL])
// .tril() (diagonal 0)
MKB_MAP(tril_f32, float, (const float *x), i % kL <= i / kL % kL ? x[i] : 0.0f)
MKB_MAP(fill_true, bool, (int unused), true)
MKB_MAP(triu_bool, bool, (const bool *m, int diagonal), m[i] && (i % kL) - (i / kL) >= diagonal)
// ---- the forward substitution, row r ---------------------------------------------------------------------
// row = attn[..., r, :r].clone()   -> [z, r]
MKB_MAP(row_copy, float, (const float *attn, int r), attn[i / r * kL * kL + (long long)r * kL + i % r])
// sub = attn[..., :r, :r].clone()  -> [z, r, r]
MKB_MAP(sub_copy, float, (const float *attn, int r),
        attn[i / ((long long)r * r) * kL * kL + i / r % r * kL + i % r])
// row.unsqueeze(-1) * sub           -> [z, k, j] = row[z, k] * sub[z, k, j]
MKB_MAP(row_times_sub, float, (const float *row, const float *sub, int r), row[i / r] * sub[i])
// .sum(-2): [z, k, j] summed over k, one thread per (z, j), in order
extern "C" __global__ void sum_dim_m2(float *out, const float *x, int r, long long n) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= n) return;
  const long long z = o / r, j = o % r;
  float acc = 0.0f;
  for (int k = 0; k < r; ++k) acc += x[(z * r + k) * r + j];
  out[o] = acc;
}
// attn[..., r, :r] = new_row
extern "C" __global__ void row_store(float *attn, const float *row, int r, long long n) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o < n) attn[o / r * kL * kL + (long long)r * kL + o % r] = row[o];
}
// masked_fill_ in place with 0 (the mask [64, 64] broadcast over the leading axes)
extern "C" __global__ void masked_zero_inplace(float *x, const bool *mask, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (mask[i % (kL * kL)]) x[i] = 0.0f;
}
// torch.eye: a zero fill, then the diagonal set to 1
extern "C" __global__ void eye_diagonal(float *e) {
  if (threadIdx.x < kL) e[threadIdx.x * kL + threadIdx.x] = 1.0f;
}
MKB_MAP(add_eye, float, (const float *attn, const float *eye), attn[i] + eye[i % (kL * kL)])
// torch.cumsum(dim=-1) over rows of 64: one thread per row, in order
extern "C" __global__ void cumsum_rows(float *out, const float *x, long long rows) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int j = 0; j < kL; ++j) out[row * kL + j] = acc += x[row * kL + j];
}
// ---- the chunk loop, chunk c ----------------------------------------------------------------------------
// intra = qk * decay[:, :, c]
MKB_MAP(mul_decay_chunk, float, (const float *qk, const float *decay, int c),
        qk[i] * decay[(i / (kL * kL) * kC + c) * kL * kL + i % (kL * kL)])
// v_new = v_solved[:, :, c] - v_prime
MKB_MAP(sub_chunk, float, (const float *v_solved, const float *v_prime, int c),
        v_solved[(i / (kL * kDV) * kC + c) * kL * kDV + i % (kL * kDV)] - v_prime[i])
// g_chunk.exp()                      -> [z, 64]
MKB_MAP(exp_chunk, float, (const float *g, int c), expf(g[(i / kL * kC + c) * kL + i % kL]))
// x_chunk * w.unsqueeze(-1): x [z, chunks, 64, 128] read at chunk c, w [z, 64]
MKB_MAP(mul_chunk_rows, float, (const float *x, const float *w, int c),
        x[(i / (kL * kDK) * kC + c) * kL * kDK + i % (kL * kDK)] * w[i / kDK])
// out[:, :, c] = inter + intra @ v_new
extern "C" __global__ void chunk_store(float *out, const float *x, int c, long long n) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o < n) out[(o / (kL * kDV) * kC + c) * kL * kDV + o % (kL * kDV)] = x[o];
}
// g_chunk[:, :, -1].exp()             -> [z]
MKB_MAP(exp_last, float, (const float *g, int c), expf(g[(i * kC + c) * kL + kL - 1]))
// state * chunk_decay                 -> [z, 128, 128]
MKB_MAP(scale_state, float, (const float *s, const float *d), s[i] * d[i / (kDK * kDV)])
// g_chunk[:, :, -1:] - g_chunk        -> [z, 64]
MKB_MAP(sub_last_chunk, float, (const float *g, int c), g[(i / kL * kC + c) * kL + kL - 1] - g[(i / kL * kC + c) * kL + i % kL])
// out.transpose(1, 2).contiguous(): [b, v, t, e] -> [b, t, v, e]
MKB_MAP(transpose_heads, float, (const float *x),
        x[((i / (kS * kHV * kDV) * kHV + i / kDV % kHV) * kS + i / (kHV * kDV) % kS) * kDV + i % kDV])

// C[z] = A[z] op(B[z]) in fp32, 64 x 64 tiles, 256 threads each computing 4 x 4; A (m, k) is
// A[a_off + z a_bs + m lda + k]; B (k, n) is B[b_off + z b_bs + n ldb + k] with trans_b, else
// B[... + k ldb + n]; C is [z][M][N] contiguous. M and N are multiples of 64, K of 16.
extern "C" __global__ void __launch_bounds__(256)
sgemm_strided(float *C, const float *A, const float *B, int M, int N, int K, long long a_off, long long a_bs, int lda,
              long long b_off, long long b_bs, int ldb, int trans_b) {
  __shared__ float As[16][65], Bs[16][65];
  const int z = blockIdx.z, m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const float *a = A + a_off + (long long)z * a_bs;
  const float *b = B + b_off + (long long)z * b_bs;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int e = threadIdx.x; e < 64 * 16; e += 256) {
      const int r = e / 16, k = e % 16;
      As[k][r] = a[(long long)(m0 + r) * lda + k0 + k];
      Bs[k][r] = trans_b ? b[(long long)(n0 + r) * ldb + k0 + k] : b[(long long)(k0 + k) * ldb + n0 + r];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      float av[4], bv[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        av[u] = As[k][ty * 4 + u];
        bv[u] = Bs[k][tx * 4 + u];
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[u][v] += av[u] * bv[v];
    }
    __syncthreads();
  }
  float *c = C + (long long)z * M * N;
#pragma unroll
  for (int u = 0; u < 4; ++u)
#pragma unroll
    for (int v = 0; v < 4; ++v) c[(long long)(m0 + ty * 4 + u) * N + n0 + tx * 4 + v] = acc[u][v];
}

/* mkb:plan
scratch q_sq bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch q_ss bf16[batch_size * num_k_heads * seq_len]
scratch q_se bf16[batch_size * num_k_heads * seq_len]
scratch q_rs bf16[batch_size * num_k_heads * seq_len]
scratch q_n bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch k_sq bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch k_ss bf16[batch_size * num_k_heads * seq_len]
scratch k_se bf16[batch_size * num_k_heads * seq_len]
scratch k_rs bf16[batch_size * num_k_heads * seq_len]
scratch k_n bf16[batch_size * num_k_heads * seq_len * head_k_dim]
scratch q32 fp32[batch_size * num_k_heads * seq_len * head_k_dim]
scratch k32 fp32[batch_size * num_k_heads * seq_len * head_k_dim]
scratch v32 fp32[batch_size * num_v_heads * seq_len * head_v_dim]
scratch beta32 fp32[batch_size * num_v_heads * seq_len]
scratch g32 fp32[batch_size * num_v_heads * seq_len]
scratch qs fp32[batch_size * num_k_heads * seq_len * head_k_dim]
scratch v_beta fp32[batch_size * num_v_heads * seq_len * head_v_dim]
scratch kb_x fp32[batch_size * num_v_heads * seq_len * head_k_dim]
scratch k_beta fp32[batch_size * num_v_heads * seq_len * head_k_dim]
scratch q_c fp32[batch_size * num_v_heads * seq_len * head_k_dim]
scratch k_c fp32[batch_size * num_v_heads * seq_len * head_k_dim]
scratch g_cum fp32[batch_size * num_v_heads * seq_len]
scratch g_diff fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch decay_e fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch decay fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch kk fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch kk_neg fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch attn0 fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch attn fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch eye fp32[chunk_size * chunk_size]
scratch attn_t fp32[batch_size * num_v_heads * seq_len * chunk_size]
scratch v_solved fp32[batch_size * num_v_heads * seq_len * head_v_dim]
scratch g_exp fp32[batch_size * num_v_heads * seq_len]
scratch kbg fp32[batch_size * num_v_heads * seq_len * head_k_dim]
scratch k_cumdecay fp32[batch_size * num_v_heads * seq_len * head_k_dim]
scratch out fp32[batch_size * num_v_heads * seq_len * head_v_dim]
scratch out_t fp32[batch_size * num_v_heads * seq_len * head_v_dim]
scratch ones_a bool[chunk_size * chunk_size]
scratch on_or_above bool[chunk_size * chunk_size]
scratch ones_b bool[chunk_size * chunk_size]
scratch above bool[chunk_size * chunk_size]
scratch sub_row fp32[batch_size * num_v_heads * (seq_len / chunk_size) * (chunk_size - 1)]
scratch sub_mat fp32[batch_size * num_v_heads * (seq_len / chunk_size) * (chunk_size - 1) * (chunk_size - 1)]
scratch sub_prod fp32[batch_size * num_v_heads * (seq_len / chunk_size) * (chunk_size - 1) * (chunk_size - 1)]
scratch sub_sum fp32[batch_size * num_v_heads * (seq_len / chunk_size) * (chunk_size - 1)]
scratch sub_new fp32[batch_size * num_v_heads * (seq_len / chunk_size) * (chunk_size - 1)]
scratch state_a fp32[batch_size * num_v_heads * head_k_dim * head_v_dim]
scratch state_b fp32[batch_size * num_v_heads * head_k_dim * head_v_dim]
scratch qk_c fp32[batch_size * num_v_heads * chunk_size * chunk_size]
scratch intra fp32[batch_size * num_v_heads * chunk_size * chunk_size]
scratch v_prime fp32[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch v_new fp32[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch g_e fp32[batch_size * num_v_heads * chunk_size]
scratch q_g fp32[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch inter fp32[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch intra_v fp32[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch out_sum fp32[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch c_decay fp32[batch_size * num_v_heads]
scratch to_last_d fp32[batch_size * num_v_heads * chunk_size]
scratch to_last fp32[batch_size * num_v_heads * chunk_size]
scratch k_t fp32[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch upd fp32[batch_size * num_v_heads * head_k_dim * head_v_dim]
# L2 norms at bf16: x * x, sum, + 1e-6, rsqrt, x * inv
launch square_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len * head_k_dim, 1024)) block(256) args(q_sq, query, i64(batch_size * num_k_heads * seq_len * head_k_dim))
launch rowsum_bf16 grid(batch_size * num_k_heads * seq_len) block(128) args(q_ss, q_sq, i32(head_k_dim))
launch add_eps_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len, 1024)) block(256) args(q_se, q_ss, i64(batch_size * num_k_heads * seq_len))
launch rsqrt_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len, 1024)) block(256) args(q_rs, q_se, i64(batch_size * num_k_heads * seq_len))
launch mul_rows_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len * head_k_dim, 1024)) block(256) args(q_n, query, q_rs, i64(batch_size * num_k_heads * seq_len * head_k_dim))
launch square_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len * head_k_dim, 1024)) block(256) args(k_sq, key, i64(batch_size * num_k_heads * seq_len * head_k_dim))
launch rowsum_bf16 grid(batch_size * num_k_heads * seq_len) block(128) args(k_ss, k_sq, i32(head_k_dim))
launch add_eps_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len, 1024)) block(256) args(k_se, k_ss, i64(batch_size * num_k_heads * seq_len))
launch rsqrt_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len, 1024)) block(256) args(k_rs, k_se, i64(batch_size * num_k_heads * seq_len))
launch mul_rows_bf16 grid(ceil_div(batch_size * num_k_heads * seq_len * head_k_dim, 1024)) block(256) args(k_n, key, k_rs, i64(batch_size * num_k_heads * seq_len * head_k_dim))
# widen; query * scale; beta products; head expansion copies
launch to_f32 grid(ceil_div(batch_size * num_k_heads * seq_len * head_k_dim, 1024)) block(256) args(q32, q_n, i64(batch_size * num_k_heads * seq_len * head_k_dim))
launch to_f32 grid(ceil_div(batch_size * num_k_heads * seq_len * head_k_dim, 1024)) block(256) args(k32, k_n, i64(batch_size * num_k_heads * seq_len * head_k_dim))
launch to_f32 grid(ceil_div(batch_size * num_v_heads * seq_len * head_v_dim, 1024)) block(256) args(v32, value, i64(batch_size * num_v_heads * seq_len * head_v_dim))
launch to_f32 grid(ceil_div(batch_size * num_v_heads * seq_len, 1024)) block(256) args(beta32, beta, i64(batch_size * num_v_heads * seq_len))
launch to_f32 grid(ceil_div(batch_size * num_v_heads * seq_len, 1024)) block(256) args(g32, g, i64(batch_size * num_v_heads * seq_len))
launch mul_scalar grid(ceil_div(batch_size * num_k_heads * seq_len * head_k_dim, 1024)) block(256) args(qs, q32, f32(scale), i64(batch_size * num_k_heads * seq_len * head_k_dim))
launch mul_rowvec grid(ceil_div(batch_size * num_v_heads * seq_len * head_v_dim, 1024)) block(256) args(v_beta, v32, beta32, i64(batch_size * num_v_heads * seq_len * head_v_dim))
launch expand_heads grid(ceil_div(batch_size * num_v_heads * seq_len * head_k_dim, 1024)) block(256) args(kb_x, k32, i64(batch_size * num_v_heads * seq_len * head_k_dim))
launch mul_rowvec grid(ceil_div(batch_size * num_v_heads * seq_len * head_k_dim, 1024)) block(256) args(k_beta, kb_x, beta32, i64(batch_size * num_v_heads * seq_len * head_k_dim))
launch expand_heads grid(ceil_div(batch_size * num_v_heads * seq_len * head_k_dim, 1024)) block(256) args(q_c, qs, i64(batch_size * num_v_heads * seq_len * head_k_dim))
launch expand_heads grid(ceil_div(batch_size * num_v_heads * seq_len * head_k_dim, 1024)) block(256) args(k_c, k32, i64(batch_size * num_v_heads * seq_len * head_k_dim))
# decay mask; attn = -(k_beta @ k^T) * decay, masked on and above the diagonal
launch cumsum_rows grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size), 128)) block(128) args(g_cum, g32, i64(batch_size * num_v_heads * (seq_len / chunk_size)))
launch sub_outer grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 1024)) block(256) args(g_diff, g_cum, i64(batch_size * num_v_heads * seq_len * chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 1024)) block(256) args(decay_e, g_diff, i64(batch_size * num_v_heads * seq_len * chunk_size))
launch tril_f32 grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 1024)) block(256) args(decay, decay_e, i64(batch_size * num_v_heads * seq_len * chunk_size))
launch fill_true grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(ones_a, i32(0), i64(chunk_size * chunk_size))
launch triu_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(on_or_above, ones_a, i32(0), i64(chunk_size * chunk_size))
matmul c(kk) a(k_beta) b(k_c) m(chunk_size) n(chunk_size) k(head_k_dim) batch(batch_size * num_v_heads * (seq_len / chunk_size)) transpose_b
launch neg_f32 grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 1024)) block(256) args(kk_neg, kk, i64(batch_size * num_v_heads * seq_len * chunk_size))
launch mul_f32 grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 1024)) block(256) args(attn0, kk_neg, decay, i64(batch_size * num_v_heads * seq_len * chunk_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 1024)) block(256) args(attn, attn0, i64(batch_size * num_v_heads * seq_len * chunk_size))
launch masked_zero_inplace grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 256)) block(256) args(attn, on_or_above, i64(batch_size * num_v_heads * seq_len * chunk_size))
# forward substitution: rows r = 1 .. chunk_size - 1, six launches each
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1, 1024)) block(256) args(sub_row, attn, i32(1), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1, 1024)) block(256) args(sub_mat, attn, i32(1), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(1), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1, 256)) block(256) args(sub_sum, sub_prod, i32(1), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1, 256)) block(256) args(attn, sub_new, i32(1), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2, 1024)) block(256) args(sub_row, attn, i32(2), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 4, 1024)) block(256) args(sub_mat, attn, i32(2), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 4))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 4, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(2), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 4))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2, 256)) block(256) args(sub_sum, sub_prod, i32(2), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2, 256)) block(256) args(attn, sub_new, i32(2), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3, 1024)) block(256) args(sub_row, attn, i32(3), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 9, 1024)) block(256) args(sub_mat, attn, i32(3), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 9))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 9, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(3), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 9))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3, 256)) block(256) args(sub_sum, sub_prod, i32(3), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3, 256)) block(256) args(attn, sub_new, i32(3), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 4, 1024)) block(256) args(sub_row, attn, i32(4), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 4))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 16, 1024)) block(256) args(sub_mat, attn, i32(4), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 16))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 16, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(4), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 16))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 4, 256)) block(256) args(sub_sum, sub_prod, i32(4), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 4))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 4, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 4))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 4, 256)) block(256) args(attn, sub_new, i32(4), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 4))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 5, 1024)) block(256) args(sub_row, attn, i32(5), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 5))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 25, 1024)) block(256) args(sub_mat, attn, i32(5), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 25))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 25, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(5), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 25))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 5, 256)) block(256) args(sub_sum, sub_prod, i32(5), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 5))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 5, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 5))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 5, 256)) block(256) args(attn, sub_new, i32(5), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 5))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 6, 1024)) block(256) args(sub_row, attn, i32(6), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 6))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 36, 1024)) block(256) args(sub_mat, attn, i32(6), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 36))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 36, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(6), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 36))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 6, 256)) block(256) args(sub_sum, sub_prod, i32(6), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 6))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 6, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 6))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 6, 256)) block(256) args(attn, sub_new, i32(6), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 6))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 7, 1024)) block(256) args(sub_row, attn, i32(7), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 7))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 49, 1024)) block(256) args(sub_mat, attn, i32(7), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 49))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 49, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(7), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 49))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 7, 256)) block(256) args(sub_sum, sub_prod, i32(7), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 7))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 7, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 7))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 7, 256)) block(256) args(attn, sub_new, i32(7), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 7))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 8, 1024)) block(256) args(sub_row, attn, i32(8), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 8))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 64, 1024)) block(256) args(sub_mat, attn, i32(8), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 64))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 64, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(8), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 64))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 8, 256)) block(256) args(sub_sum, sub_prod, i32(8), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 8))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 8, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 8))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 8, 256)) block(256) args(attn, sub_new, i32(8), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 8))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 9, 1024)) block(256) args(sub_row, attn, i32(9), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 9))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 81, 1024)) block(256) args(sub_mat, attn, i32(9), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 81))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 81, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(9), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 81))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 9, 256)) block(256) args(sub_sum, sub_prod, i32(9), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 9))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 9, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 9))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 9, 256)) block(256) args(attn, sub_new, i32(9), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 9))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 10, 1024)) block(256) args(sub_row, attn, i32(10), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 10))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 100, 1024)) block(256) args(sub_mat, attn, i32(10), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 100))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 100, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(10), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 100))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 10, 256)) block(256) args(sub_sum, sub_prod, i32(10), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 10))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 10, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 10))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 10, 256)) block(256) args(attn, sub_new, i32(10), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 10))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 11, 1024)) block(256) args(sub_row, attn, i32(11), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 11))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 121, 1024)) block(256) args(sub_mat, attn, i32(11), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 121))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 121, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(11), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 121))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 11, 256)) block(256) args(sub_sum, sub_prod, i32(11), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 11))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 11, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 11))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 11, 256)) block(256) args(attn, sub_new, i32(11), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 11))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 12, 1024)) block(256) args(sub_row, attn, i32(12), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 12))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 144, 1024)) block(256) args(sub_mat, attn, i32(12), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 144))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 144, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(12), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 144))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 12, 256)) block(256) args(sub_sum, sub_prod, i32(12), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 12))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 12, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 12))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 12, 256)) block(256) args(attn, sub_new, i32(12), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 12))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 13, 1024)) block(256) args(sub_row, attn, i32(13), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 13))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 169, 1024)) block(256) args(sub_mat, attn, i32(13), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 169))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 169, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(13), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 169))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 13, 256)) block(256) args(sub_sum, sub_prod, i32(13), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 13))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 13, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 13))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 13, 256)) block(256) args(attn, sub_new, i32(13), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 13))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 14, 1024)) block(256) args(sub_row, attn, i32(14), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 14))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 196, 1024)) block(256) args(sub_mat, attn, i32(14), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 196))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 196, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(14), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 196))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 14, 256)) block(256) args(sub_sum, sub_prod, i32(14), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 14))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 14, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 14))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 14, 256)) block(256) args(attn, sub_new, i32(14), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 14))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 15, 1024)) block(256) args(sub_row, attn, i32(15), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 15))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 225, 1024)) block(256) args(sub_mat, attn, i32(15), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 225))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 225, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(15), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 225))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 15, 256)) block(256) args(sub_sum, sub_prod, i32(15), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 15))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 15, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 15))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 15, 256)) block(256) args(attn, sub_new, i32(15), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 15))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 16, 1024)) block(256) args(sub_row, attn, i32(16), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 16))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 256, 1024)) block(256) args(sub_mat, attn, i32(16), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 256))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 256, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(16), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 256))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 16, 256)) block(256) args(sub_sum, sub_prod, i32(16), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 16))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 16, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 16))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 16, 256)) block(256) args(attn, sub_new, i32(16), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 16))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 17, 1024)) block(256) args(sub_row, attn, i32(17), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 17))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 289, 1024)) block(256) args(sub_mat, attn, i32(17), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 289))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 289, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(17), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 289))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 17, 256)) block(256) args(sub_sum, sub_prod, i32(17), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 17))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 17, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 17))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 17, 256)) block(256) args(attn, sub_new, i32(17), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 17))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 18, 1024)) block(256) args(sub_row, attn, i32(18), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 18))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 324, 1024)) block(256) args(sub_mat, attn, i32(18), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 324))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 324, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(18), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 324))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 18, 256)) block(256) args(sub_sum, sub_prod, i32(18), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 18))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 18, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 18))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 18, 256)) block(256) args(attn, sub_new, i32(18), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 18))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 19, 1024)) block(256) args(sub_row, attn, i32(19), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 19))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 361, 1024)) block(256) args(sub_mat, attn, i32(19), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 361))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 361, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(19), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 361))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 19, 256)) block(256) args(sub_sum, sub_prod, i32(19), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 19))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 19, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 19))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 19, 256)) block(256) args(attn, sub_new, i32(19), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 19))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 20, 1024)) block(256) args(sub_row, attn, i32(20), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 20))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 400, 1024)) block(256) args(sub_mat, attn, i32(20), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 400))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 400, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(20), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 400))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 20, 256)) block(256) args(sub_sum, sub_prod, i32(20), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 20))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 20, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 20))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 20, 256)) block(256) args(attn, sub_new, i32(20), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 20))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 21, 1024)) block(256) args(sub_row, attn, i32(21), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 21))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 441, 1024)) block(256) args(sub_mat, attn, i32(21), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 441))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 441, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(21), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 441))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 21, 256)) block(256) args(sub_sum, sub_prod, i32(21), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 21))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 21, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 21))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 21, 256)) block(256) args(attn, sub_new, i32(21), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 21))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 22, 1024)) block(256) args(sub_row, attn, i32(22), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 22))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 484, 1024)) block(256) args(sub_mat, attn, i32(22), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 484))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 484, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(22), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 484))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 22, 256)) block(256) args(sub_sum, sub_prod, i32(22), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 22))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 22, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 22))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 22, 256)) block(256) args(attn, sub_new, i32(22), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 22))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 23, 1024)) block(256) args(sub_row, attn, i32(23), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 23))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 529, 1024)) block(256) args(sub_mat, attn, i32(23), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 529))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 529, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(23), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 529))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 23, 256)) block(256) args(sub_sum, sub_prod, i32(23), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 23))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 23, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 23))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 23, 256)) block(256) args(attn, sub_new, i32(23), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 23))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 24, 1024)) block(256) args(sub_row, attn, i32(24), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 24))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 576, 1024)) block(256) args(sub_mat, attn, i32(24), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 576))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 576, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(24), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 576))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 24, 256)) block(256) args(sub_sum, sub_prod, i32(24), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 24))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 24, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 24))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 24, 256)) block(256) args(attn, sub_new, i32(24), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 24))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 25, 1024)) block(256) args(sub_row, attn, i32(25), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 25))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 625, 1024)) block(256) args(sub_mat, attn, i32(25), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 625))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 625, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(25), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 625))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 25, 256)) block(256) args(sub_sum, sub_prod, i32(25), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 25))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 25, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 25))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 25, 256)) block(256) args(attn, sub_new, i32(25), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 25))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 26, 1024)) block(256) args(sub_row, attn, i32(26), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 26))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 676, 1024)) block(256) args(sub_mat, attn, i32(26), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 676))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 676, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(26), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 676))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 26, 256)) block(256) args(sub_sum, sub_prod, i32(26), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 26))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 26, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 26))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 26, 256)) block(256) args(attn, sub_new, i32(26), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 26))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 27, 1024)) block(256) args(sub_row, attn, i32(27), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 27))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 729, 1024)) block(256) args(sub_mat, attn, i32(27), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 729))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 729, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(27), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 729))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 27, 256)) block(256) args(sub_sum, sub_prod, i32(27), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 27))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 27, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 27))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 27, 256)) block(256) args(attn, sub_new, i32(27), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 27))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 28, 1024)) block(256) args(sub_row, attn, i32(28), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 28))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 784, 1024)) block(256) args(sub_mat, attn, i32(28), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 784))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 784, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(28), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 784))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 28, 256)) block(256) args(sub_sum, sub_prod, i32(28), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 28))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 28, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 28))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 28, 256)) block(256) args(attn, sub_new, i32(28), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 28))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 29, 1024)) block(256) args(sub_row, attn, i32(29), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 29))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 841, 1024)) block(256) args(sub_mat, attn, i32(29), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 841))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 841, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(29), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 841))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 29, 256)) block(256) args(sub_sum, sub_prod, i32(29), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 29))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 29, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 29))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 29, 256)) block(256) args(attn, sub_new, i32(29), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 29))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 30, 1024)) block(256) args(sub_row, attn, i32(30), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 30))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 900, 1024)) block(256) args(sub_mat, attn, i32(30), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 900))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 900, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(30), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 900))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 30, 256)) block(256) args(sub_sum, sub_prod, i32(30), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 30))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 30, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 30))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 30, 256)) block(256) args(attn, sub_new, i32(30), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 30))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 31, 1024)) block(256) args(sub_row, attn, i32(31), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 31))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 961, 1024)) block(256) args(sub_mat, attn, i32(31), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 961))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 961, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(31), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 961))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 31, 256)) block(256) args(sub_sum, sub_prod, i32(31), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 31))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 31, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 31))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 31, 256)) block(256) args(attn, sub_new, i32(31), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 31))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 32, 1024)) block(256) args(sub_row, attn, i32(32), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 32))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1024, 1024)) block(256) args(sub_mat, attn, i32(32), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1024))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1024, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(32), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1024))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 32, 256)) block(256) args(sub_sum, sub_prod, i32(32), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 32))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 32, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 32))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 32, 256)) block(256) args(attn, sub_new, i32(32), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 32))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 33, 1024)) block(256) args(sub_row, attn, i32(33), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 33))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1089, 1024)) block(256) args(sub_mat, attn, i32(33), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1089))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1089, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(33), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1089))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 33, 256)) block(256) args(sub_sum, sub_prod, i32(33), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 33))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 33, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 33))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 33, 256)) block(256) args(attn, sub_new, i32(33), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 33))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 34, 1024)) block(256) args(sub_row, attn, i32(34), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 34))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1156, 1024)) block(256) args(sub_mat, attn, i32(34), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1156))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1156, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(34), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1156))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 34, 256)) block(256) args(sub_sum, sub_prod, i32(34), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 34))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 34, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 34))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 34, 256)) block(256) args(attn, sub_new, i32(34), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 34))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 35, 1024)) block(256) args(sub_row, attn, i32(35), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 35))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1225, 1024)) block(256) args(sub_mat, attn, i32(35), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1225))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1225, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(35), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1225))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 35, 256)) block(256) args(sub_sum, sub_prod, i32(35), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 35))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 35, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 35))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 35, 256)) block(256) args(attn, sub_new, i32(35), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 35))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 36, 1024)) block(256) args(sub_row, attn, i32(36), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 36))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1296, 1024)) block(256) args(sub_mat, attn, i32(36), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1296))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1296, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(36), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1296))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 36, 256)) block(256) args(sub_sum, sub_prod, i32(36), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 36))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 36, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 36))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 36, 256)) block(256) args(attn, sub_new, i32(36), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 36))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 37, 1024)) block(256) args(sub_row, attn, i32(37), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 37))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1369, 1024)) block(256) args(sub_mat, attn, i32(37), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1369))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1369, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(37), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1369))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 37, 256)) block(256) args(sub_sum, sub_prod, i32(37), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 37))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 37, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 37))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 37, 256)) block(256) args(attn, sub_new, i32(37), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 37))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 38, 1024)) block(256) args(sub_row, attn, i32(38), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 38))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1444, 1024)) block(256) args(sub_mat, attn, i32(38), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1444))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1444, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(38), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1444))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 38, 256)) block(256) args(sub_sum, sub_prod, i32(38), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 38))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 38, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 38))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 38, 256)) block(256) args(attn, sub_new, i32(38), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 38))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 39, 1024)) block(256) args(sub_row, attn, i32(39), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 39))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1521, 1024)) block(256) args(sub_mat, attn, i32(39), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1521))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1521, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(39), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1521))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 39, 256)) block(256) args(sub_sum, sub_prod, i32(39), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 39))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 39, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 39))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 39, 256)) block(256) args(attn, sub_new, i32(39), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 39))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 40, 1024)) block(256) args(sub_row, attn, i32(40), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 40))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1600, 1024)) block(256) args(sub_mat, attn, i32(40), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1600))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1600, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(40), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1600))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 40, 256)) block(256) args(sub_sum, sub_prod, i32(40), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 40))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 40, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 40))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 40, 256)) block(256) args(attn, sub_new, i32(40), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 40))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 41, 1024)) block(256) args(sub_row, attn, i32(41), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 41))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1681, 1024)) block(256) args(sub_mat, attn, i32(41), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1681))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1681, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(41), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1681))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 41, 256)) block(256) args(sub_sum, sub_prod, i32(41), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 41))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 41, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 41))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 41, 256)) block(256) args(attn, sub_new, i32(41), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 41))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 42, 1024)) block(256) args(sub_row, attn, i32(42), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 42))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1764, 1024)) block(256) args(sub_mat, attn, i32(42), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1764))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1764, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(42), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1764))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 42, 256)) block(256) args(sub_sum, sub_prod, i32(42), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 42))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 42, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 42))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 42, 256)) block(256) args(attn, sub_new, i32(42), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 42))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 43, 1024)) block(256) args(sub_row, attn, i32(43), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 43))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1849, 1024)) block(256) args(sub_mat, attn, i32(43), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1849))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1849, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(43), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1849))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 43, 256)) block(256) args(sub_sum, sub_prod, i32(43), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 43))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 43, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 43))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 43, 256)) block(256) args(attn, sub_new, i32(43), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 43))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 44, 1024)) block(256) args(sub_row, attn, i32(44), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 44))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1936, 1024)) block(256) args(sub_mat, attn, i32(44), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1936))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 1936, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(44), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 1936))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 44, 256)) block(256) args(sub_sum, sub_prod, i32(44), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 44))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 44, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 44))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 44, 256)) block(256) args(attn, sub_new, i32(44), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 44))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 45, 1024)) block(256) args(sub_row, attn, i32(45), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 45))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2025, 1024)) block(256) args(sub_mat, attn, i32(45), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2025))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2025, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(45), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2025))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 45, 256)) block(256) args(sub_sum, sub_prod, i32(45), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 45))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 45, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 45))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 45, 256)) block(256) args(attn, sub_new, i32(45), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 45))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 46, 1024)) block(256) args(sub_row, attn, i32(46), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 46))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2116, 1024)) block(256) args(sub_mat, attn, i32(46), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2116))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2116, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(46), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2116))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 46, 256)) block(256) args(sub_sum, sub_prod, i32(46), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 46))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 46, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 46))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 46, 256)) block(256) args(attn, sub_new, i32(46), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 46))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 47, 1024)) block(256) args(sub_row, attn, i32(47), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 47))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2209, 1024)) block(256) args(sub_mat, attn, i32(47), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2209))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2209, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(47), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2209))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 47, 256)) block(256) args(sub_sum, sub_prod, i32(47), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 47))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 47, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 47))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 47, 256)) block(256) args(attn, sub_new, i32(47), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 47))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 48, 1024)) block(256) args(sub_row, attn, i32(48), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 48))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2304, 1024)) block(256) args(sub_mat, attn, i32(48), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2304))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2304, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(48), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2304))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 48, 256)) block(256) args(sub_sum, sub_prod, i32(48), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 48))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 48, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 48))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 48, 256)) block(256) args(attn, sub_new, i32(48), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 48))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 49, 1024)) block(256) args(sub_row, attn, i32(49), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 49))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2401, 1024)) block(256) args(sub_mat, attn, i32(49), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2401))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2401, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(49), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2401))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 49, 256)) block(256) args(sub_sum, sub_prod, i32(49), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 49))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 49, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 49))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 49, 256)) block(256) args(attn, sub_new, i32(49), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 49))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 50, 1024)) block(256) args(sub_row, attn, i32(50), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 50))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2500, 1024)) block(256) args(sub_mat, attn, i32(50), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2500))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2500, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(50), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2500))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 50, 256)) block(256) args(sub_sum, sub_prod, i32(50), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 50))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 50, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 50))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 50, 256)) block(256) args(attn, sub_new, i32(50), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 50))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 51, 1024)) block(256) args(sub_row, attn, i32(51), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 51))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2601, 1024)) block(256) args(sub_mat, attn, i32(51), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2601))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2601, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(51), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2601))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 51, 256)) block(256) args(sub_sum, sub_prod, i32(51), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 51))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 51, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 51))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 51, 256)) block(256) args(attn, sub_new, i32(51), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 51))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 52, 1024)) block(256) args(sub_row, attn, i32(52), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 52))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2704, 1024)) block(256) args(sub_mat, attn, i32(52), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2704))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2704, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(52), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2704))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 52, 256)) block(256) args(sub_sum, sub_prod, i32(52), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 52))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 52, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 52))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 52, 256)) block(256) args(attn, sub_new, i32(52), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 52))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 53, 1024)) block(256) args(sub_row, attn, i32(53), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 53))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2809, 1024)) block(256) args(sub_mat, attn, i32(53), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2809))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2809, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(53), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2809))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 53, 256)) block(256) args(sub_sum, sub_prod, i32(53), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 53))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 53, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 53))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 53, 256)) block(256) args(attn, sub_new, i32(53), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 53))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 54, 1024)) block(256) args(sub_row, attn, i32(54), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 54))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2916, 1024)) block(256) args(sub_mat, attn, i32(54), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2916))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 2916, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(54), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 2916))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 54, 256)) block(256) args(sub_sum, sub_prod, i32(54), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 54))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 54, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 54))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 54, 256)) block(256) args(attn, sub_new, i32(54), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 54))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 55, 1024)) block(256) args(sub_row, attn, i32(55), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 55))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3025, 1024)) block(256) args(sub_mat, attn, i32(55), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3025))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3025, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(55), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3025))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 55, 256)) block(256) args(sub_sum, sub_prod, i32(55), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 55))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 55, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 55))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 55, 256)) block(256) args(attn, sub_new, i32(55), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 55))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 56, 1024)) block(256) args(sub_row, attn, i32(56), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 56))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3136, 1024)) block(256) args(sub_mat, attn, i32(56), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3136))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3136, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(56), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3136))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 56, 256)) block(256) args(sub_sum, sub_prod, i32(56), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 56))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 56, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 56))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 56, 256)) block(256) args(attn, sub_new, i32(56), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 56))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 57, 1024)) block(256) args(sub_row, attn, i32(57), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 57))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3249, 1024)) block(256) args(sub_mat, attn, i32(57), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3249))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3249, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(57), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3249))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 57, 256)) block(256) args(sub_sum, sub_prod, i32(57), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 57))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 57, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 57))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 57, 256)) block(256) args(attn, sub_new, i32(57), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 57))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 58, 1024)) block(256) args(sub_row, attn, i32(58), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 58))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3364, 1024)) block(256) args(sub_mat, attn, i32(58), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3364))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3364, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(58), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3364))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 58, 256)) block(256) args(sub_sum, sub_prod, i32(58), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 58))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 58, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 58))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 58, 256)) block(256) args(attn, sub_new, i32(58), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 58))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 59, 1024)) block(256) args(sub_row, attn, i32(59), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 59))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3481, 1024)) block(256) args(sub_mat, attn, i32(59), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3481))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3481, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(59), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3481))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 59, 256)) block(256) args(sub_sum, sub_prod, i32(59), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 59))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 59, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 59))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 59, 256)) block(256) args(attn, sub_new, i32(59), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 59))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 60, 1024)) block(256) args(sub_row, attn, i32(60), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 60))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3600, 1024)) block(256) args(sub_mat, attn, i32(60), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3600))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3600, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(60), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3600))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 60, 256)) block(256) args(sub_sum, sub_prod, i32(60), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 60))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 60, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 60))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 60, 256)) block(256) args(attn, sub_new, i32(60), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 60))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 61, 1024)) block(256) args(sub_row, attn, i32(61), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 61))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3721, 1024)) block(256) args(sub_mat, attn, i32(61), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3721))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3721, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(61), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3721))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 61, 256)) block(256) args(sub_sum, sub_prod, i32(61), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 61))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 61, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 61))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 61, 256)) block(256) args(attn, sub_new, i32(61), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 61))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 62, 1024)) block(256) args(sub_row, attn, i32(62), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 62))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3844, 1024)) block(256) args(sub_mat, attn, i32(62), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3844))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3844, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(62), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3844))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 62, 256)) block(256) args(sub_sum, sub_prod, i32(62), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 62))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 62, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 62))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 62, 256)) block(256) args(attn, sub_new, i32(62), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 62))
launch row_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 63, 1024)) block(256) args(sub_row, attn, i32(63), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 63))
launch sub_copy grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3969, 1024)) block(256) args(sub_mat, attn, i32(63), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3969))
launch row_times_sub grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 3969, 1024)) block(256) args(sub_prod, sub_row, sub_mat, i32(63), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 3969))
launch sum_dim_m2 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 63, 256)) block(256) args(sub_sum, sub_prod, i32(63), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 63))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 63, 1024)) block(256) args(sub_new, sub_row, sub_sum, i64(batch_size * num_v_heads * (seq_len / chunk_size) * 63))
launch row_store grid(ceil_div(batch_size * num_v_heads * (seq_len / chunk_size) * 63, 256)) block(256) args(attn, sub_new, i32(63), i64(batch_size * num_v_heads * (seq_len / chunk_size) * 63))
# attn + eye; v_solved = attn @ v_beta; k_cumdecay = attn @ (k_beta * g.exp())
launch fill_f32 grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(eye, f32(0), i64(chunk_size * chunk_size))
launch eye_diagonal grid(1) block(chunk_size) args(eye)
launch add_eye grid(ceil_div(batch_size * num_v_heads * seq_len * chunk_size, 1024)) block(256) args(attn_t, attn, eye, i64(batch_size * num_v_heads * seq_len * chunk_size))
matmul c(v_solved) a(attn_t) b(v_beta) m(chunk_size) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads * (seq_len / chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_v_heads * seq_len, 1024)) block(256) args(g_exp, g32, i64(batch_size * num_v_heads * seq_len))
launch mul_rowvec grid(ceil_div(batch_size * num_v_heads * seq_len * head_k_dim, 1024)) block(256) args(kbg, k_beta, g_exp, i64(batch_size * num_v_heads * seq_len * head_k_dim))
matmul c(k_cumdecay) a(attn_t) b(kbg) m(chunk_size) n(head_k_dim) k(chunk_size) batch(batch_size * num_v_heads * (seq_len / chunk_size))
# state and output zeros; the mask above the diagonal
launch fill_f32 grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_a, f32(0), i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
launch fill_f32 grid(ceil_div(batch_size * num_v_heads * seq_len * head_v_dim, 1024)) block(256) args(out, f32(0), i64(batch_size * num_v_heads * seq_len * head_v_dim))
launch fill_true grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(ones_b, i32(0), i64(chunk_size * chunk_size))
launch triu_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(above, ones_b, i32(1), i64(chunk_size * chunk_size))
# chunk 0
launch sgemm_strided grid(1, 1, batch_size * num_v_heads) block(256) args(qk_c, q_c, k_c, i32(chunk_size), i32(chunk_size), i32(head_k_dim), i64(0 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(0 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i32(1))
launch mul_decay_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 1024)) block(256) args(intra, qk_c, decay, i32(0), i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch masked_zero_inplace grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 256)) block(256) args(intra, above, i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch sgemm_strided grid(2, 1, batch_size * num_v_heads) block(256) args(v_prime, k_cumdecay, state_a, i32(chunk_size), i32(head_v_dim), i32(head_k_dim), i64(0 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(0), i64(head_k_dim * head_v_dim), i32(head_v_dim), i32(0))
launch sub_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(v_new, v_solved, v_prime, i32(0), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(g_e, g32, i32(0), i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(q_g, q_c, g_e, i32(0), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(inter) a(q_g) b(state_a) m(chunk_size) n(head_v_dim) k(head_k_dim) batch(batch_size * num_v_heads)
matmul c(intra_v) a(intra) b(v_new) m(chunk_size) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads)
launch add_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(out_sum, inter, intra_v, i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch chunk_store grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 256)) block(256) args(out, out_sum, i32(0), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_last grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(c_decay, g32, i32(0), i64(batch_size * num_v_heads))
launch scale_state grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_b, state_a, c_decay, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
launch sub_last_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last_d, g32, i32(0), i64(batch_size * num_v_heads * chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last, to_last_d, i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(k_t, k_c, to_last, i32(0), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(upd) a(k_t) b(v_new) m(head_k_dim) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads) transpose_a
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_a, state_b, upd, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
# chunk 1
launch sgemm_strided grid(1, 1, batch_size * num_v_heads) block(256) args(qk_c, q_c, k_c, i32(chunk_size), i32(chunk_size), i32(head_k_dim), i64(1 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(1 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i32(1))
launch mul_decay_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 1024)) block(256) args(intra, qk_c, decay, i32(1), i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch masked_zero_inplace grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 256)) block(256) args(intra, above, i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch sgemm_strided grid(2, 1, batch_size * num_v_heads) block(256) args(v_prime, k_cumdecay, state_a, i32(chunk_size), i32(head_v_dim), i32(head_k_dim), i64(1 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(0), i64(head_k_dim * head_v_dim), i32(head_v_dim), i32(0))
launch sub_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(v_new, v_solved, v_prime, i32(1), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(g_e, g32, i32(1), i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(q_g, q_c, g_e, i32(1), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(inter) a(q_g) b(state_a) m(chunk_size) n(head_v_dim) k(head_k_dim) batch(batch_size * num_v_heads)
matmul c(intra_v) a(intra) b(v_new) m(chunk_size) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads)
launch add_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(out_sum, inter, intra_v, i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch chunk_store grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 256)) block(256) args(out, out_sum, i32(1), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_last grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(c_decay, g32, i32(1), i64(batch_size * num_v_heads))
launch scale_state grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_b, state_a, c_decay, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
launch sub_last_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last_d, g32, i32(1), i64(batch_size * num_v_heads * chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last, to_last_d, i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(k_t, k_c, to_last, i32(1), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(upd) a(k_t) b(v_new) m(head_k_dim) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads) transpose_a
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_a, state_b, upd, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
# chunk 2
launch sgemm_strided grid(1, 1, batch_size * num_v_heads) block(256) args(qk_c, q_c, k_c, i32(chunk_size), i32(chunk_size), i32(head_k_dim), i64(2 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(2 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i32(1))
launch mul_decay_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 1024)) block(256) args(intra, qk_c, decay, i32(2), i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch masked_zero_inplace grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 256)) block(256) args(intra, above, i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch sgemm_strided grid(2, 1, batch_size * num_v_heads) block(256) args(v_prime, k_cumdecay, state_a, i32(chunk_size), i32(head_v_dim), i32(head_k_dim), i64(2 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(0), i64(head_k_dim * head_v_dim), i32(head_v_dim), i32(0))
launch sub_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(v_new, v_solved, v_prime, i32(2), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(g_e, g32, i32(2), i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(q_g, q_c, g_e, i32(2), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(inter) a(q_g) b(state_a) m(chunk_size) n(head_v_dim) k(head_k_dim) batch(batch_size * num_v_heads)
matmul c(intra_v) a(intra) b(v_new) m(chunk_size) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads)
launch add_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(out_sum, inter, intra_v, i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch chunk_store grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 256)) block(256) args(out, out_sum, i32(2), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_last grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(c_decay, g32, i32(2), i64(batch_size * num_v_heads))
launch scale_state grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_b, state_a, c_decay, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
launch sub_last_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last_d, g32, i32(2), i64(batch_size * num_v_heads * chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last, to_last_d, i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(k_t, k_c, to_last, i32(2), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(upd) a(k_t) b(v_new) m(head_k_dim) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads) transpose_a
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_a, state_b, upd, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
# chunk 3
launch sgemm_strided grid(1, 1, batch_size * num_v_heads) block(256) args(qk_c, q_c, k_c, i32(chunk_size), i32(chunk_size), i32(head_k_dim), i64(3 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(3 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i32(1))
launch mul_decay_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 1024)) block(256) args(intra, qk_c, decay, i32(3), i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch masked_zero_inplace grid(ceil_div(batch_size * num_v_heads * chunk_size * chunk_size, 256)) block(256) args(intra, above, i64(batch_size * num_v_heads * chunk_size * chunk_size))
launch sgemm_strided grid(2, 1, batch_size * num_v_heads) block(256) args(v_prime, k_cumdecay, state_a, i32(chunk_size), i32(head_v_dim), i32(head_k_dim), i64(3 * chunk_size * head_k_dim), i64(seq_len * head_k_dim), i32(head_k_dim), i64(0), i64(head_k_dim * head_v_dim), i32(head_v_dim), i32(0))
launch sub_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(v_new, v_solved, v_prime, i32(3), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(g_e, g32, i32(3), i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(q_g, q_c, g_e, i32(3), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(inter) a(q_g) b(state_a) m(chunk_size) n(head_v_dim) k(head_k_dim) batch(batch_size * num_v_heads)
matmul c(intra_v) a(intra) b(v_new) m(chunk_size) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads)
launch add_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(out_sum, inter, intra_v, i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch chunk_store grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 256)) block(256) args(out, out_sum, i32(3), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
launch exp_last grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(c_decay, g32, i32(3), i64(batch_size * num_v_heads))
launch scale_state grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_b, state_a, c_decay, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
launch sub_last_chunk grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last_d, g32, i32(3), i64(batch_size * num_v_heads * chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_v_heads * chunk_size, 1024)) block(256) args(to_last, to_last_d, i64(batch_size * num_v_heads * chunk_size))
launch mul_chunk_rows grid(ceil_div(batch_size * num_v_heads * chunk_size * head_v_dim, 1024)) block(256) args(k_t, k_c, to_last, i32(3), i64(batch_size * num_v_heads * chunk_size * head_v_dim))
matmul c(upd) a(k_t) b(v_new) m(head_k_dim) n(head_v_dim) k(chunk_size) batch(batch_size * num_v_heads) transpose_a
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_k_dim * head_v_dim, 1024)) block(256) args(state_a, state_b, upd, i64(batch_size * num_v_heads * head_k_dim * head_v_dim))
# out.transpose(1, 2).contiguous().to(bf16)
launch transpose_heads grid(ceil_div(batch_size * num_v_heads * seq_len * head_v_dim, 1024)) block(256) args(out_t, out, i64(batch_size * num_v_heads * seq_len * head_v_dim))
launch to_bf16 grid(ceil_div(batch_size * num_v_heads * seq_len * head_v_dim, 1024)) block(256) args(output, out_t, i64(batch_size * num_v_heads * seq_len * head_v_dim))
*/
