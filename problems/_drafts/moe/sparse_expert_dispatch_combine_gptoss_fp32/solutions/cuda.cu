// GPT-OSS experts, fused, fp32 throughout with the reference's rounding points. Six launches:
//  1. count_experts, 2. expert_offsets, 3. place_rows: every routed row laid out expert after expert;
//     per token, the rows of its experts in ascending expert order.
//  4. gate_up_glu: the grouped gate/up product (rows gathered from hidden_states as the tiles load), and in
//     its epilogue the bias, the clamps and the GLU: each thread holds whole (gate, up) column pairs, so the
//     5760-wide gate_up never goes to memory, only the 2880-wide GLU output.
//  5. down_weighted: the grouped down product, epilogue bias and routing weight.
//  6. combine: each token's 4 rows added in ascending expert order (fp32, as index_add_ expert by expert).
// The products are fp32 FMA (SIMT): 128 x 128 tiles, 8 x 8 outputs per thread, double-buffered slices of 8
// (the reference's cuBLAS SGEMM has TF32 off; a single-pass TF32 tensor-core product would not be accurate
// enough, and three-pass TF32 through mma.sync would gain little over FFMA on Hopper, by its instruction
// rates). What the fusion saves is the eager program's 15-odd GB of elementwise traffic around the two
// products.
namespace {
constexpr int BM = 128, BN = 128, BK = 8;

__device__ __forceinline__ int locate(const int *tile_off, int experts, int tile) {
  int lo = 0, hi = experts;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (tile_off[mid] <= tile) lo = mid;
    else hi = mid;
  }
  return lo;
}

// acc[i][j] = sum_k A[row(i), k] * W[k, col(j)], rows ty*4+i (i<4) and 64+ty*4+i-4, columns tx*4+j and
// 64+tx*4+j-4 of the tile; a_row_ptr: this thread's A row for loading (row tid/2 of the tile), or null.
__device__ __forceinline__ void sgemm_tile(float (&acc)[8][8], const float *a_row_ptr, const float *W, int n0, int n_dim,
                                           int k_dim) {
  __shared__ __align__(16) float As[2][BK][BM];
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int a_k = (tid % 2) * 4;
  const int b_k = tid / 32, b_col = n0 + (tid % 32) * 4;
  const bool b_ok = b_col < n_dim;
  const float *b_ptr = W + (long long)b_k * n_dim + (b_ok ? b_col : 0);
  float4 ra, rb;
  auto load = [&](int k0) {
    ra = a_row_ptr ? *reinterpret_cast<const float4 *>(a_row_ptr + a_k + k0) : make_float4(0.f, 0.f, 0.f, 0.f);
    rb = b_ok ? *reinterpret_cast<const float4 *>(b_ptr + (long long)k0 * n_dim) : make_float4(0.f, 0.f, 0.f, 0.f);
  };
  auto store = [&](int buf) {
    As[buf][a_k + 0][tid / 2] = ra.x;
    As[buf][a_k + 1][tid / 2] = ra.y;
    As[buf][a_k + 2][tid / 2] = ra.z;
    As[buf][a_k + 3][tid / 2] = ra.w;
    *reinterpret_cast<float4 *>(&Bs[buf][b_k][(tid % 32) * 4]) = rb;
  };
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
}

__device__ __forceinline__ int tile_row(int i) { return i < 4 ? (threadIdx.x / 16) * 4 + i : 64 + (threadIdx.x / 16) * 4 + i - 4; }
__device__ __forceinline__ int tile_col(int h) { return h * 64 + (threadIdx.x % 16) * 4; }
} // namespace

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

// One thread per token; pos_sorted[t, j]: the row of the token's j-th smallest expert.
extern "C" __global__ void place_rows(int *row_token, int *row_expert, float *row_weight, int *pos_sorted, int *cursor,
                                      const long long *indices, const float *routing_weights, const int *seg, int tokens,
                                      int top_k, int experts) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  int ex[8];
  for (int j = 0; j < top_k; ++j) ex[j] = (int)indices[(long long)t * top_k + j];
  for (int a = 1; a < top_k; ++a)
    for (int b = a; b > 0 && ex[b - 1] > ex[b]; --b) {
      const int te = ex[b];
      ex[b] = ex[b - 1];
      ex[b - 1] = te;
    }
  for (int j = 0; j < top_k; ++j) {
    const int e = ex[j], p = seg[e] + atomicAdd(&cursor[e], 1);
    row_token[p] = t;
    row_expert[p] = e;
    row_weight[p] = routing_weights[(long long)t * experts + e];
    pos_sorted[(long long)t * top_k + j] = p;
  }
}

