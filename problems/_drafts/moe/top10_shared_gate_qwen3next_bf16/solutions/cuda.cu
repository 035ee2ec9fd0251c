// Qwen3-Next MoE block, fused. Eight launches:
//  1. router_fused: 64 tokens x 512 experts of fp32-accumulated logits on bf16 tensor cores (WMMA; the
//     products of bf16 values are exact in fp32), kept in shared memory; writes router_logits (bf16) and,
//     one warp per token, the fp32 softmax, top-10 and bf16 renormalized weights; counts each expert.
//  2. expert_offsets, 3. place_rows: every expert's rows laid out expert after expert; per token, the
//     positions of its rows in ascending expert order (the order the reference adds them in).
//  4. expert_swiglu: per 128-row tile of one expert, the gate and up products (WMMA) and the SwiGLU
//     epilogue in registers with the reference's bf16 roundings: h = bf16(bf16(g * bf16(sig(g))) * u).
//  5. expert_down: h @ D_e^T, epilogue bf16(bf16(o) * w) per row.
//  6. shared_gate_value: bf16(sigmoid(bf16(x . gate))) per token.
//  7. expert_swiglu again for the shared expert (one "expert" owning every token).
//  8. shared_down_combine: the shared down product, and in its epilogue the gated shared output and the
//     routed rows of the token added in ascending expert order with a bf16 rounding per add (index_add_
//     into a bf16 tensor), then the final bf16 sum.
// Rows are gathered from hidden_states as the tiles load (no gathered copy); no one-hot tensor.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;
typedef __nv_bfloat16 bf16;

namespace {
constexpr int kExperts = 512, kTopk = 10;

__device__ __forceinline__ float round_bf16(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }
__device__ __forceinline__ float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }
__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ int warp_min(int v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// ---- 1. router ----------------------------------------------------------------------------------------
constexpr int RM = 64, RK = 64, RHALF = 256, RLDA = RK + 8, RLDL = kExperts + 4;
constexpr int kRouterSmem = (RM * RLDA + RHALF * RLDA) * 2 + RM * RLDL * 4;  // 178176 bytes
} // namespace

extern "C" __global__ void __launch_bounds__(256)
router_fused(const bf16 *__restrict__ hidden, const bf16 *__restrict__ router_weight, bf16 *__restrict__ router_logits,
             int *__restrict__ selected, bf16 *__restrict__ routing_weights, int *__restrict__ counts, int tokens, int dim) {
  extern __shared__ __align__(128) unsigned char smem[];
  bf16 *As = reinterpret_cast<bf16 *>(smem);
  bf16 *Bs = As + RM * RLDA;
  float *Ls = reinterpret_cast<float *>(smem + (RM * RLDA + RHALF * RLDA) * 2);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long row0 = (long long)blockIdx.x * RM;
  const int wm = warp % 4, wn = warp / 4;
  for (int half = 0; half < 2; ++half) {
    const bf16 *W = router_weight + (long long)half * RHALF * dim;
    uint4 ra[2], rb[8];
    auto load = [&](int k0) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int q = threadIdx.x + 256 * i, m = q / 8, c = q % 8;
        ra[i] = row0 + m < tokens ? *reinterpret_cast<const uint4 *>(hidden + (row0 + m) * dim + k0 + 8 * c) : uint4{0, 0, 0, 0};
      }
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int q = threadIdx.x + 256 * i, n = q / 8, c = q % 8;
        rb[i] = *reinterpret_cast<const uint4 *>(W + (long long)n * dim + k0 + 8 * c);
      }
    };
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[8];
#pragma unroll
    for (int f = 0; f < 8; ++f) wmma::fill_fragment(acc[f], 0.0f);
    load(0);
    for (int k0 = 0; k0 < dim; k0 += RK) {
      __syncthreads();
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int q = threadIdx.x + 256 * i;
        *reinterpret_cast<uint4 *>(As + (q / 8) * RLDA + 8 * (q % 8)) = ra[i];
      }
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int q = threadIdx.x + 256 * i;
        *reinterpret_cast<uint4 *>(Bs + (q / 8) * RLDA + 8 * (q % 8)) = rb[i];
      }
      __syncthreads();
      if (k0 + RK < dim) load(k0 + RK);
