// The float64 anchor: the chunked scan is exactly the state-space recurrence
//   h_t = exp(A[b, h, t]) h_{t-1} + x_t B_t^T  (h: [head_dim, state], h_{-1} = initial_states[b, h]),
//   y_t = h_t C_t + D[h] x_t,
// so it runs that recurrence token by token in double: one block per (batch, head), 512 threads = 64
// head-dim rows x 8 parts of 32 state columns each, the state in registers; y_t's sum over the state
// columns is a reduction over the 8 lanes of a row. final_state = h after the last token.
#include "mkb_ops.cuh"

constexpr int kSeq = 1024, kHeads = 16, kDim = 64, kState = 256, kParts = 8, kCols = kState / kParts;

extern "C" __global__ void __launch_bounds__(512)
anchor_ssd_scan(const bf16 *hidden_states, const bf16 *A, const bf16 *B, const bf16 *C, const bf16 *D,
                const bf16 *initial_states, double *output, double *final_state) {
  __shared__ double b_t[kState], c_t[kState], x_t[kDim];
  __shared__ double decay;
  const int h = blockIdx.x, b = blockIdx.y;
  const int d = threadIdx.x / kParts, part = threadIdx.x % kParts;
  const double skip = f64(D[h]);
  double state[kCols];
  const long long state_base = ((long long)(b * kHeads + h) * kDim + d) * kState + part * kCols;
#pragma unroll
  for (int j = 0; j < kCols; ++j) state[j] = f64(initial_states[state_base + j]);
  for (int t = 0; t < kSeq; ++t) {
    const long long token = (long long)b * kSeq + t;
    if (threadIdx.x < kState) {
      b_t[threadIdx.x] = f64(B[token * kState + threadIdx.x]);   // n_groups = 1
      c_t[threadIdx.x] = f64(C[token * kState + threadIdx.x]);
    }
    if (threadIdx.x < kDim) x_t[threadIdx.x] = f64(hidden_states[(token * kHeads + h) * kDim + threadIdx.x]);
    if (threadIdx.x == 0) decay = exp(f64(A[((long long)b * kHeads + h) * kSeq + t]));
    __syncthreads();
    const double x = x_t[d];
    double partial = 0.0;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      state[j] = decay * state[j] + x * b_t[part * kCols + j];
      partial += state[j] * c_t[part * kCols + j];
    }
    for (int offset = kParts / 2; offset > 0; offset /= 2) partial += __shfl_xor_sync(0xffffffffu, partial, offset);
    if (part == 0) output[(token * kHeads + h) * kDim + d] = partial + skip * x;
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < kCols; ++j) final_state[state_base + j] = state[j];
}

/* mkb:plan
launch anchor_ssd_scan grid(num_heads, batch_size) block(512)
  args(hidden_states, A, B, C, D, initial_states, output, final_state)
*/
