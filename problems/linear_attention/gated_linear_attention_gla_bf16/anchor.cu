// The float64 anchor: the GLA recurrence with every intermediate in double, a sequential scan over the
// tokens. One 64-thread block per (64 value channels, b, h): thread c owns state column c0 + c (the
// columns are independent recurrences), the block's 256 x 64 double slice of the state in dynamic shared
// memory. Per token the block stages q_t * scale, k_t and exp(gk_t), then each thread decays its column
// channel by channel, adds k_t * v_t[c] and reads it with the scaled query. Inputs are [B, T, H, D].
#include "mkb_ops.cuh"

constexpr int kKey = 256, kValue = 512, kCols = 64;  // blockDim.x == kCols

extern "C" __global__ void __launch_bounds__(kCols)
anchor_gla(const bf16 *q, const bf16 *k, const bf16 *v, const bf16 *gk, double *o, int seq_len, int num_heads,
           double scale) {
  extern __shared__ double state[];  // [kKey][kCols]
  __shared__ double q_s[kKey], k_s[kKey], decay[kKey];
  const int c = threadIdx.x, column = blockIdx.x * kCols + c;
  const int b = blockIdx.y / num_heads, h = blockIdx.y % num_heads;
  for (int r = 0; r < kKey; ++r) state[r * kCols + c] = 0.0;

  for (int t = 0; t < seq_len; ++t) {
    const long long row = ((long long)b * seq_len + t) * num_heads + h;  // (b, t, h)
    for (int r = c; r < kKey; r += kCols) {
      q_s[r] = f64(q[row * kKey + r]) * scale;
      k_s[r] = f64(k[row * kKey + r]);
      decay[r] = exp(f64(gk[row * kKey + r]));
    }
    __syncthreads();
    const double vc = f64(v[row * kValue + column]);
    double out = 0.0;
    for (int r = 0; r < kKey; ++r) {
      const double s = state[r * kCols + c] * decay[r] + k_s[r] * vc;
      state[r * kCols + c] = s;
      out += q_s[r] * s;
    }
    o[row * kValue + column] = out;
    __syncthreads();  // q_s, k_s and decay are rewritten by the next token
  }
}

/* mkb:plan
launch anchor_gla grid(value_dim / 64, batch_size * num_heads) block(64) shared(key_dim * 64 * 8)
  args(q, k, v, gk, o, i32(seq_len), i32(num_heads), f64(scale))
*/
