// The float64 anchor: the delta-rule recurrence with every intermediate in double, a sequential scan
// over the tokens. One 128-thread block per (batch, head): thread c owns state column c (every column
// is an independent recurrence), the whole 128 x 128 double state in dynamic shared memory. Per token,
// the block normalizes q_t and k_t (two block reductions), then each thread reads its column with k_t,
// corrects it and reads it with q_t.
#include "mkb_ops.cuh"

constexpr int kKey = 128, kValue = 128;  // blockDim.x == kKey == kValue

extern "C" __global__ void __launch_bounds__(128)
anchor_delta_rule(const bf16 *q, const bf16 *k, const bf16 *v, const bf16 *beta, const float *initial_state,
                  double *o, double *final_state, int seq_len, double scale, double norm_eps) {
  extern __shared__ double state[];  // [kKey][kValue]
  __shared__ double q_n[kKey], k_n[kKey];
  const int c = threadIdx.x;
  const long long pair = blockIdx.x;
  for (int r = 0; r < kKey; ++r) state[r * kValue + c] = f64(initial_state[(pair * kKey + r) * kValue + c]);

  for (int t = 0; t < seq_len; ++t) {
    const long long row = pair * seq_len + t;
    const double qx = f64(q[row * kKey + c]), kx = f64(k[row * kKey + c]);
    const double q_sq = mkb_ops::block_reduce<mkb_ops::sum_op>(qx * qx);
    const double k_sq = mkb_ops::block_reduce<mkb_ops::sum_op>(kx * kx);
    q_n[c] = qx / fmax(sqrt(q_sq), norm_eps) * scale;
    k_n[c] = kx / fmax(sqrt(k_sq), norm_eps);
    __syncthreads();

    double read = 0.0;
    for (int r = 0; r < kKey; ++r) read += k_n[r] * state[r * kValue + c];
    const double w = f64(beta[row]) * (f64(v[row * kValue + c]) - read);
    double out = 0.0;
    for (int r = 0; r < kKey; ++r) {
      const double s = state[r * kValue + c] + k_n[r] * w;
      state[r * kValue + c] = s;
      out += q_n[r] * s;
    }
    o[row * kValue + c] = out;
    __syncthreads();  // q_n and k_n are rewritten by the next token
  }
  for (int r = 0; r < kKey; ++r) final_state[(pair * kKey + r) * kValue + c] = state[r * kValue + c];
}

/* mkb:plan
launch anchor_delta_rule grid(batch_size * num_heads) block(128) shared(key_dim * value_dim * 8)
  args(q, k, v, beta, initial_state, o, final_state, i32(seq_len), f64(scale), f64(norm_eps))
*/
