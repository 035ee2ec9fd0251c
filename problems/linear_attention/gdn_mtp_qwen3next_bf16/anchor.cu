// The float64 anchor: the gated delta rule over the 4 draft tokens of each sequence, every intermediate in
// double, the state read from the pool slot the sequence names. One 128-thread block per (b, h); thread v
// owns row v of the k-last state (column v of the [K, V] state the rule works on), the block's state in
// dynamic shared memory (rows padded to 129 doubles). Value head h reads query/key head h / 2. The
// returned pool is the input pool unchanged: a second kernel widens it to double.
#include "mkb_ops.cuh"

constexpr int kDim = 128, kPad = kDim + 1, kVHeads = 16, kQKHeads = 8, kGroup = kVHeads / kQKHeads;

extern "C" __global__ void __launch_bounds__(kDim)
anchor_gdn_mtp(const bf16 *q, const bf16 *k, const bf16 *v, const float *initial_state, const int *indices,
               const float *A_log, const bf16 *a, const float *dt_bias, const bf16 *b, double *output, int seq_len,
               double scale) {
  extern __shared__ double rows[];  // [kDim][kPad]
  __shared__ double qs[kDim], ks[kDim];
  const int bi = blockIdx.x / kVHeads, h = blockIdx.x % kVHeads, hk = h / kGroup, c = threadIdx.x;
  const float *src = initial_state + ((long long)indices[bi] * kVHeads + h) * kDim * kDim;
  for (int r = 0; r < kDim; ++r) rows[r * kPad + c] = (double)src[r * kDim + c];
  __syncthreads();
  double *row = rows + c * kPad;
  for (int t = 0; t < seq_len; ++t) {
    const long long tok = (long long)bi * seq_len + t;
    qs[c] = f64(q[(tok * kQKHeads + hk) * kDim + c]);
    ks[c] = f64(k[(tok * kQKHeads + hk) * kDim + c]);
    __syncthreads();
    const long long gate = tok * kVHeads + h;
    const double x = f64(a[gate]) + (double)dt_bias[h];
    const double softplus = x > 20.0 ? x : log1p(exp(x));
    const double g = exp(-exp((double)A_log[h]) * softplus);
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
}

extern "C" __global__ void anchor_copy_pool(const float *initial_state, double *final_state, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    final_state[i] = (double)initial_state[i];
}

/* mkb:plan
launch anchor_gdn_mtp grid(batch_size * num_v_heads) block(128) shared(head_size * (head_size + 1) * 8)
  args(q, k, v, initial_state, initial_state_indices, A_log, a, dt_bias, b, output, i32(seq_len), f64(scale))
launch anchor_copy_pool grid(4096) block(256)
  args(initial_state, final_state, i64(pool_size * num_v_heads * head_size * head_size))
*/
