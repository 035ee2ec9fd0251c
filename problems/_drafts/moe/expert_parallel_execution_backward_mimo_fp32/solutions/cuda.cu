// MoE backward (MiMo routed SwiGLU experts), fused, fp32 FMA products (SIMT, 128 x 128 tiles, 8 x 8 per
// thread, as the baseline: a single-pass TF32 product would not be accurate enough, and three-pass TF32
// through mma.sync would gain little over FFMA on Hopper, by its instruction rates). Every routed row is
// laid out expert after expert.
// With p = x W_g^T, q = x W_u^T, a = silu(p), h = a * q and v = g_out W_d per routed row (g_out the token's
// output gradient, w its routing weight):
//   grad_topk_weights = sum_i h_i v_i  (the reference's sum over hidden of g_out * (h W_d^T): one product less)
//   grad_down[e]      = sum_rows (w g_out)^T h   (h recomputed from p, q as the tiles load; written once)
//   grad_p = (w v) q silu'(p), grad_q = (w v) a (the reference's elementwise steps and roundings)
//   grad_gate[e], grad_up[e] = sum_rows grad_p^T x, grad_q^T x  (one launch; written once, no zeros + add)
//   grad_hidden[t]    = sum over the token's rows of [grad_p | grad_q] @ [W_g; W_u]  (one K = 2048 product,
//                       added with fp32 atomics: the order of a token's 8 adds is not fixed)
// The eager program also writes 12 GB of zeros, a temporary per weight-gradient product and reads both back;
// here each weight gradient is written once. Scratch: p, q, v ([49152, 1024] fp32 each, 0.6 GB).

namespace {
constexpr int BM = 128, BN = 128, BK = 8;

// acc[i][j] for rows (i < 4 ? 4 ty + i : 64 + 4 ty + i - 4), columns likewise with tx, of a 128 x 128 tile.
// An operand comes either in rows along k ("trans": thread t fetches index t / 2, k = k0 + 4 (t % 2) .. + 3)
// or in k-rows ("direct": k-row t / 32, indices 4 (t % 32) .. + 3); slices of 8 double-buffered.
template <bool kATrans, bool kBTrans, class FA, class FB>
__device__ __forceinline__ void sgemm_mainloop(float (&acc)[8][8], const FA &fa, const FB &fb, int k_dim) {
  __shared__ __align__(16) float As[2][BK][BM];
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  float4 ra, rb;
  auto store = [&](int buf) {
    if (kATrans) {
      As[buf][4 * (t % 2) + 0][t / 2] = ra.x;
      As[buf][4 * (t % 2) + 1][t / 2] = ra.y;
      As[buf][4 * (t % 2) + 2][t / 2] = ra.z;
      As[buf][4 * (t % 2) + 3][t / 2] = ra.w;
    } else {
      *reinterpret_cast<float4 *>(&As[buf][t / 32][4 * (t % 32)]) = ra;
    }
    if (kBTrans) {
      Bs[buf][4 * (t % 2) + 0][t / 2] = rb.x;
      Bs[buf][4 * (t % 2) + 1][t / 2] = rb.y;
      Bs[buf][4 * (t % 2) + 2][t / 2] = rb.z;
      Bs[buf][4 * (t % 2) + 3][t / 2] = rb.w;
    } else {
      *reinterpret_cast<float4 *>(&Bs[buf][t / 32][4 * (t % 32)]) = rb;
    }
  };
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
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
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4 *>(&As[buf][kk][4 * ty]);
      const float4 a1 = *reinterpret_cast<const float4 *>(&As[buf][kk][64 + 4 * ty]);
      const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][4 * tx]);
      const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][64 + 4 * tx]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
    }
    if (more) store(buf ^ 1);
    __syncthreads();
  }
}
__device__ __forceinline__ int acc_row(int i) { return i < 4 ? 4 * (threadIdx.x / 16) + i : 64 + 4 * (threadIdx.x / 16) + i - 4; }
__device__ __forceinline__ int acc_col(int j) { return j < 4 ? 4 * (threadIdx.x % 16) + j : 64 + 4 * (threadIdx.x % 16) + j - 4; }
__device__ __forceinline__ float4 zero4() { return make_float4(0.f, 0.f, 0.f, 0.f); }

} // namespace
namespace {
__device__ __forceinline__ int find_expert(const int *tile_off, int experts, int tile) {
  int lo = 0, hi = experts;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (tile_off[mid] <= tile) lo = mid;
    else hi = mid;
  }
  return lo;
}
__device__ __forceinline__ float4 ld4(const float *p) { return *reinterpret_cast<const float4 *>(p); }
__device__ __forceinline__ float silu(float x) { return x / (1.0f + expf(-x)); }
} // namespace

