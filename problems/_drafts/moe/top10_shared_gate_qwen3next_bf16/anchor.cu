// The float64 anchor: the reference run on float64 inputs, as the original's anchor is (no bf16 rounding
// anywhere: the casts to hidden_states.dtype are casts to float64 there). Router and shared expert as
// fp64 matrix products (cuBLAS); the routed experts as an fp64 grouped product (one 64 x 64 tile of one
// expert per block) over the rows of every expert laid out one expert after another.
#include "mkb_ops.cuh"

extern "C" __global__ void widen_bf16(double *out, const bf16 *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = f64(in[i]);
}

// SiLU(gate) * up, and the gated shared expert plus the routed sum, in double
MKB_MAP(silu_mul_f64, double, (const double *g, const double *u), mkb_silu(g[i]) * u[i])
MKB_MAP(copy_f64, double, (const double *x), x[i])

namespace {
constexpr int kTopk = 10, kExperts = 512;

__device__ double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ int warp_min(int v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
} // namespace

// softmax over the 512 experts, the 10 most probable (ties to the lower index), renormalized. One warp
// per token; lane l holds experts l + 32 j. Also counts the tokens of every expert.
extern "C" __global__ void route(const double *logits, int *selected, double *weights, int *counts, int tokens) {
  constexpr int kPerLane = kExperts / 32;
  const int lane = threadIdx.x % 32;
  const long long t = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (t >= tokens) return;
  const double neg_inf = -__longlong_as_double(0x7ff0000000000000ll);
  double l[kPerLane], m = neg_inf;
  for (int j = 0; j < kPerLane; ++j) {
    l[j] = logits[t * kExperts + lane + 32 * j];
    m = fmax(m, l[j]);
  }
  m = warp_max(m);
  double s = 0.0;
  for (int j = 0; j < kPerLane; ++j) s += exp(l[j] - m);
  s = warp_sum(s);
  int picked[kTopk];
  double p[kTopk], top_sum = 0.0;
  for (int i = 0; i < kTopk; ++i) {
    double best = neg_inf;
    int best_e = 1 << 20;
    for (int j = 0; j < kPerLane; ++j)
      if (l[j] > best) {
        best = l[j];
        best_e = lane + 32 * j;
      }
    const double top = warp_max(best);
    const int e = warp_min(best == top ? best_e : 1 << 20);
    if (e % 32 == lane)
      for (int j = 0; j < kPerLane; ++j)
        if (j == e / 32) l[j] = neg_inf;
    picked[i] = e;
    p[i] = exp(top - m) / s;
    top_sum += p[i];
  }
  if (lane < kTopk) {
    int e = 0;
    double w = 0.0;
    for (int i = 0; i < kTopk; ++i)
      if (i == lane) {
        e = picked[i];
        w = p[i] / top_sum;
      }
    selected[t * kTopk + lane] = e;
    weights[t * kTopk + lane] = w;
    atomicAdd(&counts[e], 1);
  }
}

extern "C" __global__ void expert_offsets(int *seg, int *tile_off, const int *counts, int experts, int bm) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int rows = 0, tiles = 0;
  for (int e = 0; e < experts; ++e) {
    seg[e] = rows;
    tile_off[e] = tiles;
    rows += counts[e];
    tiles += (counts[e] + bm - 1) / bm;
  }
  seg[experts] = rows;
  tile_off[experts] = tiles;
}

// Lays out the routed rows expert after expert (the order inside an expert does not matter).
extern "C" __global__ void place_rows(int *row_token, double *row_weight, int *pos_of, int *cursor, const int *selected,
                                      const double *weights, const int *seg, long long cells, int top_k) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cells) return;
  const int e = selected[i];
  const int p = seg[e] + atomicAdd(&cursor[e], 1);
  row_token[p] = (int)(i / top_k);
  row_weight[p] = weights[i];
  pos_of[i] = p;
}

