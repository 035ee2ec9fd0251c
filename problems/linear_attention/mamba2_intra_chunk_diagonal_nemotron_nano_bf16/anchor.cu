// The float64 anchor. Kernel 1: G[b, c, g, l, s] = sum_n C[b,c,l,g,n] B[b,c,s,g,n] in double (one
// thread per (l, s), a block per (b, c, g, l)). Kernel 2: one block per (b, c, h, l), a thread per
// head-dim index p: the weights M[l, s] = G[l, s] * exp(a[s+1] + ... + a[l]) for s <= l (the sums in
// double, exact for bf16 inputs), then Y[l, p] = sum_s M[l, s] X[s, p].
#include "mkb_ops.cuh"

constexpr int kLen = 128, kHeads = 32, kDim = 128, kGroups = 8, kState = 128;

extern "C" __global__ void anchor_scores(const bf16 *B, const bf16 *C, double *scores) {
  // blockIdx.x = l, blockIdx.y = g, blockIdx.z = b * num_chunks + c; threadIdx.x = s
  const int l = blockIdx.x, g = blockIdx.y, bc = blockIdx.z, s = threadIdx.x;
  const bf16 *c_row = C + (((long long)bc * kLen + l) * kGroups + g) * kState;
  const bf16 *b_row = B + (((long long)bc * kLen + s) * kGroups + g) * kState;
  double acc = 0.0;
  for (int n = 0; n < kState; ++n) acc += f64(c_row[n]) * f64(b_row[n]);
  scores[(((long long)bc * kGroups + g) * kLen + l) * kLen + s] = acc;
}

extern "C" __global__ void anchor_diag(const bf16 *hidden_states, const bf16 *a_cumsum, const double *scores,
                                       double *y_diag, int num_chunks) {
  // blockIdx.x = l, blockIdx.y = h, blockIdx.z = b * num_chunks + c; threadIdx.x = p
  __shared__ double weight[kLen];
  const int l = blockIdx.x, h = blockIdx.y, bc = blockIdx.z, p = threadIdx.x;
  const int b = bc / num_chunks, c = bc % num_chunks, g = h / (kHeads / kGroups);
  const bf16 *a = a_cumsum + (((long long)b * kHeads + h) * num_chunks + c) * kLen;
  const int s = threadIdx.x;
  if (s <= l) {
    double seg = 0.0;
    for (int k = s + 1; k <= l; ++k) seg += f64(a[k]);
    weight[s] = scores[(((long long)bc * kGroups + g) * kLen + l) * kLen + s] * exp(seg);
  }
  __syncthreads();
  double acc = 0.0;
  for (int j = 0; j <= l; ++j) acc += weight[j] * f64(hidden_states[(((long long)bc * kLen + j) * kHeads + h) * kDim + p]);
  y_diag[(((long long)bc * kLen + l) * kHeads + h) * kDim + p] = acc;
}

/* mkb:plan
scratch scores fp64[batch_size * num_chunks * n_groups * chunk_size * chunk_size]
launch anchor_scores grid(chunk_size, n_groups, batch_size * num_chunks) block(chunk_size) args(B, C, scores)
launch anchor_diag grid(chunk_size, num_heads, batch_size * num_chunks) block(head_dim)
  args(hidden_states, a_cumsum, scores, y_diag, i32(num_chunks))
*/
