// The float64 anchor of the chunked gated delta rule (reference.md), in double throughout (the L2 norm
// too: the original's float64 re-run normalizes float64 inputs). Kernels:
//   normalize   q / sqrt(sum q^2 + 1e-6) * scale and k / sqrt(sum k^2 + 1e-6), one block per row;
//   solve       per (batch, value head, chunk): L (strictly lower), T = I + X with X's rows by forward
//               substitution (X[i, :i] = L[i, :i] + L[i, :i] X[:i, :i]);
//   transform   U = T (beta v), W = T (beta exp(g) k);
//   then per chunk in order (the plan repeats the four launches for chunks 0..3): v_new = U - W S;
//   intra = (q k^T) * decay (j <= i); out = exp(g) q S + intra v_new; S = exp(g_last) S +
//   (exp(g_last - g) k)^T v_new. The state S [128, 128] lives in a zeroed float64 scratch.
// Value head v reads key head v % num_k_heads.
#include "mkb_ops.cuh"

constexpr int kB = 16, kS = 256, kHK = 4, kHV = 16, kDK = 128, kDV = 128, kL = 64, kC = kS / kL;

extern "C" __global__ void normalize(const bf16 *x, double *out, double scale) {
  const long long row = blockIdx.x;  // (b, hk, t)
  const double v = f64(x[row * kDK + threadIdx.x]);
  const double ss = mkb_ops::block_reduce<mkb_ops::sum_op>(v * v);
  out[row * kDK + threadIdx.x] = v / sqrt(ss + 1e-6) * scale;
}

__device__ __forceinline__ long long k_row(int b, int hv, int t) { return ((long long)(b * kHK + hv % kHK) * kS + t) * kDK; }
__device__ __forceinline__ long long v_row(int b, int hv, int t) { return ((long long)(b * kHV + hv) * kS + t) * kDV; }
__device__ __forceinline__ long long g_at(int b, int hv, int t) { return (long long)(b * kHV + hv) * kS + t; }

// grid (chunk, v head, batch), 64 threads (thread j)
extern "C" __global__ void solve(const double *kn, const bf16 *g, const bf16 *beta, double *T) {
  __shared__ double L[kL][kL + 1], X[kL][kL + 1], cum[kL];
  const int c = blockIdx.x, hv = blockIdx.y, b = blockIdx.z, j = threadIdx.x, t0 = c * kL;
  if (j == 0) {
    double run = 0.0;
    for (int t = 0; t < kL; ++t) cum[t] = run += f64(g[g_at(b, hv, t0 + t)]);
  }
  __syncthreads();
  for (int i = 0; i < kL; ++i) {
    double v = 0.0;
    if (j < i) {
      double dot = 0.0;
      for (int d = 0; d < kDK; ++d) dot += kn[k_row(b, hv, t0 + i) + d] * kn[k_row(b, hv, t0 + j) + d];
      v = -(f64(beta[g_at(b, hv, t0 + i)]) * dot) * exp(cum[i] - cum[j]);
    }
    L[i][j] = v;
    X[i][j] = 0.0;
  }
  __syncthreads();
  for (int i = 1; i < kL; ++i) {
    if (j < i) {
      double acc = L[i][j];
      for (int k = j + 1; k < i; ++k) acc += L[i][k] * X[k][j];
      X[i][j] = acc;
    }
    __syncthreads();
  }
  double *out = T + (((long long)(b * kHV + hv) * kC + c) * kL) * kL;
  for (int i = 0; i < kL; ++i) out[i * kL + j] = X[i][j] + (i == j ? 1.0 : 0.0);
}

