// The float64 anchor: the reference's gradients in double, arranged to keep the scratch small (1.13 GiB:
// a draw is 26 GB and its fp64 anchor outputs another 26, spec notes). Every routed row is laid out
// expert after expert. With p = x W_g^T, q = x W_u^T, a = silu(p), h = a * q and v = g_out W_d (per routed
// row, g_out the token's output gradient, w its routing weight):
//   grad_topk_weights = sum_i h_i v_i          (= sum over hidden of g_out * (h W_d^T), the reference's form)
//   grad_down[e]      = sum_rows (w g_out)^T h
//   grad_p = w v q silu'(p), grad_q = w v a;   grad_gate[e] = sum_rows grad_p^T x, grad_up[e] = sum_rows grad_q^T x
//   grad_hidden[t]    = sum over the token's rows of grad_p W_g + grad_q W_u   (double atomics)
// Products: one 64 x 64 tile per block, 256 threads of 4 x 4 outputs, slices of 16 double-buffered.
#include "mkb_ops.cuh"

namespace {
constexpr int BM = 64, BN = 64, BK = 16;

struct d4 {
  double v[4];
};

// acc[i][j] for rows ty + 16 i, columns tx + 16 j of the tile. An operand either comes in rows along k
// ("trans": this thread fetches index t / 4, k = k0 + 4 (t % 4) .. + 3) or in k-rows ("direct": k-row t / 16,
// indices 4 (t % 16) .. + 3).
template <bool kATrans, bool kBTrans, class FA, class FB>
__device__ void dgemm_mainloop(double (&acc)[4][4], const FA &fa, const FB &fb, int k_dim) {
  __shared__ double As[2][BK][BM + 1];
  __shared__ double Bs[2][BK][BN + 1];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  d4 ra, rb;
  auto store = [&](int buf) {
    for (int j = 0; j < 4; ++j) {
      if (kATrans) As[buf][4 * (t % 4) + j][t / 4] = ra.v[j];
      else As[buf][t / 16][4 * (t % 16) + j] = ra.v[j];
      if (kBTrans) Bs[buf][4 * (t % 4) + j][t / 4] = rb.v[j];
      else Bs[buf][t / 16][4 * (t % 16) + j] = rb.v[j];
    }
  };
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0;
  ra = fa(0);
  rb = fb(0);
  store(0);
  __syncthreads();
  for (int k0 = 0; k0 < k_dim; k0 += BK) {
    const int buf = (k0 / BK) & 1;
    const bool more = k0 + BK < k_dim;
    if (more) {
      ra = fa(k0 + BK);
      rb = fb(k0 + BK);
    }
    for (int kk = 0; kk < BK; ++kk)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += As[buf][kk][ty + 16 * i] * Bs[buf][kk][tx + 16 * j];
    if (more) store(buf ^ 1);
    __syncthreads();
  }
}

__device__ int find_expert(const int *tile_off, int experts, int tile) {
  int lo = 0, hi = experts;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (tile_off[mid] <= tile) lo = mid;
    else hi = mid;
  }
  return lo;
}
__device__ d4 load4(const float *p) { return d4{{(double)p[0], (double)p[1], (double)p[2], (double)p[3]}}; }
__device__ d4 load4(const double *p) { return d4{{p[0], p[1], p[2], p[3]}}; }
__device__ d4 zero4() { return d4{{0.0, 0.0, 0.0, 0.0}}; }
__device__ double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
} // namespace

MKB_MAP(fill_f64, double, (double v), v)

extern "C" __global__ void count_experts(int *counts, const long long *indices, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counts[indices[i]], 1);
}

extern "C" __global__ void expert_offsets(int *seg, int *tile_off, const int *counts, int experts) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int rows = 0, tiles = 0;
  for (int e = 0; e < experts; ++e) {
    seg[e] = rows;
    tile_off[e] = tiles;
    rows += counts[e];
    tiles += (counts[e] + BM - 1) / BM;
  }
  seg[experts] = rows;
  tile_off[experts] = tiles;
}

extern "C" __global__ void place_rows(int *row_token, int *row_slot, int *cursor, const long long *indices, const int *seg,
                                      long long cells, int top_k) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cells) return;
  const int e = (int)indices[i];
  const int p = seg[e] + atomicAdd(&cursor[e], 1);
  row_token[p] = (int)(i / top_k);
  row_slot[p] = (int)(i % top_k);
}

