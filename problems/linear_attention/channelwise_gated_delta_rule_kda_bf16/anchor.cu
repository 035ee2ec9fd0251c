// The float64 anchor: the KDA recurrence with every intermediate in double, a sequential scan over the
// tokens. One 128-thread block per (batch, head): thread c owns state column c (the columns are
// independent recurrences), the 128 x 128 double state in dynamic shared memory. Per token the block
// normalizes q_t and k_t (block reductions), then each thread decays its column channel by channel,
// reads it with k_t, corrects it and reads it with q_t. Inputs are [B, T, H, D].
#include "mkb_ops.cuh"

constexpr int kDim = 128;  // head_dim: key and value channels; blockDim.x

extern "C" __global__ void __launch_bounds__(128)
anchor_kda(const bf16 *q, const bf16 *k, const bf16 *v, const bf16 *g, const bf16 *beta, double *o, int seq_len,
           int num_heads, double scale, double norm_eps) {
  extern __shared__ double state[];  // [kDim][kDim]: state[key channel][value channel]
  __shared__ double q_n[kDim], k_n[kDim], decay[kDim];
  const int c = threadIdx.x;
  const int b = blockIdx.x / num_heads, h = blockIdx.x % num_heads;
  for (int r = 0; r < kDim; ++r) state[r * kDim + c] = 0.0;

  for (int t = 0; t < seq_len; ++t) {
    const long long row = ((long long)b * seq_len + t) * num_heads + h;  // (b, t, h)
    const double qx = f64(q[row * kDim + c]), kx = f64(k[row * kDim + c]);
    const double q_sq = mkb_ops::block_reduce<mkb_ops::sum_op>(qx * qx);
    const double k_sq = mkb_ops::block_reduce<mkb_ops::sum_op>(kx * kx);
    q_n[c] = qx / fmax(sqrt(q_sq), norm_eps) * scale;
    k_n[c] = kx / fmax(sqrt(k_sq), norm_eps);
    decay[c] = exp(f64(g[row * kDim + c]));
    __syncthreads();

    double read = 0.0;
    for (int r = 0; r < kDim; ++r) {
      const double s = state[r * kDim + c] * decay[r];
      state[r * kDim + c] = s;
      read += k_n[r] * s;
    }
    const double w = f64(beta[row]) * (f64(v[row * kDim + c]) - read);
    double out = 0.0;
    for (int r = 0; r < kDim; ++r) {
      const double s = state[r * kDim + c] + k_n[r] * w;
      state[r * kDim + c] = s;
      out += q_n[r] * s;
    }
    o[row * kDim + c] = out;
    __syncthreads();  // q_n, k_n and decay are rewritten by the next token
  }
}

/* mkb:plan
launch anchor_kda grid(batch_size * num_v_heads) block(128) shared(head_dim * head_dim * 8)
  args(q, k, v, g, beta, o, i32(seq_len), i32(num_v_heads), f64(scale), f64(norm_eps))
*/
