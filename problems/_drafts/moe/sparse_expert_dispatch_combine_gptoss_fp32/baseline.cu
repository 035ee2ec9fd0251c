// The eager baseline: one launch per operation of the reference as eager PyTorch runs it, every
// intermediate an fp32 tensor in memory (eager.py is that computation). The reference's Python loop over
// the active experts (.item() and torch.where host syncs) becomes one launch per operation over all
// experts: the rows of every expert laid out one expert after another (expert e owns rows
// seg[e] .. seg[e+1], in torch.where's (slot, token) order), and the two per-expert matmuls (cuBLAS SGEMM in
// eager: fp32, no TF32) are a hand-written grouped SGEMM (128 x 128 tiles, 8 x 8 outputs per thread, the
// layout cuBLAS's CUDA-core kernels use), since a matmul step cannot address one expert's rows.
// (MKB_MAP expressions see the macro's own i, k, n, base, values: parameters avoid those names.)
#include "mkb_ops.cuh"

// gate_up + gate_up_projection_bias[e], expert_output + down_projection_bias[e]: one bias row per routed row
MKB_MAP(add_row_bias, float, (const float *x, const float *bias, const int *row_expert, unsigned cols),
        x[i] + bias[(long long)row_expert[(unsigned)i / cols] * cols + (unsigned)i % cols])
// gate_up[..., ::2].clamp(max=limit), gate_up[..., 1::2].clamp(min=-limit, max=limit): strided reads
MKB_MAP(clamp_even, float, (const float *gu, unsigned half, float limit),
        gu[2 * (long long)((unsigned)i / half) * half + 2 * ((unsigned)i % half)] > limit
            ? limit : gu[2 * (long long)((unsigned)i / half) * half + 2 * ((unsigned)i % half)])
MKB_MAP(clamp_odd, float, (const float *gu, unsigned half, float limit),
        fminf(fmaxf(gu[2 * (long long)((unsigned)i / half) * half + 2 * ((unsigned)i % half) + 1], -limit), limit))
// up + 1, gate * alpha, torch.sigmoid, gate * sigmoid, (up + 1) * glu
MKB_MAP(add_scalar, float, (const float *x, float v), x[i] + v)
MKB_MAP(mul_scalar, float, (const float *x, float v), x[i] * v)
MKB_MAP(sigmoid_map, float, (const float *x), mkb_sigmoid(x[i]))
MKB_MAP(mul_map, float, (const float *a, const float *b), a[i] * b[i])
// expert_output * routing_weights[token_indices, e, None]: one weight per row
MKB_MAP(mul_rows, float, (const float *x, const float *w, unsigned cols), x[i] * w[(unsigned)i / cols])

