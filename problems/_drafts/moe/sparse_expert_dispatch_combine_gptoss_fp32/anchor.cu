// The float64 anchor: the reference run on float64 inputs, as the original's anchor is. Every routed row
// laid out expert after expert; the two expert products as an fp64 grouped product (one 64 x 64 tile of
// one expert per block, 256 threads of 4 x 4 outputs), the biases, clamps and GLU in double; each token's
// four weighted rows summed at the end.
#include "mkb_ops.cuh"

extern "C" __global__ void count_experts(int *counts, const long long *indices, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counts[indices[i]], 1);
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

// Lays out the routed rows expert after expert (the order inside an expert does not matter here).
extern "C" __global__ void place_rows(int *row_token, int *row_expert, double *row_weight, int *pos_of, int *cursor,
                                      const long long *indices, const float *routing_weights, const int *seg,
                                      long long cells, int top_k, int experts) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cells) return;
  const int e = (int)indices[i], t = (int)(i / top_k);
  const int p = seg[e] + atomicAdd(&cursor[e], 1);
  row_token[p] = t;
  row_expert[p] = e;
  row_weight[p] = (double)routing_weights[(long long)t * experts + e];
  pos_of[i] = p;
}

// C[r, n] = sum_k A(r, k) W_e[k, n] + bias[e, n], in double, for the rows r of expert e;
// A(r, k) = a_f32[a_rows[r], k] (gathered) or a_f64[r, k]; W_e row-major [k_dim, n_dim].
template <bool kGather>
__device__ void grouped_nn(double *C, const float *a_f32, const int *a_rows, const double *a_f64, const float *W,
                           const float *bias, const int *row_expert, const int *seg, const int *tile_off, int experts,
                           int n_dim, int k_dim) {
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
  const float *We = W + (long long)e * k_dim * n_dim;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  double acc[4][4] = {};
  for (int k0 = 0; k0 < k_dim; k0 += BK) {
    for (int q = threadIdx.x; q < BM * BK; q += blockDim.x) {
      const int m = q / BK, kk = q % BK, r = row0 + m;
      double v = 0.0;
      if (r < row_end) v = kGather ? (double)a_f32[(long long)a_rows[r] * k_dim + k0 + kk] : a_f64[(long long)r * k_dim + k0 + kk];
      As[kk][m] = v;
      const int kb = q / BN, nb = q % BN;
      Bs[kb][nb] = n0 + nb < n_dim ? (double)We[(long long)(k0 + kb) * n_dim + n0 + nb] : 0.0;
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
    for (int j = 0; j < 4; ++j) {
      const int c = n0 + tx + 16 * j;
      if (c < n_dim) C[(long long)r * n_dim + c] = acc[i][j] + (double)bias[(long long)row_expert[r] * n_dim + c];
    }
  }
}

extern "C" __global__ void __launch_bounds__(256) grouped_nn_gathered(double *C, const float *x, const int *row_token,
                                                                      const float *W, const float *bias,
                                                                      const int *row_expert, const int *seg,
                                                                      const int *tile_off, int experts, int n_dim, int k_dim) {
  grouped_nn<true>(C, x, row_token, nullptr, W, bias, row_expert, seg, tile_off, experts, n_dim, k_dim);
}
extern "C" __global__ void __launch_bounds__(256) grouped_nn_f64(double *C, const double *A, const float *W, const float *bias,
                                                                 const int *row_expert, const int *seg, const int *tile_off,
                                                                 int experts, int n_dim, int k_dim) {
  grouped_nn<false>(C, nullptr, nullptr, A, W, bias, row_expert, seg, tile_off, experts, n_dim, k_dim);
}

// gated = (clamp(up, -limit, limit) + 1) * (g * sigmoid(alpha * g)), g = min(gate, limit); gate and up
// interleaved (even and odd columns)
extern "C" __global__ void glu(double *gated, const double *gate_up, int half, double alpha, double limit, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / half, j = i % half;
    const double g = fmin(gate_up[r * 2 * half + 2 * j], limit);
    const double u = fmin(fmax(gate_up[r * 2 * half + 2 * j + 1], -limit), limit);
    gated[i] = (u + 1.0) * (g / (1.0 + exp(-g * alpha)));
  }
}

extern "C" __global__ void combine(double *out, const double *expert_out, const double *row_weight, const int *pos_of,
                                   int top_k, int dim) {
  const long long t = blockIdx.x;
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    double acc = 0.0;
    for (int j = 0; j < top_k; ++j) {
      const int p = pos_of[t * top_k + j];
      acc += expert_out[(long long)p * dim + c] * row_weight[p];
    }
    out[t * dim + c] = acc;
  }
}

/* mkb:plan
scratch counts int32[num_local_experts] zeroed
scratch cursor int32[num_local_experts] zeroed
scratch seg int32[num_local_experts + 1]
scratch tile_off int32[num_local_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_expert int32[num_tokens * num_experts_per_token]
scratch row_weight fp64[num_tokens * num_experts_per_token]
scratch pos_of int32[num_tokens * num_experts_per_token]
scratch gate_up64 fp64[num_tokens * num_experts_per_token * 2 * intermediate_size]
scratch gated64 fp64[num_tokens * num_experts_per_token * intermediate_size]
scratch out64 fp64[num_tokens * num_experts_per_token * hidden_size]
launch count_experts grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(counts, router_indices, i64(num_tokens * num_experts_per_token))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_local_experts), i32(64))
launch place_rows grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(row_token, row_expert, row_weight, pos_of, cursor, router_indices, routing_weights, seg,
       i64(num_tokens * num_experts_per_token), i32(num_experts_per_token), i32(num_local_experts))
launch grouped_nn_gathered grid(ceil_div(2 * intermediate_size, 64), ceil_div(num_tokens * num_experts_per_token, 64) + num_local_experts) block(256)
  args(gate_up64, hidden_states, row_token, gate_up_projection, gate_up_projection_bias, row_expert, seg, tile_off,
       i32(num_local_experts), i32(2 * intermediate_size), i32(hidden_size))
launch glu grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 256)) block(256)
  args(gated64, gate_up64, i32(intermediate_size), f64(glu_alpha), f64(glu_limit), i64(num_tokens * num_experts_per_token * intermediate_size))
launch grouped_nn_f64 grid(ceil_div(hidden_size, 64), ceil_div(num_tokens * num_experts_per_token, 64) + num_local_experts) block(256)
  args(out64, gated64, down_projection, down_projection_bias, row_expert, seg, tile_off, i32(num_local_experts),
       i32(hidden_size), i32(intermediate_size))
launch combine grid(num_tokens) block(256) args(next_states, out64, row_weight, pos_of, i32(num_experts_per_token), i32(hidden_size))
*/
