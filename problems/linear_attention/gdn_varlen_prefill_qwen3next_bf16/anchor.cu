// The float64 anchor: the gated delta rule over each sequence's tokens, every intermediate in double, a
// sequential scan. One 128-thread block per (sequence, value head); thread v owns row v of the k-last
// state (column v of the [K, V] state the rule works on), the block's state in dynamic shared memory
// (rows padded to 129 doubles). Value head h reads query/key head h / 2.
#include "mkb_ops.cuh"

constexpr int kDim = 128, kPad = kDim + 1, kVHeads = 16, kQKHeads = 8, kGroup = kVHeads / kQKHeads;

extern "C" __global__ void __launch_bounds__(kDim)
anchor_gdn_prefill(const bf16 *q, const bf16 *k, const bf16 *v, const float *state, const float *A_log,
                   const bf16 *a, const float *dt_bias, const bf16 *b, const long long *cu_seqlens, double *output,
                   double *new_state, double scale) {
  extern __shared__ double rows[];  // [kDim][kPad]
  __shared__ double qs[kDim], ks[kDim];
  const int seq = blockIdx.x / kVHeads, h = blockIdx.x % kVHeads, hk = h / kGroup, c = threadIdx.x;
  const long long mat = ((long long)seq * kVHeads + h) * kDim * kDim;
  for (int r = 0; r < kDim; ++r) rows[r * kPad + c] = (double)state[mat + r * kDim + c];
  __syncthreads();
  double *row = rows + c * kPad;
  const double neg_a = -exp((double)A_log[h]);
  for (long long tok = cu_seqlens[seq]; tok < cu_seqlens[seq + 1]; ++tok) {
    qs[c] = f64(q[(tok * kQKHeads + hk) * kDim + c]);
    ks[c] = f64(k[(tok * kQKHeads + hk) * kDim + c]);
    __syncthreads();
    const long long gate = tok * kVHeads + h;
    const double x = f64(a[gate]) + (double)dt_bias[h];
    const double g = exp(neg_a * (x > 20.0 ? x : log1p(exp(x))));
    const double beta = 1.0 / (1.0 + exp(-f64(b[gate])));
    double old_v = 0.0;
    for (int j = 0; j < kDim; ++j) old_v += ks[j] * (g * row[j]);
    const double new_v = beta * f64(v[gate * kDim + c]) + (1.0 - beta) * old_v;
    double out = 0.0;
    for (int j = 0; j < kDim; ++j) {
      const double s = g * row[j] - ks[j] * old_v + ks[j] * new_v;
      row[j] = s;
      out += qs[j] * s;
    }
    output[gate * kDim + c] = scale * out;
    __syncthreads();  // qs and ks are rewritten by the next token
  }
  for (int j = 0; j < kDim; ++j) new_state[mat + (long long)c * kDim + j] = row[j];
}

/* mkb:plan
launch anchor_gdn_prefill grid(num_seqs * num_v_heads) block(128) shared(head_size * (head_size + 1) * 8)
  args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, output, new_state, f64(scale))
*/
