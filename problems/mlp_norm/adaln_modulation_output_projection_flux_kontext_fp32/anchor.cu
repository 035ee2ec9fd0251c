// The float64 anchor: the same semantics with every intermediate in double and no rounding points.
// Inputs are read at fp32; the matmuls run on fp64 copies of the operands.
#include "mkb_ops.cuh"

// LayerNorm (no affine; biased variance, two-pass) of one row per block, in double, fused with the modulation:
// out = xn * (1 + scale[b]) + shift[b]; emb rows are [scale | shift], 2 * cols wide.
extern "C" __global__ void layer_norm_modulate_f64(const float *x, const double *emb, double *out, int cols,
                                                   int tokens, double eps) {
  const long long row = blockIdx.x;
  const long long base = row * cols;
  const double *scale = emb + (row / tokens) * 2 * cols;
  const double *shift = scale + cols;
  double s = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += f64(x[base + c]);
  const double mean = mkb_ops::block_reduce<mkb_ops::sum_op>(s) / cols;
  double q = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const double d = f64(x[base + c]) - mean;
    q += d * d;
  }
  const double rstd = 1.0 / sqrt(mkb_ops::block_reduce<mkb_ops::sum_op>(q) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[base + c] = (f64(x[base + c]) - mean) * rstd * (1.0 + scale[c]) + shift[c];
}

MKB_MAP(to_f64, double, (const float *a), f64(a[i]))
MKB_MAP(silu_f64, double, (const float *a), mkb_silu(f64(a[i])))
MKB_MAP(add_bias, double, (const double *a, const float *bias, int cols), a[i] + f64(bias[i % cols]))

/* mkb:plan
scratch st fp64[batch_size * inner_dim]
scratch wn fp64[modulation_dim * inner_dim]
scratch wp fp64[output_dim * inner_dim]
scratch emb0 fp64[batch_size * modulation_dim]
scratch emb fp64[batch_size * modulation_dim]
scratch m fp64[batch_size * seq_len * inner_dim]
scratch y0 fp64[batch_size * seq_len * output_dim]
launch silu_f64 grid(ceil_div(batch_size * inner_dim, 1024)) block(256) args(st, temb, i64(batch_size * inner_dim))
launch to_f64 grid(ceil_div(modulation_dim * inner_dim, 1024)) block(256) args(wn, mod_weight, i64(modulation_dim * inner_dim))
launch to_f64 grid(ceil_div(output_dim * inner_dim, 1024)) block(256) args(wp, out_weight, i64(output_dim * inner_dim))
matmul c(emb0) a(st) b(wn) m(batch_size) n(modulation_dim) k(inner_dim) transpose_b
launch add_bias grid(ceil_div(batch_size * modulation_dim, 1024)) block(256) args(emb, emb0, mod_bias, i32(modulation_dim), i64(batch_size * modulation_dim))
launch layer_norm_modulate_f64 grid(batch_size * seq_len) block(256) args(hidden_states, emb, m, i32(inner_dim), i32(seq_len), f64(eps))
matmul c(y0) a(m) b(wp) m(batch_size * seq_len) n(output_dim) k(inner_dim) transpose_b
launch add_bias grid(ceil_div(batch_size * seq_len * output_dim, 1024)) block(256)
  args(out, y0, out_bias, i32(output_dim), i64(batch_size * seq_len * output_dim))
*/