#pragma unroll
      for (int kk = 0; kk < RK; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
        wmma::load_matrix_sync(a, As + wm * 16 * RLDA + kk, RLDA);
#pragma unroll
        for (int f = 0; f < 8; ++f) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b;
          wmma::load_matrix_sync(b, Bs + (wn * 128 + f * 16) * RLDA + kk, RLDA);
          wmma::mma_sync(acc[f], a, b, acc[f]);
        }
      }
    }
#pragma unroll
    for (int f = 0; f < 8; ++f)
      wmma::store_matrix_sync(Ls + wm * 16 * RLDL + half * RHALF + wn * 128 + f * 16, acc[f], RLDL, wmma::mem_row_major);
  }
  __syncthreads();
  for (int q = threadIdx.x; q < RM * kExperts; q += 256) {
    const int m = q / kExperts, e = q % kExperts;
    if (row0 + m < tokens) router_logits[(row0 + m) * kExperts + e] = __float2bfloat16_rn(Ls[m * RLDL + e]);
  }
  const float neg_inf = -__int_as_float(0x7f800000);
  for (int rr = 0; rr < RM / 8; ++rr) {
    const int m = warp * (RM / 8) + rr;
    const long long t = row0 + m;
    if (t >= tokens) break;
    float l[kExperts / 32], mx = neg_inf;
#pragma unroll
    for (int j = 0; j < kExperts / 32; ++j) {
      l[j] = Ls[m * RLDL + lane + 32 * j];
      mx = fmaxf(mx, l[j]);
    }
    mx = warp_max(mx);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < kExperts / 32; ++j) s += expf(l[j] - mx);
    s = warp_sum(s);
    float p[kTopk], top_sum = 0.0f;
    int my_expert = 0;
#pragma unroll
    for (int i = 0; i < kTopk; ++i) {
      float best = neg_inf;
      int best_e = 1 << 20;
#pragma unroll
      for (int j = 0; j < kExperts / 32; ++j)
        if (l[j] > best) {
          best = l[j];
          best_e = lane + 32 * j;
        }
      const float top = warp_max(best);
      const int e = warp_min(best == top ? best_e : 1 << 20);
      if (e % 32 == lane) {
#pragma unroll
        for (int j = 0; j < kExperts / 32; ++j)
          if (j == e / 32) l[j] = neg_inf;
      }
      p[i] = expf(top - mx) / s;
      top_sum += p[i];
      if (lane == i) my_expert = e;
    }
    float my_p = 0.0f;
#pragma unroll
    for (int i = 0; i < kTopk; ++i)
      if (lane == i) my_p = p[i];
    if (lane < kTopk) {
      selected[t * kTopk + lane] = my_expert;
      routing_weights[t * kTopk + lane] = __float2bfloat16_rn(my_p / top_sum);
      atomicAdd(&counts[my_expert], 1);
    }
  }
}

// ---- 2, 3. layout ---------------------------------------------------------------------------------------
constexpr int BM = 128, BN = 64, BK = 32, LDS = BK + 8, LDC = BN + 4;

extern "C" __global__ void expert_offsets(int *seg, int *tile_off, int *dense_seg, int *dense_tile, const int *counts,
                                          int experts, int tokens) {
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
  dense_seg[0] = 0;
  dense_seg[1] = tokens;
  dense_tile[0] = 0;
  dense_tile[1] = (tokens + BM - 1) / BM;
}