// C[r, n] = scale(r) * sum_k A(r, k) W[e][n, k] for the rows r of expert e, in double. A(r, k) is
// a_bf16[a_rows[r], k] or a_f64[r, k]. One 64 x 64 tile per block, 256 threads of 4 x 4 outputs.
template <bool kBf16A>
__device__ void grouped_nt(double *C, const bf16 *a_bf16, const int *a_rows, const double *a_f64, const bf16 *W,
                           const double *row_scale, const int *seg, const int *tile_off, int experts, int n_out, int k_dim) {
  constexpr int BM = 64, BN = 64, BK = 16;
  __shared__ double As[BK][BM + 1];
  __shared__ double Bs[BK][BN + 1];
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  int lo = 0, hi = experts;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (tile_off[mid] <= tile) lo = mid;
    else hi = mid;
  }
  const int e = lo;
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const bf16 *We = W + (long long)e * n_out * k_dim;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  double acc[4][4] = {};
  for (int k0 = 0; k0 < k_dim; k0 += BK) {
    for (int q = threadIdx.x; q < BM * BK; q += blockDim.x) {
      const int m = q / BK, kk = q % BK, r = row0 + m;
      double v = 0.0;
      if (r < row_end) v = kBf16A ? f64(a_bf16[(long long)a_rows[r] * k_dim + k0 + kk]) : a_f64[(long long)r * k_dim + k0 + kk];
      As[kk][m] = v;
      Bs[kk][m] = f64(We[(long long)(n0 + m) * k_dim + k0 + kk]);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += As[kk][ty + 16 * i] * Bs[kk][tx + 16 * j];
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + ty + 16 * i;
    if (r >= row_end) continue;
    const double scale = row_scale ? row_scale[r] : 1.0;
    for (int j = 0; j < 4; ++j) C[(long long)r * n_out + n0 + tx + 16 * j] = acc[i][j] * scale;
  }
}

extern "C" __global__ void __launch_bounds__(256) grouped_nt_gathered(double *C, const bf16 *x, const int *row_token,
                                                                     const bf16 *W, const int *seg, const int *tile_off,
                                                                     int experts, int n_out, int k_dim) {
  grouped_nt<true>(C, x, row_token, nullptr, W, nullptr, seg, tile_off, experts, n_out, k_dim);
}
extern "C" __global__ void __launch_bounds__(256) grouped_nt_scaled(double *C, const double *A, const double *row_scale,
                                                                   const bf16 *W, const int *seg, const int *tile_off,
                                                                   int experts, int n_out, int k_dim) {
  grouped_nt<false>(C, nullptr, nullptr, A, W, row_scale, seg, tile_off, experts, n_out, k_dim);
}

// final[t, :] = sum over the token's experts of weighted rows + sigmoid(gate_logit[t]) * shared_out[t, :]
extern "C" __global__ void combine(double *out, const double *weighted, const int *pos_of, const double *gate_logit,
                                   const double *shared_out, int top_k, int dim) {
  const long long t = blockIdx.x;
  const double g = 1.0 / (1.0 + exp(-gate_logit[t]));
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    double acc = 0.0;
    for (int j = 0; j < top_k; ++j) acc += weighted[(long long)pos_of[t * top_k + j] * dim + c];
    out[t * dim + c] = acc + g * shared_out[t * dim + c];
  }
}