// grid (chunk, v head, batch), 128 threads (thread d)
extern "C" __global__ void transform(const double *T, const double *kn, const bf16 *value, const bf16 *g, const bf16 *beta,
                                     double *U, double *W) {
  __shared__ double coef_v[kL], coef_k[kL];
  const int c = blockIdx.x, hv = blockIdx.y, b = blockIdx.z, d = threadIdx.x, t0 = c * kL;
  if (d < kL) {
    const double bt = f64(beta[g_at(b, hv, t0 + d)]);
    coef_v[d] = bt;
    coef_k[d] = bt * exp(f64(g[g_at(b, hv, t0 + d)]));
  }
  __syncthreads();
  const long long base = (((long long)(b * kHV + hv) * kC + c) * kL);
  for (int i = 0; i < kL; ++i) {
    double u = 0.0, w = 0.0;
    for (int j = 0; j < kL; ++j) {
      const double tij = T[(base + i) * kL + j];
      u += tij * coef_v[j] * f64(value[v_row(b, hv, t0 + j) + d]);
      w += tij * coef_k[j] * kn[k_row(b, hv, t0 + j) + d];
    }
    U[(base + i) * kDV + d] = u;
    W[(base + i) * kDK + d] = w;
  }
}

// v_new = U - W S, grid (v head, batch), 128 threads (thread = value dim)
extern "C" __global__ void chunk_vnew(const double *U, const double *W, const double *S, double *v_new, int c) {
  const int hv = blockIdx.x, b = blockIdx.y, e = threadIdx.x;
  const long long base = (((long long)(b * kHV + hv) * kC + c) * kL);
  const double *s = S + (long long)(b * kHV + hv) * kDK * kDV;
  for (int i = 0; i < kL; ++i) {
    double acc = U[(base + i) * kDV + e];
    for (int d = 0; d < kDK; ++d) acc -= W[(base + i) * kDK + d] * s[d * kDV + e];
    v_new[((long long)(b * kHV + hv) * kL + i) * kDV + e] = acc;
  }
}

// intra[i, j] = (q_i . k_j) exp(cum_i - cum_j) for j <= i; grid (v head, batch), 64 threads (thread j)
extern "C" __global__ void chunk_intra(const double *qn, const double *kn, const bf16 *g, double *intra, int c) {
  __shared__ double cum[kL];
  const int hv = blockIdx.x, b = blockIdx.y, j = threadIdx.x, t0 = c * kL;
  if (j == 0) {
    double run = 0.0;
    for (int t = 0; t < kL; ++t) cum[t] = run += f64(g[g_at(b, hv, t0 + t)]);
  }
  __syncthreads();
  for (int i = 0; i < kL; ++i) {
    double v = 0.0;
    if (j <= i) {
      double dot = 0.0;
      for (int d = 0; d < kDK; ++d) dot += qn[k_row(b, hv, t0 + i) + d] * kn[k_row(b, hv, t0 + j) + d];
      v = dot * exp(cum[i] - cum[j]);
    }
    intra[((long long)(b * kHV + hv) * kL + i) * kL + j] = v;
  }
}

// out = exp(g_i) q_i S + intra v_new; grid (v head, batch), 128 threads (thread = value dim)
extern "C" __global__ void chunk_out(const double *qn, const bf16 *g, const double *S, const double *intra,
                                     const double *v_new, double *output, int c) {
  const int hv = blockIdx.x, b = blockIdx.y, e = threadIdx.x, t0 = c * kL;
  const double *s = S + (long long)(b * kHV + hv) * kDK * kDV;
  for (int i = 0; i < kL; ++i) {
    double inter = 0.0;
    for (int d = 0; d < kDK; ++d) inter += qn[k_row(b, hv, t0 + i) + d] * s[d * kDV + e];
    double acc = exp(f64(g[g_at(b, hv, t0 + i)])) * inter;
    for (int j = 0; j <= i; ++j)
      acc += intra[((long long)(b * kHV + hv) * kL + i) * kL + j] * v_new[((long long)(b * kHV + hv) * kL + j) * kDV + e];
    output[(((long long)b * kS + t0 + i) * kHV + hv) * kDV + e] = acc;
  }
}