extern "C" __global__ void fill_f32(float *out, float v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}

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

// rows expert after expert (any order inside an expert); each row's token, slot and routing weight
extern "C" __global__ void place_rows(int *row_token, int *row_slot, float *row_w, int *cursor, const long long *indices,
                                      const float *topk_weights, const int *seg, long long cells, int top_k) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cells) return;
  const int e = (int)indices[i];
  const int p = seg[e] + atomicAdd(&cursor[e], 1);
  row_token[p] = (int)(i / top_k);
  row_slot[p] = (int)(i % top_k);
  row_w[p] = topk_weights[i];
}

// p (tile columns < inter) or q (>= inter) = x[token] @ [W_g[e]; W_u[e]]^T
extern "C" __global__ void __launch_bounds__(256) gate_up_products(float *p, float *q, const float *x, const int *row_token,
                                                                  const float *w_gate, const float *w_up, const int *seg,
                                                                  const int *tile_off, int experts, int inter, int hidden) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = find_expert(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1];
  const int n0 = blockIdx.x * BN, wrow0 = n0 < inter ? n0 : n0 - inter;
  const float *W = (n0 < inter ? w_gate : w_up) + (long long)e * inter * hidden;
  const int t = threadIdx.x, ar = row0 + t / 2;
  const float *a_src = ar < row_end ? x + (long long)row_token[ar] * hidden + 4 * (t % 2) : nullptr;
  const float *b_src = W + (long long)(wrow0 + t / 2) * hidden + 4 * (t % 2);
  float acc[8][8];
  sgemm_mainloop<true, true>(acc, [&](int k0) { return a_src ? ld4(a_src + k0) : zero4(); },
                             [&](int k0) { return ld4(b_src + k0); }, hidden);
  float *out = n0 < inter ? p : q;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + acc_row(i);
    if (r >= row_end) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4 *>(out + (long long)r * inter + wrow0 + acc_col(4 * h)) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
  }
}

// v = g_out[token] @ W_d[e]  (W_d[e]: [hidden, inter])
extern "C" __global__ void __launch_bounds__(256) down_backward_product(float *v, const float *grad_output, const int *row_token,
                                                                       const float *w_down, const int *seg, const int *tile_off,
                                                                       int experts, int inter, int hidden) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = find_expert(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const int t = threadIdx.x, ar = row0 + t / 2;
  const float *a_src = ar < row_end ? grad_output + (long long)row_token[ar] * hidden + 4 * (t % 2) : nullptr;
  const float *b_src = w_down + (long long)e * hidden * inter + (long long)(t / 32) * inter + n0 + 4 * (t % 32);
  float acc[8][8];
  sgemm_mainloop<true, false>(acc, [&](int k0) { return a_src ? ld4(a_src + k0) : zero4(); },
                              [&](int k0) { return ld4(b_src + (long long)k0 * inter); }, hidden);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + acc_row(i);
    if (r >= row_end) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4 *>(v + (long long)r * inter + n0 + acc_col(4 * h)) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
  }
}