// One thread per token: its experts in ascending order get rows (any order inside an expert);
// pos_sorted[t, j] is the row of its j-th smallest expert.
extern "C" __global__ void place_rows(int *row_token, bf16 *row_w, int *pos_sorted, int *cursor, const int *selected,
                                      const bf16 *routing_weights, const int *seg, int tokens) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  int ex[kTopk], slot[kTopk];
  for (int j = 0; j < kTopk; ++j) {
    ex[j] = selected[t * kTopk + j];
    slot[j] = j;
  }
  for (int a = 1; a < kTopk; ++a)
    for (int b = a; b > 0 && ex[b - 1] > ex[b]; --b) {
      const int te = ex[b], ts = slot[b];
      ex[b] = ex[b - 1];
      slot[b] = slot[b - 1];
      ex[b - 1] = te;
      slot[b - 1] = ts;
    }
  for (int j = 0; j < kTopk; ++j) {
    const int p = seg[ex[j]] + atomicAdd(&cursor[ex[j]], 1);
    row_token[p] = t;
    row_w[p] = routing_weights[t * kTopk + slot[j]];
    pos_sorted[t * kTopk + j] = p;
  }
}

// ---- 4, 5, 7, 8. grouped GEMMs ----------------------------------------------------------------------------
// out tile (128 rows of one expert x 64 columns) of A @ W_e^T (W_e: [n_out, k_dim]); A's row r is
// x[row_token[r]] (gather) or x[r]. kMode 0: SwiGLU of two weights; 1: down, scaled by row_w; 2: shared down
// plus the combine.
namespace {
template <int kMode>
__device__ __forceinline__ void moe_gemm(bf16 *__restrict__ out, const bf16 *__restrict__ x, const int *__restrict__ row_token,
                                         int gather, const bf16 *__restrict__ W0, const bf16 *__restrict__ W1,
                                         const bf16 *__restrict__ row_w, const bf16 *__restrict__ gate_value,
                                         const bf16 *__restrict__ weighted, const int *__restrict__ pos_sorted,
                                         const int *__restrict__ seg, const int *__restrict__ tile_off, int experts,
                                         int n_out, int k_dim) {
  constexpr int kB = kMode == 0 ? 2 : 1;
  __shared__ __align__(128) unsigned char smem[BM * LDC * 4];
  bf16 *As = reinterpret_cast<bf16 *>(smem);
  bf16 *Bs = As + BM * LDS;  // kB tiles of BN x LDS
  float *Cs = reinterpret_cast<float *>(smem);
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
  const long long wofs = (long long)e * n_out * k_dim;
  const int warp = threadIdx.x / 32, wm = warp % 4, wn = warp / 4;
  const int c8 = threadIdx.x % 4;  // which 8 columns of the 32-wide slice this thread loads
  long long a_src[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int r = row0 + threadIdx.x / 4 + 64 * i;
    a_src[i] = r < row_end ? (long long)(gather ? row_token[r] : r) * k_dim : -1;
  }
  const long long b_src = wofs + (long long)(n0 + threadIdx.x / 4) * k_dim;
  uint4 ra[2], rb[kB];
  auto load = [&](int k0) {
#pragma unroll
    for (int i = 0; i < 2; ++i)
      ra[i] = a_src[i] >= 0 ? *reinterpret_cast<const uint4 *>(x + a_src[i] + k0 + 8 * c8) : uint4{0, 0, 0, 0};
    rb[0] = *reinterpret_cast<const uint4 *>(W0 + b_src + k0 + 8 * c8);
    if (kB == 2) rb[kB - 1] = *reinterpret_cast<const uint4 *>(W1 + b_src + k0 + 8 * c8);
  };
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kB][2][2];
#pragma unroll
  for (int b = 0; b < kB; ++b)
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[b][i][j], 0.0f);
  load(0);
  for (int k0 = 0; k0 < k_dim; k0 += BK) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 2; ++i)
      *reinterpret_cast<uint4 *>(As + (threadIdx.x / 4 + 64 * i) * LDS + 8 * c8) = ra[i];
