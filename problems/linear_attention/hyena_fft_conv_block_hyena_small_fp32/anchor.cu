// The float64 anchor of the Hyena block (reference.md): every step in double; the long convolution
// computed directly (y[c, t] = sum_{s <= t} k[c, s] g[c, t - s], what the original's zero-padded FFT
// computes), the products as float64 matmul steps on float64 copies of the weights. Activations are
// token-major [batch * seq, channels].
#include "mkb_ops.cuh"

constexpr int kB = 32, kL = 256, kD = 256, kW = 768, kF = 64;

MKB_MAP(to_f64, double, (const float *x), f64(x[i]))

// LayerNorm of one 256-wide row (biased variance), one block of 256 threads per row
template <class T>
__device__ void layer_norm_row(const T *x, const float *w, const float *b, double eps, double *out) {
  const long long r = blockIdx.x;
  const double v = f64(x[r * kD + threadIdx.x]);
  const double mean = mkb_ops::block_reduce<mkb_ops::sum_op>(v) / kD;
  const double var = mkb_ops::block_reduce<mkb_ops::sum_op>((v - mean) * (v - mean)) / kD;
  out[r * kD + threadIdx.x] = (v - mean) / sqrt(var + eps) * f64(w[threadIdx.x]) + f64(b[threadIdx.x]);
}
extern "C" __global__ void ln_f32(const float *x, const float *w, const float *b, double eps, double *out) {
  layer_norm_row(x, w, b, eps, out);
}
extern "C" __global__ void ln_f64(const double *x, const float *w, const float *b, double eps, double *out) {
  layer_norm_row(x, w, b, eps, out);
}

// short causal filter of width 3 on u + b_in, split into x0, x1, v; element (token row, channel c < 256)
extern "C" __global__ void short_conv(const double *u, const float *in_bias, const float *conv_w, const float *conv_b,
                                      double *x0, double *x1, double *v) {
  const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (long long)kB * kL * kD) return;
  const long long row = e / kD;
  const int c = (int)(e % kD), t = (int)(row % kL);
  double out[3];
  for (int part = 0; part < 3; ++part) {
    const int ch = part * kD + c;
    double acc = f64(conv_b[ch]);
    for (int j = 0; j < 3; ++j) {
      const int src = t - 2 + j;
      if (src >= 0) acc += f64(conv_w[ch * 3 + j]) * (u[(row - t + src) * kW + ch] + f64(in_bias[ch]));
    }
    out[part] = acc;
  }
  x0[e] = out[0];
  x1[e] = out[1];
  v[e] = out[2];
}

// implicit filter at position i (block i, 256 threads): hk[i, c]
extern "C" __global__ void implicit_filter(const float *w1, const float *b1, const float *sin_freq, const float *w2,
                                           const float *b2, const float *w3, const float *b3, const float *w_final,
                                           const float *filter_bias, const float *deltas, double shift, double *hk) {
  __shared__ double z[5], ha[kF], hb[kF];
  const int i = blockIdx.x, tid = threadIdx.x;
  const double pi = 3.14159265358979323846;
  const double t = (double)i / (kL - 1), w = 2.0 * pi * i / kL;
  if (tid == 0) {
    z[0] = t;
    z[1] = cos(-1e-4 * w);
    z[2] = cos(-w);
    z[3] = sin(-1e-4 * w);
    z[4] = sin(-w);
  }
  __syncthreads();
  if (tid < kF) {
    double acc = f64(b1[tid]);
    for (int k = 0; k < 5; ++k) acc += f64(w1[tid * 5 + k]) * z[k];
    ha[tid] = sin(f64(sin_freq[tid]) * acc);
  }
  __syncthreads();
  if (tid < kF) {
    double acc = f64(b2[tid]);
    for (int k = 0; k < kF; ++k) acc += f64(w2[tid * kF + k]) * ha[k];
    hb[tid] = sin(f64(sin_freq[tid]) * acc);
  }
  __syncthreads();
  if (tid < kF) {
    double acc = f64(b3[tid]);
    for (int k = 0; k < kF; ++k) acc += f64(w3[tid * kF + k]) * hb[k];
    ha[tid] = sin(f64(sin_freq[tid]) * acc);
  }
  __syncthreads();
  double acc = 0.0;
  for (int k = 0; k < kF; ++k) acc += f64(w_final[tid * kF + k]) * ha[k];
  const double decay = exp(-t * fabs(f64(deltas[tid])));
  hk[i * kD + tid] = acc * (decay + shift) + f64(filter_bias[tid]);
}

MKB_MAP(gate_product, double, (const double *v, const double *x1), v[i] * x1[i])