// p (columns < inter) and q (columns >= inter) of every routed row: x[token] @ [W_g[e]; W_u[e]]^T
extern "C" __global__ void __launch_bounds__(256) gate_up_products(double *p, double *q, const float *x, const int *row_token,
                                                                  const float *w_gate, const float *w_up, const int *seg,
                                                                  const int *tile_off, int experts, int inter, int hidden) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = find_expert(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1];
  const int n0 = blockIdx.x * BN;  // in [0, 2 inter)
  const float *W = (n0 < inter ? w_gate : w_up) + (long long)e * inter * hidden;
  const int wrow0 = n0 < inter ? n0 : n0 - inter;
  const int t = threadIdx.x, ar = row0 + t / 4;
  const float *a_src = ar < row_end ? x + (long long)row_token[ar] * hidden + 4 * (t % 4) : nullptr;
  const float *b_src = W + (long long)(wrow0 + t / 4) * hidden + 4 * (t % 4);
  double acc[4][4];
  dgemm_mainloop<true, true>(acc, [&](int k0) { return a_src ? load4(a_src + k0) : zero4(); },
                             [&](int k0) { return load4(b_src + k0); }, hidden);
  double *out = n0 < inter ? p : q;
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + threadIdx.x / 16 + 16 * i;
    if (r < row_end)
      for (int j = 0; j < 4; ++j) out[(long long)r * inter + wrow0 + threadIdx.x % 16 + 16 * j] = acc[i][j];
  }
}

// v = g_out[token] @ W_d[e]  (W_d[e]: [hidden, inter])
extern "C" __global__ void __launch_bounds__(256) down_backward_product(double *v, const float *grad_output,
                                                                       const int *row_token, const float *w_down,
                                                                       const int *seg, const int *tile_off, int experts,
                                                                       int inter, int hidden) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = find_expert(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const int t = threadIdx.x, ar = row0 + t / 4;
  const float *a_src = ar < row_end ? grad_output + (long long)row_token[ar] * hidden + 4 * (t % 4) : nullptr;
  const float *b_src = w_down + (long long)e * hidden * inter + (long long)(t / 16) * inter + n0 + 4 * (t % 16);
  double acc[4][4];
  dgemm_mainloop<true, false>(acc, [&](int k0) { return a_src ? load4(a_src + k0) : zero4(); },
                              [&](int k0) { return load4(b_src + (long long)k0 * inter); }, hidden);
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + threadIdx.x / 16 + 16 * i;
    if (r < row_end)
      for (int j = 0; j < 4; ++j) v[(long long)r * inter + n0 + threadIdx.x % 16 + 16 * j] = acc[i][j];
  }
}

// grad_down[e][m][n] = sum over e's rows of w * g_out[token][m] * h[n], h = silu(p) * q.
// Block: a 64 x 64 tile of one expert's [hidden, inter] gradient; K runs over the expert's rows.
extern "C" __global__ void __launch_bounds__(256) grad_down_weights(double *grad_down, const float *grad_output,
                                                                   const float *topk_weights, const double *p,
                                                                   const double *q, const int *row_token,
                                                                   const int *row_slot, const int *seg, int inter,
                                                                   int hidden, int top_k) {
  const int e = blockIdx.z, lo = seg[e], hi = seg[e + 1];
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, t = threadIdx.x;
  double acc[4][4];
  dgemm_mainloop<false, false>(
      acc,
      [&](int k0) {
        const int r = lo + k0 + t / 16;
        if (r >= hi) return zero4();
        const double w = (double)topk_weights[(long long)row_token[r] * top_k + row_slot[r]];
        d4 g = load4(grad_output + (long long)row_token[r] * hidden + m0 + 4 * (t % 16));
        for (int j = 0; j < 4; ++j) g.v[j] *= w;
        return g;
      },
      [&](int k0) {
        const int r = lo + k0 + t / 16;
        if (r >= hi) return zero4();
        d4 h;
        for (int j = 0; j < 4; ++j) {
          const long long i = (long long)r * inter + n0 + 4 * (t % 16) + j;
          h.v[j] = p[i] * sigmoid(p[i]) * q[i];
        }
        return h;
      },
      hi - lo);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      grad_down[((long long)e * hidden + m0 + t / 16 + 16 * i) * inter + n0 + t % 16 + 16 * j] = acc[i][j];
}

// One block per routed row: grad_topk_weights = sum_i h_i v_i; then, in place, p <- grad_p, q <- grad_q.
extern "C" __global__ void row_backward(double *grad_topk, double *p, double *q, const double *v, const float *topk_weights,
                                        const int *row_token, const int *row_slot, int inter, int top_k) {
  const long long r = blockIdx.x;
  const long long cell = (long long)row_token[r] * top_k + row_slot[r];
  const double w = (double)topk_weights[cell];
  double dot = 0.0;
  for (int i = threadIdx.x; i < inter; i += blockDim.x) {
    const long long k = r * inter + i;
    const double s = sigmoid(p[k]), a = p[k] * s, vk = v[k];
    dot += a * q[k] * vk;
    const double grad_p = w * vk * q[k] * s * (1.0 + p[k] * (1.0 - s)), grad_q = w * vk * a;
    p[k] = grad_p;
    q[k] = grad_q;
  }
  dot = mkb_ops::block_reduce<mkb_ops::sum_op>(dot);
  if (threadIdx.x == 0) grad_topk[cell] = dot;
}

