// The unfused baseline: one launch per eager PyTorch op of the reconstructed reference, fp32 throughout,
// every intermediate in memory at fp32. The LayerNorm is written out (mean; var, a Welford reduction;
// x - mean; var + eps; sqrt; divide). Each F.linear with a bias is addmm: the bias broadcast into the
// output, then a cuBLAS SGEMM accumulating onto it (`matmul ... accumulate`: one rounding of sum + bias).
// The chunk into scale/shift and the [:, None, :] broadcasts are views (no launch).
#include "mkb_ops.cuh"

// mean[r] over a row of inner_dim
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)

// Bespoke: torch.var runs a Welford reduction (combined across threads with Chan's formula); no
// mkb_ops block does. One block per row; var[r] = m2 / n (biased).
__device__ __forceinline__ void welford_combine(float &n, float &m, float &m2, float nb, float mb, float m2b) {
  if (nb == 0.0f) return;
  if (n == 0.0f) {
    n = nb;
    m = mb;
    m2 = m2b;
    return;
  }
  const float total = n + nb;
  const float delta = mb - m;
  const float fb = nb / total;
  m = m + delta * fb;
  m2 = m2 + m2b + delta * delta * n * fb;
  n = total;
}

extern "C" __global__ void row_var(const float *__restrict__ x, float *__restrict__ var, int cols) {
  __shared__ float part_n[32], part_m[32], part_m2[32];
  const float *row = x + (long long)blockIdx.x * cols;
  float n = 0.0f, m = 0.0f, m2 = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = row[c];
    n += 1.0f;
    const float delta = v - m;
    m += delta / n;
    m2 += delta * (v - m);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const float nb = __shfl_down_sync(0xffffffffu, n, offset);
    const float mb = __shfl_down_sync(0xffffffffu, m, offset);
    const float m2b = __shfl_down_sync(0xffffffffu, m2, offset);
    welford_combine(n, m, m2, nb, mb, m2b);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = (blockDim.x + 31) / 32;
  if (lane == 0) {
    part_n[warp] = n;
    part_m[warp] = m;
    part_m2[warp] = m2;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float tn = 0.0f, tm = 0.0f, tm2 = 0.0f;
    for (int w = 0; w < warps; ++w) welford_combine(tn, tm, tm2, part_n[w], part_m[w], part_m2[w]);
    var[blockIdx.x] = fmaxf(tm2 / tn, 0.0f);
  }
}

// d = x - mean[row]
MKB_MAP(sub_mean, float, (const float *x, const float *mean, long long cols), x[i] - mean[i / cols])
// var + eps, then sqrt
MKB_MAP(add_eps, float, (const float *var, float eps), var[i] + eps)
MKB_MAP(sqrt_map, float, (const float *t), sqrtf(t[i]))
// x_norm = d / s[row]
MKB_MAP(div_std, float, (const float *d, const float *s, long long cols), d[i] / s[i / cols])
// silu = temb * sigmoid(temb): two eager ops
MKB_MAP(sigmoid_map, float, (const float *a), mkb_sigmoid(a[i]))
MKB_MAP(mul_map, float, (const float *a, const float *b), a[i] * b[i])
// addmm's bias broadcast into the output rows (a copy)
MKB_MAP(broadcast_rows, float, (const float *bias, int cols), bias[i % cols])
// s1 = 1.0 + scale, scale = emb[:, 0:dim] (emb rows are 2 * dim wide)
MKB_MAP(one_plus_scale, float, (const float *emb, int dim), 1.0f + emb[(i / dim) * 2 * dim + i % dim])
// x_norm * s1[b, None, c]
MKB_MAP(mul_modulation, float, (const float *xn, const float *s1, long long per_batch, int dim),
        xn[i] * s1[(i / per_batch) * dim + i % dim])
// + shift[b, None, c], shift = emb[:, dim:2*dim]
MKB_MAP(add_shift, float, (const float *m, const float *emb, long long per_batch, int dim),
        m[i] + emb[(i / per_batch) * 2 * dim + dim + i % dim])

/* mkb:plan
scratch mean fp32[batch_size * seq_len]
scratch var fp32[batch_size * seq_len]
scratch t fp32[batch_size * seq_len]
scratch s fp32[batch_size * seq_len]
scratch d fp32[batch_size * seq_len * inner_dim]
scratch xn fp32[batch_size * seq_len * inner_dim]
scratch sg fp32[batch_size * inner_dim]
scratch st fp32[batch_size * inner_dim]
scratch emb fp32[batch_size * modulation_dim]
scratch s1 fp32[batch_size * inner_dim]
scratch m fp32[batch_size * seq_len * inner_dim]
scratch xm fp32[batch_size * seq_len * inner_dim]
launch row_mean grid(batch_size * seq_len) block(256) args(mean, hidden_states, i32(inner_dim))
launch row_var grid(batch_size * seq_len) block(256) args(hidden_states, var, i32(inner_dim))
launch sub_mean grid(ceil_div(batch_size * seq_len * inner_dim, 1024)) block(256)
  args(d, hidden_states, mean, i64(inner_dim), i64(batch_size * seq_len * inner_dim))
launch add_eps grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(t, var, f32(eps), i64(batch_size * seq_len))
launch sqrt_map grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(s, t, i64(batch_size * seq_len))
launch div_std grid(ceil_div(batch_size * seq_len * inner_dim, 1024)) block(256)
  args(xn, d, s, i64(inner_dim), i64(batch_size * seq_len * inner_dim))
launch sigmoid_map grid(ceil_div(batch_size * inner_dim, 1024)) block(256) args(sg, temb, i64(batch_size * inner_dim))
launch mul_map grid(ceil_div(batch_size * inner_dim, 1024)) block(256) args(st, temb, sg, i64(batch_size * inner_dim))
launch broadcast_rows grid(ceil_div(batch_size * modulation_dim, 1024)) block(256)
  args(emb, mod_bias, i32(modulation_dim), i64(batch_size * modulation_dim))
matmul c(emb) a(st) b(mod_weight) m(batch_size) n(modulation_dim) k(inner_dim) transpose_b accumulate
launch one_plus_scale grid(ceil_div(batch_size * inner_dim, 1024)) block(256) args(s1, emb, i32(inner_dim), i64(batch_size * inner_dim))
launch mul_modulation grid(ceil_div(batch_size * seq_len * inner_dim, 1024)) block(256)
  args(m, xn, s1, i64(seq_len * inner_dim), i32(inner_dim), i64(batch_size * seq_len * inner_dim))
launch add_shift grid(ceil_div(batch_size * seq_len * inner_dim, 1024)) block(256)
  args(xm, m, emb, i64(seq_len * inner_dim), i32(inner_dim), i64(batch_size * seq_len * inner_dim))
launch broadcast_rows grid(ceil_div(batch_size * seq_len * output_dim, 1024)) block(256)
  args(out, out_bias, i32(output_dim), i64(batch_size * seq_len * output_dim))
matmul c(out) a(xm) b(out_weight) m(batch_size * seq_len) n(output_dim) k(inner_dim) transpose_b accumulate
*/