#pragma unroll
    for (int b = 0; b < kB; ++b)
      *reinterpret_cast<uint4 *>(Bs + b * BN * LDS + (threadIdx.x / 4) * LDS + 8 * c8) = rb[b];
    __syncthreads();
    if (k0 + BK < k_dim) load(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], As + (wm * 32 + 16 * i) * LDS + kk, LDS);
#pragma unroll
      for (int b = 0; b < kB; ++b)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> bf;
          wmma::load_matrix_sync(bf, Bs + b * BN * LDS + (wn * 32 + 16 * j) * LDS + kk, LDS);
#pragma unroll
          for (int i = 0; i < 2; ++i) wmma::mma_sync(acc[b][i][j], a[i], bf, acc[b][i][j]);
        }
    }
  }
  if (kMode == 0) {  // gate and up fragments share a layout: the SwiGLU is elementwise on them
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int q = 0; q < acc[0][i][j].num_elements; ++q) {
          const float g = round_bf16(acc[0][i][j].x[q]), u = round_bf16(acc[kB - 1][i][j].x[q]);
          const float activated = round_bf16(g * round_bf16(sigmoid(g)));
          acc[0][i][j].x[q] = round_bf16(activated * u);
        }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(Cs + (wm * 32 + 16 * i) * LDC + wn * 32 + 16 * j, acc[0][i][j], LDC, wmma::mem_row_major);
  __syncthreads();
  if (kMode == 2) {
    for (int q = threadIdx.x; q < BM * BN; q += 256) {
      const int m = q / BN, c = q % BN, t = row0 + m;
      if (t >= row_end) continue;
      const float shared = round_bf16(__bfloat162float(gate_value[t]) * round_bf16(Cs[m * LDC + c]));
      float acc_routed = 0.0f;
      for (int j = 0; j < kTopk; ++j)
        acc_routed = round_bf16(acc_routed + __bfloat162float(weighted[(long long)pos_sorted[t * kTopk + j] * n_out + n0 + c]));
      out[(long long)t * n_out + n0 + c] = __float2bfloat16_rn(acc_routed + shared);
    }
  } else {
    for (int q = threadIdx.x; q < BM * BN / 8; q += 256) {
      const int m = q / (BN / 8), c = 8 * (q % (BN / 8)), r = row0 + m;
      if (r >= row_end) continue;
      const float scale = kMode == 1 ? __bfloat162float(row_w[r]) : 1.0f;
      union {
        uint4 v;
        bf16 h[8];
      } pack;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float v = Cs[m * LDC + c + j];
        pack.h[j] = __float2bfloat16_rn(kMode == 1 ? round_bf16(v) * scale : v);
      }
      *reinterpret_cast<uint4 *>(out + (long long)r * n_out + n0 + c) = pack.v;
    }
  }
}
} // namespace

extern "C" __global__ void __launch_bounds__(256)
expert_swiglu(bf16 *h, const bf16 *x, const int *row_token, int gather, const bf16 *gate_proj, const bf16 *up_proj,
              const int *seg, const int *tile_off, int experts, int n_out, int k_dim) {
  moe_gemm<0>(h, x, row_token, gather, gate_proj, up_proj, nullptr, nullptr, nullptr, nullptr, seg, tile_off, experts,
              n_out, k_dim);
}

extern "C" __global__ void __launch_bounds__(256)
expert_down(bf16 *weighted, const bf16 *h, const bf16 *row_w, const bf16 *down_proj, const int *seg, const int *tile_off,
            int experts, int n_out, int k_dim) {
  moe_gemm<1>(weighted, h, nullptr, 0, down_proj, nullptr, row_w, nullptr, nullptr, nullptr, seg, tile_off, experts,
              n_out, k_dim);
}

extern "C" __global__ void __launch_bounds__(256)
shared_down_combine(bf16 *final_states, const bf16 *sh, const bf16 *down_proj, const bf16 *gate_value,
                    const bf16 *weighted, const int *pos_sorted, const int *dense_seg, const int *dense_tile, int n_out,
                    int k_dim) {
  moe_gemm<2>(final_states, sh, nullptr, 0, down_proj, nullptr, nullptr, gate_value, weighted, pos_sorted, dense_seg,
              dense_tile, 1, n_out, k_dim);
}