extern "C" __global__ void __launch_bounds__(256)
gate_up_glu(float *__restrict__ gated, const float *__restrict__ x, const int *__restrict__ row_token,
            const float *__restrict__ gate_up_proj, const float *__restrict__ gate_up_bias, const int *__restrict__ seg,
            const int *__restrict__ tile_off, int experts, int n_dim /* 2 * intermediate */, int k_dim, float alpha,
            float limit) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = locate(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const int a_row = row0 + threadIdx.x / 2;
  const float *a_row_ptr = a_row < row_end ? x + (long long)row_token[a_row] * k_dim : nullptr;
  float acc[8][8];
  sgemm_tile(acc, a_row_ptr, gate_up_proj + (long long)e * k_dim * n_dim, n0, n_dim, k_dim);
  const float *bias = gate_up_bias + (long long)e * n_dim;
  const int half = n_dim / 2;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + tile_row(i);
    if (r >= row_end) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = n0 + tile_col(h);
      if (c >= n_dim) continue;
      float out[2];
#pragma unroll
      for (int p = 0; p < 2; ++p) {
        const float g = fminf(acc[i][4 * h + 2 * p] + bias[c + 2 * p], limit);  // torch.clamp(max=): NaN-free data
        const float u = fminf(fmaxf(acc[i][4 * h + 2 * p + 1] + bias[c + 2 * p + 1], -limit), limit);
        const float scaled = g * alpha;
        const float sig = 1.0f / (1.0f + expf(-scaled));
        out[p] = (u + 1.0f) * (g * sig);
      }
      *reinterpret_cast<float2 *>(gated + (long long)r * half + c / 2) = make_float2(out[0], out[1]);
    }
  }
}

extern "C" __global__ void __launch_bounds__(256)
down_weighted(float *__restrict__ weighted, const float *__restrict__ gated, const float *__restrict__ down_proj,
              const float *__restrict__ down_bias, const float *__restrict__ row_weight, const int *__restrict__ seg,
              const int *__restrict__ tile_off, int experts, int n_dim, int k_dim) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = locate(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const int a_row = row0 + threadIdx.x / 2;
  const float *a_row_ptr = a_row < row_end ? gated + (long long)a_row * k_dim : nullptr;
  float acc[8][8];
  sgemm_tile(acc, a_row_ptr, down_proj + (long long)e * k_dim * n_dim, n0, n_dim, k_dim);
  const float *bias = down_bias + (long long)e * n_dim;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + tile_row(i);
    if (r >= row_end) continue;
    const float w = row_weight[r];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = n0 + tile_col(h);
      if (c >= n_dim) continue;
      float4 v;
      v.x = (acc[i][4 * h + 0] + bias[c + 0]) * w;
      v.y = (acc[i][4 * h + 1] + bias[c + 1]) * w;
      v.z = (acc[i][4 * h + 2] + bias[c + 2]) * w;
      v.w = (acc[i][4 * h + 3] + bias[c + 3]) * w;
      *reinterpret_cast<float4 *>(weighted + (long long)r * n_dim + c) = v;
    }
  }
}

extern "C" __global__ void combine(float *next_states, const float *weighted, const int *pos_sorted, int top_k, int dim) {
  const long long t = blockIdx.x;
  for (int c = 4 * threadIdx.x; c < dim; c += 4 * blockDim.x) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int j = 0; j < top_k; ++j) {
      const float4 v = *reinterpret_cast<const float4 *>(weighted + (long long)pos_sorted[t * top_k + j] * dim + c);
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
    *reinterpret_cast<float4 *>(next_states + t * dim + c) = acc;
  }
}

/* mkb:plan
scratch counts int32[num_local_experts] zeroed
scratch cursor int32[num_local_experts] zeroed
scratch seg int32[num_local_experts + 1]
scratch tile_off int32[num_local_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_expert int32[num_tokens * num_experts_per_token]
scratch row_weight fp32[num_tokens * num_experts_per_token]
scratch pos_sorted int32[num_tokens * num_experts_per_token]
scratch gated fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch weighted fp32[num_tokens * num_experts_per_token * hidden_size]
launch count_experts grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(counts, router_indices, i64(num_tokens * num_experts_per_token))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_local_experts))
launch place_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(row_token, row_expert, row_weight, pos_sorted, cursor, router_indices, routing_weights, seg, i32(num_tokens),
       i32(num_experts_per_token), i32(num_local_experts))
launch gate_up_glu grid(ceil_div(2 * intermediate_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(gated, hidden_states, row_token, gate_up_projection, gate_up_projection_bias, seg, tile_off, i32(num_local_experts),
       i32(2 * intermediate_size), i32(hidden_size), f32(glu_alpha), f32(glu_limit))
launch down_weighted grid(ceil_div(hidden_size, 128), ceil_div(num_tokens * num_experts_per_token, 128) + num_local_experts) block(256)
  args(weighted, gated, down_projection, down_projection_bias, row_weight, seg, tile_off, i32(num_local_experts),
       i32(hidden_size), i32(intermediate_size))
launch combine grid(num_tokens) block(256) args(next_states, weighted, pos_sorted, i32(num_experts_per_token), i32(hidden_size))
*/