/* mkb:plan
scratch x64 fp64[num_tokens * hidden_size]
scratch router64 fp64[num_experts * hidden_size]
scratch logits64 fp64[num_tokens * num_experts]
scratch selected int32[num_tokens * top_k]
scratch weights64 fp64[num_tokens * top_k]
scratch counts int32[num_experts] zeroed
scratch cursor int32[num_experts] zeroed
scratch seg int32[num_experts + 1]
scratch tile_off int32[num_experts + 1]
scratch row_token int32[num_tokens * top_k]
scratch row_weight fp64[num_tokens * top_k]
scratch pos_of int32[num_tokens * top_k]
scratch gate64 fp64[num_tokens * top_k * moe_intermediate_size]
scratch up64 fp64[num_tokens * top_k * moe_intermediate_size]
scratch hidden64 fp64[num_tokens * top_k * moe_intermediate_size]
scratch weighted64 fp64[num_tokens * top_k * hidden_size]
scratch sgate_w64 fp64[shared_expert_intermediate_size * hidden_size]
scratch sup_w64 fp64[shared_expert_intermediate_size * hidden_size]
scratch sdown_w64 fp64[hidden_size * shared_expert_intermediate_size]
scratch sexp_gate64 fp64[hidden_size]
scratch sgate64 fp64[num_tokens * shared_expert_intermediate_size]
scratch sup64 fp64[num_tokens * shared_expert_intermediate_size]
scratch shidden64 fp64[num_tokens * shared_expert_intermediate_size]
scratch sout64 fp64[num_tokens * hidden_size]
scratch glogit64 fp64[num_tokens]
launch widen_bf16 grid(ceil_div(num_tokens * hidden_size, 256)) block(256) args(x64, hidden_states, i64(num_tokens * hidden_size))
launch widen_bf16 grid(ceil_div(num_experts * hidden_size, 256)) block(256) args(router64, router_weight, i64(num_experts * hidden_size))
matmul c(logits64) a(x64) b(router64) m(num_tokens) n(num_experts) k(hidden_size) transpose_b
launch copy_f64 grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(router_logits, logits64, i64(num_tokens * num_experts))
launch route grid(ceil_div(num_tokens, 8)) block(256) args(logits64, selected, weights64, counts, i32(num_tokens))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_experts), i32(64))
launch place_rows grid(ceil_div(num_tokens * top_k, 256)) block(256)
  args(row_token, row_weight, pos_of, cursor, selected, weights64, seg, i64(num_tokens * top_k), i32(top_k))
launch grouped_nt_gathered grid(moe_intermediate_size / 64, ceil_div(num_tokens * top_k, 64) + num_experts) block(256)
  args(gate64, hidden_states, row_token, routed_gate_proj, seg, tile_off, i32(num_experts), i32(moe_intermediate_size), i32(hidden_size))
launch grouped_nt_gathered grid(moe_intermediate_size / 64, ceil_div(num_tokens * top_k, 64) + num_experts) block(256)
  args(up64, hidden_states, row_token, routed_up_proj, seg, tile_off, i32(num_experts), i32(moe_intermediate_size), i32(hidden_size))
launch silu_mul_f64 grid(ceil_div(num_tokens * top_k * moe_intermediate_size, 1024)) block(256)
  args(hidden64, gate64, up64, i64(num_tokens * top_k * moe_intermediate_size))
launch grouped_nt_scaled grid(hidden_size / 64, ceil_div(num_tokens * top_k, 64) + num_experts) block(256)
  args(weighted64, hidden64, row_weight, routed_down_proj, seg, tile_off, i32(num_experts), i32(hidden_size), i32(moe_intermediate_size))
launch widen_bf16 grid(ceil_div(shared_expert_intermediate_size * hidden_size, 256)) block(256)
  args(sgate_w64, shared_gate_proj, i64(shared_expert_intermediate_size * hidden_size))
launch widen_bf16 grid(ceil_div(shared_expert_intermediate_size * hidden_size, 256)) block(256)
  args(sup_w64, shared_up_proj, i64(shared_expert_intermediate_size * hidden_size))
launch widen_bf16 grid(ceil_div(shared_expert_intermediate_size * hidden_size, 256)) block(256)
  args(sdown_w64, shared_down_proj, i64(shared_expert_intermediate_size * hidden_size))
launch widen_bf16 grid(ceil_div(hidden_size, 256)) block(256) args(sexp_gate64, shared_expert_gate, i64(hidden_size))
matmul c(sgate64) a(x64) b(sgate_w64) m(num_tokens) n(shared_expert_intermediate_size) k(hidden_size) transpose_b
matmul c(sup64) a(x64) b(sup_w64) m(num_tokens) n(shared_expert_intermediate_size) k(hidden_size) transpose_b
launch silu_mul_f64 grid(ceil_div(num_tokens * shared_expert_intermediate_size, 1024)) block(256)
  args(shidden64, sgate64, sup64, i64(num_tokens * shared_expert_intermediate_size))
matmul c(sout64) a(shidden64) b(sdown_w64) m(num_tokens) n(hidden_size) k(shared_expert_intermediate_size) transpose_b
matmul c(glogit64) a(x64) b(sexp_gate64) m(num_tokens) n(1) k(hidden_size) transpose_b
launch combine grid(num_tokens) block(256) args(final_hidden_states, weighted64, pos_of, glogit64, sout64, i32(top_k), i32(hidden_size))
*/