// 6. bf16(sigmoid(bf16(x . gate))) per token, one warp per token
extern "C" __global__ void shared_gate_value(bf16 *gate_value, const bf16 *x, const bf16 *gate, int tokens, int dim) {
  const int lane = threadIdx.x % 32;
  const long long t = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (t >= tokens) return;
  float acc = 0.0f;
  for (int d = 8 * lane; d < dim; d += 256) {
    union {
      uint4 v;
      bf16 h[8];
    } a, b;
    a.v = *reinterpret_cast<const uint4 *>(x + t * dim + d);
    b.v = *reinterpret_cast<const uint4 *>(gate + d);
#pragma unroll
    for (int j = 0; j < 8; ++j) acc += __bfloat162float(a.h[j]) * __bfloat162float(b.h[j]);
  }
  acc = warp_sum(acc);
  if (lane == 0) gate_value[t] = __float2bfloat16_rn(sigmoid(round_bf16(acc)));
}

/* mkb:plan
scratch selected int32[num_tokens * top_k]
scratch routing_weights bf16[num_tokens * top_k]
scratch counts int32[num_experts] zeroed
scratch cursor int32[num_experts] zeroed
scratch seg int32[num_experts + 1]
scratch tile_off int32[num_experts + 1]
scratch dense_seg int32[2]
scratch dense_tile int32[2]
scratch row_token int32[num_tokens * top_k]
scratch row_w bf16[num_tokens * top_k]
scratch pos_sorted int32[num_tokens * top_k]
scratch h bf16[num_tokens * top_k * moe_intermediate_size]
scratch weighted bf16[num_tokens * top_k * hidden_size]
scratch shared_h bf16[num_tokens * shared_expert_intermediate_size]
scratch gate_value bf16[num_tokens]
launch router_fused grid(ceil_div(num_tokens, 64)) block(256) shared(178176)
  args(hidden_states, router_weight, router_logits, selected, routing_weights, counts, i32(num_tokens), i32(hidden_size))
launch expert_offsets grid(1) block(32) args(seg, tile_off, dense_seg, dense_tile, counts, i32(num_experts), i32(num_tokens))
launch place_rows grid(ceil_div(num_tokens, 256)) block(256)
  args(row_token, row_w, pos_sorted, cursor, selected, routing_weights, seg, i32(num_tokens))
launch expert_swiglu grid(moe_intermediate_size / 64, ceil_div(num_tokens * top_k, 128) + num_experts) block(256)
  args(h, hidden_states, row_token, i32(1), routed_gate_proj, routed_up_proj, seg, tile_off, i32(num_experts),
       i32(moe_intermediate_size), i32(hidden_size))
launch expert_down grid(hidden_size / 64, ceil_div(num_tokens * top_k, 128) + num_experts) block(256)
  args(weighted, h, row_w, routed_down_proj, seg, tile_off, i32(num_experts), i32(hidden_size), i32(moe_intermediate_size))
launch shared_gate_value grid(ceil_div(num_tokens, 8)) block(256) args(gate_value, hidden_states, shared_expert_gate, i32(num_tokens), i32(hidden_size))
launch expert_swiglu grid(shared_expert_intermediate_size / 64, ceil_div(num_tokens, 128)) block(256)
  args(shared_h, hidden_states, row_token, i32(0), shared_gate_proj, shared_up_proj, dense_seg, dense_tile, i32(1),
       i32(shared_expert_intermediate_size), i32(hidden_size))
launch shared_down_combine grid(hidden_size / 64, ceil_div(num_tokens, 128)) block(256)
  args(final_hidden_states, shared_h, shared_down_proj, gate_value, weighted, pos_sorted, dense_seg, dense_tile,
       i32(hidden_size), i32(shared_expert_intermediate_size))
*/