// grad_gate[e] (z < experts) or grad_up[e] (z >= experts) = sum over e's rows of grad_p^T (or grad_q^T) x[token]
extern "C" __global__ void __launch_bounds__(256) grad_gate_up_weights(double *grad_gate, double *grad_up, const double *gp,
                                                                      const double *gq, const float *x, const int *row_token,
                                                                      const int *seg, int experts, int inter, int hidden) {
  const int z = blockIdx.z, e = z % experts, lo = seg[e], hi = seg[e + 1];
  const double *A = z < experts ? gp : gq;
  double *out = z < experts ? grad_gate : grad_up;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, t = threadIdx.x;
  double acc[4][4];
  dgemm_mainloop<false, false>(
      acc,
      [&](int k0) {
        const int r = lo + k0 + t / 16;
        return r < hi ? load4(A + (long long)r * inter + m0 + 4 * (t % 16)) : zero4();
      },
      [&](int k0) {
        const int r = lo + k0 + t / 16;
        return r < hi ? load4(x + (long long)row_token[r] * hidden + n0 + 4 * (t % 16)) : zero4();
      },
      hi - lo);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      out[((long long)e * inter + m0 + t / 16 + 16 * i) * hidden + n0 + t % 16 + 16 * j] = acc[i][j];
}

// grad_hidden[token] += grad_p @ W_g[e] + grad_q @ W_u[e]  (K = 2 inter: the two products as one)
extern "C" __global__ void __launch_bounds__(256) grad_hidden_product(double *grad_hidden, const double *gp, const double *gq,
                                                                     const float *w_gate, const float *w_up,
                                                                     const int *row_token, const int *seg,
                                                                     const int *tile_off, int experts, int inter, int hidden) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = find_expert(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const int t = threadIdx.x, ar = row0 + t / 4;
  const long long woff = (long long)e * inter * hidden;
  double acc[4][4];
  dgemm_mainloop<true, false>(
      acc,
      [&](int k0) {
        if (ar >= row_end) return zero4();
        const int k = k0 + 4 * (t % 4);
        return k < inter ? load4(gp + (long long)ar * inter + k) : load4(gq + (long long)ar * inter + k - inter);
      },
      [&](int k0) {
        const int k = k0 + t / 16;
        const float *W = k < inter ? w_gate + woff + (long long)k * hidden : w_up + woff + (long long)(k - inter) * hidden;
        return load4(W + n0 + 4 * (t % 16));
      },
      2 * inter);
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + threadIdx.x / 16 + 16 * i;
    if (r < row_end)
      for (int j = 0; j < 4; ++j)
        atomicAdd(&grad_hidden[(long long)row_token[r] * hidden + n0 + threadIdx.x % 16 + 16 * j], acc[i][j]);
  }
}

/* mkb:plan
scratch counts int32[num_routed_experts] zeroed
scratch cursor int32[num_routed_experts] zeroed
scratch seg int32[num_routed_experts + 1]
scratch tile_off int32[num_routed_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_slot int32[num_tokens * num_experts_per_token]
scratch p64 fp64[num_tokens * num_experts_per_token * intermediate_size]
scratch q64 fp64[num_tokens * num_experts_per_token * intermediate_size]
scratch v64 fp64[num_tokens * num_experts_per_token * intermediate_size]
launch count_experts grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(counts, topk_indices, i64(num_tokens * num_experts_per_token))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_routed_experts))
launch place_rows grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(row_token, row_slot, cursor, topk_indices, seg, i64(num_tokens * num_experts_per_token), i32(num_experts_per_token))
launch gate_up_products grid(2 * intermediate_size / 64, ceil_div(num_tokens * num_experts_per_token, 64) + num_routed_experts) block(256)
  args(p64, q64, hidden_states, row_token, gate_weights, up_weights, seg, tile_off, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
launch down_backward_product grid(intermediate_size / 64, ceil_div(num_tokens * num_experts_per_token, 64) + num_routed_experts) block(256)
  args(v64, grad_output, row_token, down_weights, seg, tile_off, i32(num_routed_experts), i32(intermediate_size), i32(hidden_size))
launch grad_down_weights grid(intermediate_size / 64, hidden_size / 64, num_routed_experts) block(256)
  args(grad_down_weights, grad_output, topk_weights, p64, q64, row_token, row_slot, seg, i32(intermediate_size),
       i32(hidden_size), i32(num_experts_per_token))
launch row_backward grid(num_tokens * num_experts_per_token) block(256)
  args(grad_topk_weights, p64, q64, v64, topk_weights, row_token, row_slot, i32(intermediate_size), i32(num_experts_per_token))
launch grad_gate_up_weights grid(hidden_size / 64, intermediate_size / 64, 2 * num_routed_experts) block(256)
  args(grad_gate_weights, grad_up_weights, p64, q64, hidden_states, row_token, seg, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
launch fill_f64 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_hidden_states, f64(0), i64(num_tokens * hidden_size))
launch grad_hidden_product grid(hidden_size / 64, ceil_div(num_tokens * num_experts_per_token, 64) + num_routed_experts) block(256)
  args(grad_hidden_states, p64, q64, gate_weights, up_weights, row_token, seg, tile_off, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
*/