extern "C" __global__ void fill_i64(long long *out, long long v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}
extern "C" __global__ void fill_f32(float *out, float v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}
// F.one_hot(router_indices, num_classes): zeros then scatter_ of ones
extern "C" __global__ void scatter_one_hot(long long *mask, const long long *indices, long long n, int classes) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) mask[i * classes + indices[i]] = 1;
}
// expert_mask.sum(dim=(-1, -2)) of the permuted [classes, top_k, tokens] view: column sums of the one-hot
extern "C" __global__ void sum_expert_columns(unsigned long long *counts, const long long *mask, long long rows, int classes) {
  __shared__ long long partial[8][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  long long acc = 0;
  if (c < classes)
    for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += (long long)gridDim.y * blockDim.y)
      acc += mask[r * classes + c];
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < classes) {
    for (int y = 1; y < 8; ++y) acc += partial[y][threadIdx.x];
    atomicAdd(&counts[c], (unsigned long long)acc);
  }
}
// where every active expert's rows start, and its first 128-row tile
extern "C" __global__ void expert_offsets(int *seg, int *tile_off, const unsigned long long *counts, int experts, int bm) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int rows = 0, tiles = 0;
  for (int e = 0; e < experts; ++e) {
    seg[e] = rows;
    tile_off[e] = tiles;
    rows += (int)counts[e];
    tiles += ((int)counts[e] + bm - 1) / bm;
  }
  seg[experts] = rows;
  tile_off[experts] = tiles;
}
// _, token_indices = torch.where(expert_mask[e]) for every expert at once: block e walks the
// [top_k, tokens] slice of the one-hot in (slot, token) order and compacts the ones
extern "C" __global__ void __launch_bounds__(1024) where_experts(int *row_token, int *row_expert, int *pos_of,
                                                                 const long long *mask, const int *seg, int tokens,
                                                                 int top_k, int classes) {
  __shared__ int warp_offset[32];
  __shared__ int total;
  const int e = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long cells = (long long)tokens * top_k;
  int count = 0;
  for (long long j0 = 0; j0 < cells; j0 += blockDim.x) {
    const long long j = j0 + threadIdx.x;
    const int slot = (int)(j / tokens), token = (int)(j % tokens);
    const bool one = j < cells && mask[((long long)token * top_k + slot) * classes + e] != 0;
    const unsigned ballot = __ballot_sync(0xffffffffu, one);
    if (lane == 0) warp_offset[warp] = __popc(ballot);
    __syncthreads();
    if (warp == 0) {
      const int v = lane < (int)(blockDim.x / 32) ? warp_offset[lane] : 0;
      int inclusive = v;
      for (int o = 1; o < 32; o <<= 1) {
        const int u = __shfl_up_sync(0xffffffffu, inclusive, o);
        if (lane >= o) inclusive += u;
      }
      warp_offset[lane] = inclusive - v;
      if (lane == 31) total = inclusive;
    }
    __syncthreads();
    if (one) {
      const int p = seg[e] + count + warp_offset[warp] + __popc(ballot & ((1u << lane) - 1u));
      row_token[p] = token;
      row_expert[p] = e;
      pos_of[(long long)token * top_k + slot] = p;
    }
    count += total;
    __syncthreads();
  }
}
// current_states = hidden_states[token_indices]
extern "C" __global__ void gather_rows(float *out, const float *x, const int *row_token, int dim, long long rows) {
  const long long n = rows * dim;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[(long long)row_token[i / dim] * dim + i % dim];
}
// routing_weights[token_indices, e]
extern "C" __global__ void gather_row_weights(float *out, const float *weights, const int *row_token, const int *row_expert,
                                              int experts, long long rows) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) out[r] = weights[(long long)row_token[r] * experts + row_expert[r]];
}
// next_states.index_add_(0, token_indices, weighted_output), expert after expert: each token's rows
// added in ascending expert order, an fp32 rounding per add
extern "C" __global__ void index_add_in_expert_order(float *next_states, const float *weighted, const int *pos_of,
                                                     const long long *indices, int top_k, int dim) {
  const long long t = blockIdx.x;
  int pos[8];
  long long ex[8];
  for (int j = 0; j < top_k; ++j) {
    ex[j] = indices[t * top_k + j];
    pos[j] = pos_of[t * top_k + j];
  }
  for (int a = 1; a < top_k; ++a)
    for (int b = a; b > 0 && ex[b - 1] > ex[b]; --b) {
      const long long te = ex[b];
      ex[b] = ex[b - 1];
      ex[b - 1] = te;
      const int tp = pos[b];
      pos[b] = pos[b - 1];
      pos[b - 1] = tp;
    }
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    float acc = next_states[t * dim + c];
    for (int j = 0; j < top_k; ++j) acc += weighted[(long long)pos[j] * dim + c];
    next_states[t * dim + c] = acc;
  }
}