// grad_down[e][m][n] = sum over e's rows of (w g_out[token])[m] * h[n], h = silu(p) * q: one 128 x 128 tile
// of one expert's [hidden, inter] gradient per block, K over the expert's rows; written, not added
extern "C" __global__ void __launch_bounds__(256) grad_down_weights(float *grad_down, const float *grad_output,
                                                                   const float *row_w, const float *p, const float *q,
                                                                   const int *row_token, const int *seg, int inter,
                                                                   int hidden) {
  const int e = blockIdx.z, lo = seg[e], hi = seg[e + 1];
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, t = threadIdx.x;
  float acc[8][8];
  sgemm_mainloop<false, false>(
      acc,
      [&](int k0) {
        const int r = lo + k0 + t / 32;
        if (r >= hi) return zero4();
        const float w = row_w[r];
        float4 g = ld4(grad_output + (long long)row_token[r] * hidden + m0 + 4 * (t % 32));
        g.x *= w;
        g.y *= w;
        g.z *= w;
        g.w *= w;
        return g;
      },
      [&](int k0) {
        const int r = lo + k0 + t / 32;
        if (r >= hi) return zero4();
        const long long o = (long long)r * inter + n0 + 4 * (t % 32);
        const float4 a = ld4(p + o), b = ld4(q + o);
        return make_float4(silu(a.x) * b.x, silu(a.y) * b.y, silu(a.z) * b.z, silu(a.w) * b.w);
      },
      hi - lo);
  float *out = grad_down + (long long)e * hidden * inter;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4 *>(out + (long long)(m0 + acc_row(i)) * inter + n0 + acc_col(4 * h)) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
}

// One block per routed row: grad_topk_weights[token, slot] = sum_i h_i v_i; then in place p <- grad_p,
// q <- grad_q with the reference's elementwise roundings.
extern "C" __global__ void __launch_bounds__(256) row_backward(float *grad_topk, float *p, float *q, const float *v,
                                                              const float *row_w, const int *row_token,
                                                              const int *row_slot, int inter, int top_k) {
  __shared__ float partial[8];
  const long long r = blockIdx.x;
  const float w = row_w[r];
  float dot = 0.0f;
  for (int i = threadIdx.x; i < inter; i += blockDim.x) {
    const long long k = r * inter + i;
    const float x = p[k], up = q[k], a = silu(x), vk = v[k];
    dot += (a * up) * vk;
    const float grad_inter = vk * w;
    const float s = 1.0f / (1.0f + expf(-x));
    const float silu_grad = s * (1.0f + x * (1.0f - s));
    p[k] = (grad_inter * up) * silu_grad;
    q[k] = grad_inter * a;
  }
  for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = dot;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int j = 0; j < (int)(blockDim.x / 32); ++j) s += partial[j];
    grad_topk[(long long)row_token[r] * top_k + row_slot[r]] = s;
  }
}

// grad_gate[e] (z < experts) or grad_up[e] (z >= experts) = sum over e's rows of grad_p^T (grad_q^T) x[token]
extern "C" __global__ void __launch_bounds__(256) grad_gate_up_weights(float *grad_gate, float *grad_up, const float *gp,
                                                                      const float *gq, const float *x, const int *row_token,
                                                                      const int *seg, int experts, int inter, int hidden) {
  const int z = blockIdx.z, e = z % experts, lo = seg[e], hi = seg[e + 1];
  const float *A = z < experts ? gp : gq;
  float *out = (z < experts ? grad_gate : grad_up) + (long long)e * inter * hidden;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, t = threadIdx.x;
  float acc[8][8];
  sgemm_mainloop<false, false>(
      acc,
      [&](int k0) {
        const int r = lo + k0 + t / 32;
        return r < hi ? ld4(A + (long long)r * inter + m0 + 4 * (t % 32)) : zero4();
      },
      [&](int k0) {
        const int r = lo + k0 + t / 32;
        return r < hi ? ld4(x + (long long)row_token[r] * hidden + n0 + 4 * (t % 32)) : zero4();
      },
      hi - lo);
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4 *>(out + (long long)(m0 + acc_row(i)) * hidden + n0 + acc_col(4 * h)) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
}

