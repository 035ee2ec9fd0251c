// The float64 anchor: one gated delta-rule step per (sequence, value head), every intermediate in
// double. One 128-thread block per (b, h); thread v owns row v of the k-last state (state[b, h, v, :],
// column v of the [K, V] state the rule works on). Value head h reads query/key head h / 2.
#include "mkb_ops.cuh"

constexpr int kDim = 128, kVHeads = 16, kQKHeads = 8, kGroup = kVHeads / kQKHeads;

extern "C" __global__ void __launch_bounds__(kDim)
anchor_gdn_decode(const bf16 *q, const bf16 *k, const bf16 *v, const float *state, const float *A_log,
                  const bf16 *a, const float *dt_bias, const bf16 *b, double *output, double *new_state,
                  double scale) {
  __shared__ double qs[kDim], ks[kDim];
  const int pair = blockIdx.x, bi = pair / kVHeads, h = pair % kVHeads, hk = h / kGroup, c = threadIdx.x;
  qs[c] = f64(q[((long long)bi * kQKHeads + hk) * kDim + c]);
  ks[c] = f64(k[((long long)bi * kQKHeads + hk) * kDim + c]);
  __syncthreads();
  const double x = f64(a[pair]) + (double)dt_bias[h];
  const double softplus = x > 20.0 ? x : log1p(exp(x));
  const double g = exp(-exp((double)A_log[h]) * softplus);
  const double beta = 1.0 / (1.0 + exp(-f64(b[pair])));

  const float *row = state + ((long long)pair * kDim + c) * kDim;
  double old_v = 0.0;
  for (int j = 0; j < kDim; ++j) old_v += ks[j] * (g * (double)row[j]);
  const double new_v = beta * f64(v[(long long)pair * kDim + c]) + (1.0 - beta) * old_v;
  double out = 0.0;
  double *dst = new_state + ((long long)pair * kDim + c) * kDim;
  for (int j = 0; j < kDim; ++j) {
    const double s = g * (double)row[j] - ks[j] * old_v + ks[j] * new_v;
    dst[j] = s;
    out += qs[j] * s;
  }
  output[(long long)pair * kDim + c] = scale * out;
}

/* mkb:plan
launch anchor_gdn_decode grid(batch_size * num_v_heads) block(128)
  args(q, k, v, state, A_log, a, dt_bias, b, output, new_state, f64(scale))
*/