// C[r, :] = A[r, :] @ W_e for the rows r of expert e (W_e = W + e * k_dim * n_dim, row-major [k_dim, n_dim]);
// fp32 FMA. Block: 128 rows of one expert x 128 columns, 256 threads of 8 x 8; A and W slices of 8 double
// buffered in shared memory (A transposed), the next slice loaded into registers during the products.
extern "C" __global__ void __launch_bounds__(256) grouped_sgemm_nn(float *C, const float *A, const float *W, const int *seg,
                                                                   const int *tile_off, int experts, int n_dim, int k_dim) {
  constexpr int BM = 128, BN = 128, BK = 8;
  __shared__ __align__(16) float As[2][BK][BM];
  __shared__ __align__(16) float Bs[2][BK][BN];
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
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int a_row = row0 + tid / 2, a_k = (tid % 2) * 4;
  const bool a_ok = a_row < row_end;
  const float *a_ptr = A + (long long)(a_ok ? a_row : row0) * k_dim + a_k;
  const int b_k = tid / 32, b_col = n0 + (tid % 32) * 4;
  const bool b_ok = b_col < n_dim;
  const float *b_ptr = W + (long long)e * k_dim * n_dim + (long long)b_k * n_dim + (b_ok ? b_col : 0);
  float4 ra, rb;
  auto load = [&](int k0) {
    ra = a_ok ? *reinterpret_cast<const float4 *>(a_ptr + k0) : make_float4(0.f, 0.f, 0.f, 0.f);
    rb = b_ok ? *reinterpret_cast<const float4 *>(b_ptr + (long long)k0 * n_dim) : make_float4(0.f, 0.f, 0.f, 0.f);
  };
  auto store = [&](int buf) {
    As[buf][a_k + 0][tid / 2] = ra.x;
    As[buf][a_k + 1][tid / 2] = ra.y;
    As[buf][a_k + 2][tid / 2] = ra.z;
    As[buf][a_k + 3][tid / 2] = ra.w;
    *reinterpret_cast<float4 *>(&Bs[buf][b_k][(tid % 32) * 4]) = rb;
  };
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  load(0);
  store(0);
  __syncthreads();
  for (int k0 = 0; k0 < k_dim; k0 += BK) {
    const int buf = (k0 / BK) & 1;
    if (k0 + BK < k_dim) load(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4 *>(&As[buf][kk][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4 *>(&As[buf][kk][64 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][64 + tx * 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
    }
    if (k0 + BK < k_dim) store(buf ^ 1);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    if (r >= row_end) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = n0 + h * 64 + tx * 4;
      if (c < n_dim)
        *reinterpret_cast<float4 *>(C + (long long)r * n_dim + c) =
            make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
    }
  }
}

/* mkb:plan
scratch one_hot int64[num_tokens * num_experts_per_token * (num_local_experts + 1)]
scratch counts int64[num_local_experts + 1] zeroed
scratch seg int32[num_local_experts + 1]
scratch tile_off int32[num_local_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_expert int32[num_tokens * num_experts_per_token]
scratch pos_of int32[num_tokens * num_experts_per_token]
scratch current_states fp32[num_tokens * num_experts_per_token * hidden_size]
scratch gate_up fp32[num_tokens * num_experts_per_token * 2 * intermediate_size]
scratch gate_up_biased fp32[num_tokens * num_experts_per_token * 2 * intermediate_size]
scratch gate fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch up fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch up_plus_one fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch gate_scaled fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch gate_sigmoid fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch glu fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch gated fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch expert_out fp32[num_tokens * num_experts_per_token * hidden_size]
scratch expert_out_biased fp32[num_tokens * num_experts_per_token * hidden_size]
scratch row_weights fp32[num_tokens * num_experts_per_token]
scratch weighted fp32[num_tokens * num_experts_per_token * hidden_size]
launch fill_f32 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(next_states, f32(0), i64(num_tokens * hidden_size))
launch fill_i64 grid(ceil_div(num_tokens * num_experts_per_token * (num_local_experts + 1), 1024)) block(256)
  args(one_hot, i64(0), i64(num_tokens * num_experts_per_token * (num_local_experts + 1)))
launch scatter_one_hot grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(one_hot, router_indices, i64(num_tokens * num_experts_per_token), i32(num_local_experts + 1))
launch sum_expert_columns grid(ceil_div(num_local_experts + 1, 32), 256) block(32, 8)
  args(counts, one_hot, i64(num_tokens * num_experts_per_token), i32(num_local_experts + 1))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_local_experts), i32(128))
launch where_experts grid(num_local_experts) block(1024)
  args(row_token, row_expert, pos_of, one_hot, seg, i32(num_tokens), i32(num_experts_per_token), i32(num_local_experts + 1))
launch gather_rows grid(ceil_div(num_tokens * num_experts_per_token * hidden_size, 1024)) block(256)
  args(current_states, hidden_states, row_token, i32(hidden_size), i64(num_tokens * num_experts_per_token))
launch grouped_sgemm_nn grid(ceil_div(2 * intermediate_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(gate_up, current_states, gate_up_projection, seg, tile_off, i32(num_local_experts), i32(2 * intermediate_size), i32(hidden_size))
launch add_row_bias grid(ceil_div(num_tokens * num_experts_per_token * 2 * intermediate_size, 1024)) block(256)
  args(gate_up_biased, gate_up, gate_up_projection_bias, row_expert, u32(2 * intermediate_size), i64(num_tokens * num_experts_per_token * 2 * intermediate_size))
launch clamp_even grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 1024)) block(256)
  args(gate, gate_up_biased, u32(intermediate_size), f32(glu_limit), i64(num_tokens * num_experts_per_token * intermediate_size))
launch clamp_odd grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 1024)) block(256)
  args(up, gate_up_biased, u32(intermediate_size), f32(glu_limit), i64(num_tokens * num_experts_per_token * intermediate_size))
launch add_scalar grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 1024)) block(256)
  args(up_plus_one, up, f32(1), i64(num_tokens * num_experts_per_token * intermediate_size))
launch mul_scalar grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 1024)) block(256)
  args(gate_scaled, gate, f32(glu_alpha), i64(num_tokens * num_experts_per_token * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 1024)) block(256)
  args(gate_sigmoid, gate_scaled, i64(num_tokens * num_experts_per_token * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 1024)) block(256)
  args(glu, gate, gate_sigmoid, i64(num_tokens * num_experts_per_token * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * num_experts_per_token * intermediate_size, 1024)) block(256)
  args(gated, up_plus_one, glu, i64(num_tokens * num_experts_per_token * intermediate_size))
launch grouped_sgemm_nn grid(ceil_div(hidden_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(expert_out, gated, down_projection, seg, tile_off, i32(num_local_experts), i32(hidden_size), i32(intermediate_size))
launch add_row_bias grid(ceil_div(num_tokens * num_experts_per_token * hidden_size, 1024)) block(256)
  args(expert_out_biased, expert_out, down_projection_bias, row_expert, u32(hidden_size), i64(num_tokens * num_experts_per_token * hidden_size))
launch gather_row_weights grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(row_weights, routing_weights, row_token, row_expert, i32(num_local_experts), i64(num_tokens * num_experts_per_token))
launch mul_rows grid(ceil_div(num_tokens * num_experts_per_token * hidden_size, 1024)) block(256)
  args(weighted, expert_out_biased, row_weights, u32(hidden_size), i64(num_tokens * num_experts_per_token * hidden_size))
launch index_add_in_expert_order grid(num_tokens) block(256)
  args(next_states, weighted, pos_of, router_indices, i32(num_experts_per_token), i32(hidden_size))
*/