// grad_hidden[token] += [grad_p | grad_q] @ [W_g[e]; W_u[e]]  (fp32 atomics)
extern "C" __global__ void __launch_bounds__(256) grad_hidden_product(float *grad_hidden, const float *gp, const float *gq,
                                                                     const float *w_gate, const float *w_up,
                                                                     const int *row_token, const int *seg,
                                                                     const int *tile_off, int experts, int inter, int hidden) {
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  const int e = find_expert(tile_off, experts, tile);
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const int t = threadIdx.x, ar = row0 + t / 2;
  const long long woff = (long long)e * inter * hidden;
  float acc[8][8];
  sgemm_mainloop<true, false>(
      acc,
      [&](int k0) {
        if (ar >= row_end) return zero4();
        const int k = k0 + 4 * (t % 2);
        return k < inter ? ld4(gp + (long long)ar * inter + k) : ld4(gq + (long long)ar * inter + k - inter);
      },
      [&](int k0) {
        const int k = k0 + t / 32;
        const float *W = k < inter ? w_gate + woff + (long long)k * hidden : w_up + woff + (long long)(k - inter) * hidden;
        return ld4(W + n0 + 4 * (t % 32));
      },
      2 * inter);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + acc_row(i);
    if (r >= row_end) continue;
    float *dst = grad_hidden + (long long)row_token[r] * hidden + n0;
#pragma unroll
    for (int j = 0; j < 8; ++j) atomicAdd(dst + acc_col(j), acc[i][j]);
  }
}

/* mkb:plan
scratch counts int32[num_routed_experts] zeroed
scratch cursor int32[num_routed_experts] zeroed
scratch seg int32[num_routed_experts + 1]
scratch tile_off int32[num_routed_experts + 1]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_slot int32[num_tokens * num_experts_per_token]
scratch row_w fp32[num_tokens * num_experts_per_token]
scratch p fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch q fp32[num_tokens * num_experts_per_token * intermediate_size]
scratch v fp32[num_tokens * num_experts_per_token * intermediate_size]
launch count_experts grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(counts, topk_indices, i64(num_tokens * num_experts_per_token))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_routed_experts))
launch place_rows grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(row_token, row_slot, row_w, cursor, topk_indices, topk_weights, seg, i64(num_tokens * num_experts_per_token),
       i32(num_experts_per_token))
launch gate_up_products grid(2 * intermediate_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(p, q, hidden_states, row_token, gate_weights, up_weights, seg, tile_off, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
launch down_backward_product grid(intermediate_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(v, grad_output, row_token, down_weights, seg, tile_off, i32(num_routed_experts), i32(intermediate_size), i32(hidden_size))
launch grad_down_weights grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_output, row_w, p, q, row_token, seg, i32(intermediate_size), i32(hidden_size))
launch row_backward grid(num_tokens * num_experts_per_token) block(256)
  args(grad_topk_weights, p, q, v, row_w, row_token, row_slot, i32(intermediate_size), i32(num_experts_per_token))
launch grad_gate_up_weights grid(hidden_size / 128, intermediate_size / 128, 2 * num_routed_experts) block(256)
  args(grad_gate_weights, grad_up_weights, p, q, hidden_states, row_token, seg, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
launch fill_f32 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_hidden_states, f32(0), i64(num_tokens * hidden_size))
launch grad_hidden_product grid(hidden_size / 128, ceil_div(num_tokens * num_experts_per_token, 128) + num_routed_experts) block(256)
  args(grad_hidden_states, p, q, gate_weights, up_weights, row_token, seg, tile_off, i32(num_routed_experts),
       i32(intermediate_size), i32(hidden_size))
*/