// S = exp(g_last) S + (exp(g_last - g) k)^T v_new; grid (v head, batch), 128 threads (thread = value dim)
extern "C" __global__ void chunk_state(const double *kn, const bf16 *g, const double *v_new, double *S, int c) {
  __shared__ double to_last[kL];
  const int hv = blockIdx.x, b = blockIdx.y, e = threadIdx.x, t0 = c * kL;
  const double last = f64(g[g_at(b, hv, t0 + kL - 1)]);
  if (e < kL) to_last[e] = exp(last - f64(g[g_at(b, hv, t0 + e)]));
  __syncthreads();
  double *s = S + (long long)(b * kHV + hv) * kDK * kDV;
  const double keep = exp(last);
  for (int d = 0; d < kDK; ++d) {
    double acc = keep * s[d * kDV + e];
    for (int t = 0; t < kL; ++t)
      acc += kn[k_row(b, hv, t0 + t) + d] * to_last[t] * v_new[((long long)(b * kHV + hv) * kL + t) * kDV + e];
    s[d * kDV + e] = acc;
  }
}

/* mkb:plan
scratch qn fp64[batch_size * num_k_heads * seq_len * head_k_dim]
scratch kn fp64[batch_size * num_k_heads * seq_len * head_k_dim]
scratch T fp64[batch_size * num_v_heads * seq_len * chunk_size]
scratch U fp64[batch_size * num_v_heads * seq_len * head_v_dim]
scratch W fp64[batch_size * num_v_heads * seq_len * head_k_dim]
scratch S fp64[batch_size * num_v_heads * head_k_dim * head_v_dim] zeroed
scratch v_new fp64[batch_size * num_v_heads * chunk_size * head_v_dim]
scratch intra fp64[batch_size * num_v_heads * chunk_size * chunk_size]
launch normalize grid(batch_size * num_k_heads * seq_len) block(head_k_dim) args(query, qn, f64(scale))
launch normalize grid(batch_size * num_k_heads * seq_len) block(head_k_dim) args(key, kn, f64(1))
launch solve grid(seq_len / chunk_size, num_v_heads, batch_size) block(chunk_size) args(kn, g, beta, T)
launch transform grid(seq_len / chunk_size, num_v_heads, batch_size) block(head_v_dim) args(T, kn, value, g, beta, U, W)
launch chunk_vnew grid(num_v_heads, batch_size) block(head_v_dim) args(U, W, S, v_new, i32(0))
launch chunk_intra grid(num_v_heads, batch_size) block(chunk_size) args(qn, kn, g, intra, i32(0))
launch chunk_out grid(num_v_heads, batch_size) block(head_v_dim) args(qn, g, S, intra, v_new, output, i32(0))
launch chunk_state grid(num_v_heads, batch_size) block(head_v_dim) args(kn, g, v_new, S, i32(0))
launch chunk_vnew grid(num_v_heads, batch_size) block(head_v_dim) args(U, W, S, v_new, i32(1))
launch chunk_intra grid(num_v_heads, batch_size) block(chunk_size) args(qn, kn, g, intra, i32(1))
launch chunk_out grid(num_v_heads, batch_size) block(head_v_dim) args(qn, g, S, intra, v_new, output, i32(1))
launch chunk_state grid(num_v_heads, batch_size) block(head_v_dim) args(kn, g, v_new, S, i32(1))
launch chunk_vnew grid(num_v_heads, batch_size) block(head_v_dim) args(U, W, S, v_new, i32(2))
launch chunk_intra grid(num_v_heads, batch_size) block(chunk_size) args(qn, kn, g, intra, i32(2))
launch chunk_out grid(num_v_heads, batch_size) block(head_v_dim) args(qn, g, S, intra, v_new, output, i32(2))
launch chunk_state grid(num_v_heads, batch_size) block(head_v_dim) args(kn, g, v_new, S, i32(2))
launch chunk_vnew grid(num_v_heads, batch_size) block(head_v_dim) args(U, W, S, v_new, i32(3))
launch chunk_intra grid(num_v_heads, batch_size) block(chunk_size) args(qn, kn, g, intra, i32(3))
launch chunk_out grid(num_v_heads, batch_size) block(head_v_dim) args(qn, g, S, intra, v_new, output, i32(3))
launch chunk_state grid(num_v_heads, batch_size) block(head_v_dim) args(kn, g, v_new, S, i32(3))
*/