// gated[row, c] = (sum_{s <= t} k[c, s] g[t - s, c] + g[t, c] * filter_bias[c]) * x0[row, c], k[c, s] = hk[c * 256 + s]
extern "C" __global__ void long_conv(const double *g, const double *x0, const double *hk, const float *filter_bias,
                                     double *gated) {
  const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (long long)kB * kL * kD) return;
  const long long row = e / kD;
  const int c = (int)(e % kD), t = (int)(row % kL);
  const long long first = row - t;
  double y = 0.0;
  for (int s = 0; s <= t; ++s) y += hk[c * kL + s] * g[(first + t - s) * kD + c];
  gated[e] = (y + g[e] * f64(filter_bias[c])) * x0[e];
}

MKB_MAP(add_bias_residual, double, (const double *y, const float *bias, const float *x), y[i] + f64(bias[i % kD]) + f64(x[i]))
MKB_MAP(bias_gelu, double, (const double *y, const float *bias), mkb_gelu_tanh(y[i] + f64(bias[i % 1024])))
MKB_MAP(add_bias_residual64, double, (const double *y, const float *bias, const double *r), y[i] + f64(bias[i % kD]) + r[i])

/* mkb:plan
scratch w_in fp64[inner_width * d_model]
scratch w_out fp64[d_model * d_model]
scratch w_fc1 fp64[d_inner * d_model]
scratch w_fc2 fp64[d_model * d_inner]
scratch n1 fp64[batch_size * seq_len * d_model]
scratch u fp64[batch_size * seq_len * inner_width]
scratch x0 fp64[batch_size * seq_len * d_model]
scratch x1 fp64[batch_size * seq_len * d_model]
scratch v fp64[batch_size * seq_len * d_model]
scratch hk fp64[seq_len * d_model]
scratch g fp64[batch_size * seq_len * d_model]
scratch gated fp64[batch_size * seq_len * d_model]
scratch y_out fp64[batch_size * seq_len * d_model]
scratch r1 fp64[batch_size * seq_len * d_model]
scratch n2 fp64[batch_size * seq_len * d_model]
scratch f1 fp64[batch_size * seq_len * d_inner]
scratch act fp64[batch_size * seq_len * d_inner]
scratch f2 fp64[batch_size * seq_len * d_model]
launch to_f64 grid(ceil_div(inner_width * d_model, 1024)) block(256) args(w_in, in_proj_weight, i64(inner_width * d_model))
launch to_f64 grid(ceil_div(d_model * d_model, 1024)) block(256) args(w_out, out_proj_weight, i64(d_model * d_model))
launch to_f64 grid(ceil_div(d_inner * d_model, 1024)) block(256) args(w_fc1, mlp_fc1_weight, i64(d_inner * d_model))
launch to_f64 grid(ceil_div(d_model * d_inner, 1024)) block(256) args(w_fc2, mlp_fc2_weight, i64(d_model * d_inner))
launch ln_f32 grid(batch_size * seq_len) block(d_model) args(hidden_states, norm1_weight, norm1_bias, f64(layer_norm_eps), n1)
matmul c(u) a(n1) b(w_in) m(batch_size * seq_len) n(inner_width) k(d_model) transpose_b
launch short_conv grid(ceil_div(batch_size * seq_len * d_model, 256)) block(256)
  args(u, in_proj_bias, short_conv_weight, short_conv_bias, x0, x1, v)
launch implicit_filter grid(seq_len) block(d_model)
  args(filter_linear1_weight, filter_linear1_bias, sin_freq, filter_linear2_weight, filter_linear2_bias,
       filter_linear3_weight, filter_linear3_bias, filter_linear_final_weight, filter_bias, exp_mod_deltas,
       f64(exp_mod_shift), hk)
launch gate_product grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(g, v, x1, i64(batch_size * seq_len * d_model))
launch long_conv grid(ceil_div(batch_size * seq_len * d_model, 256)) block(256) args(g, x0, hk, filter_bias, gated)
matmul c(y_out) a(gated) b(w_out) m(batch_size * seq_len) n(d_model) k(d_model) transpose_b
launch add_bias_residual grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256)
  args(r1, y_out, out_proj_bias, hidden_states, i64(batch_size * seq_len * d_model))
launch ln_f64 grid(batch_size * seq_len) block(d_model) args(r1, norm2_weight, norm2_bias, f64(layer_norm_eps), n2)
matmul c(f1) a(n2) b(w_fc1) m(batch_size * seq_len) n(d_inner) k(d_model) transpose_b
launch bias_gelu grid(ceil_div(batch_size * seq_len * d_inner, 1024)) block(256) args(act, f1, mlp_fc1_bias, i64(batch_size * seq_len * d_inner))
matmul c(f2) a(act) b(w_fc2) m(batch_size * seq_len) n(d_model) k(d_inner) transpose_b
launch add_bias_residual64 grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256)
  args(output, f2, mlp_fc2_bias, r1, i64(batch_size * seq_len * d_model))
*/
