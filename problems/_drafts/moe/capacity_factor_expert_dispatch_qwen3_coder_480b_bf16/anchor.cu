// The float64 anchor: each expert admits the first `capacity` tokens (ascending) that selected it; the
// admitted rows go through the expert's SwiGLU MLP as grouped double GEMMs on the fp64 tensor cores
// (mma m8n8k4, the bf16 weights read exactly), times the routing weight; each token sums its admitted
// pairs in double. Dropped pairs and the zero padding of the capacity buffers contribute nothing.
#include <cuda_bf16.h>

namespace {
constexpr int kHidden = 6144, kInter = 2560, kExperts = 160, kTopK = 8;
}

extern "C" __global__ void anchor_to_f64(double *out, const __nv_bfloat16 *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)__bfloat162float(in[i]);
}

// One block of 1024 threads per expert: the tokens that selected it in ascending order; the first
// `capacity` are admitted (adm_tok[e][i], adm_w[e][i]); slot[t][k] = e * capacity + i for an admitted
// pair, -1 for a dropped one (every (t, k) belongs to exactly one expert, so each is written once).
extern "C" __global__ void anchor_admit(const long long *sel, const __nv_bfloat16 *routing_weights, int *adm_count,
                                        int *adm_tok, double *adm_w, int *slot, int tokens, int capacity) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = blockIdx.x;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int t0 = 0; t0 < tokens; t0 += blockDim.x) {
    const int t = t0 + threadIdx.x;
    int hit = 0, kk = 0;
    if (t < tokens)
      for (int k = 0; k < kTopK; ++k)
        if (sel[(long long)t * kTopK + k] == e) { hit = 1; kk = k; }
    int incl = hit;
    for (int o = 1; o < 32; o <<= 1) {
      const int n = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += n;
    }
    if (lane == 31) warp_sums[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      int ws = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0;
      for (int o = 1; o < 32; o <<= 1) {
        const int n = __shfl_up_sync(0xffffffffu, ws, o);
        if (lane >= o) ws += n;
      }
      warp_sums[lane] = ws;
    }
    __syncthreads();
    const int rank = base + (warp > 0 ? warp_sums[warp - 1] : 0) + incl - hit;
    if (hit) {
      const bool admitted = rank < capacity;
      slot[(long long)t * kTopK + kk] = admitted ? e * capacity + rank : -1;
      if (admitted) {
        adm_tok[e * capacity + rank] = t;
        adm_w[e * capacity + rank] = (double)__bfloat162float(routing_weights[(long long)t * kTopK + kk]);
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) base += warp_sums[blockDim.x / 32 - 1];
    __syncthreads();
  }
  if (threadIdx.x == 0) adm_count[e] = min(base, capacity);
}

extern "C" __global__ void anchor_tiles(const int *adm_count, int *tile_start) {
  if (threadIdx.x != 0) return;
  int tiles = 0;
  for (int e = 0; e < kExperts; ++e) {
    tile_start[e] = tiles;
    tiles += (adm_count[e] + 63) / 64;
  }
  tile_start[kExperts] = tiles;
}

__device__ __forceinline__ void dmma(double (&d)[2], double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1]) : "d"(a), "d"(b));
}

// C[e * cap + i, n] = s_i * sum_k A[row_i, k] * W[e][k, n] for the admitted rows i of expert e, W bf16
// [K][N] per expert (x @ W layout), row_i = adm_tok[e][i] (gather) or e * cap + i; s_i = adm_w or 1.
// 64 x 64 tiles, 128 threads (2 x 2 warps of 32 x 32).
template <bool gather, bool scaled>
__device__ void grouped_dgemm(const double *A, const __nv_bfloat16 *W, double *C, const int *adm_count, const int *adm_tok,
                              const double *adm_w, const int *tile_start, int N, int K, int capacity) {
  __shared__ double As[64][17], Bs[64][17];
  __shared__ long long arow[64];
  const int tile = blockIdx.y;
  if (tile >= tile_start[kExperts]) return;
  int e = 0;
  while (tile_start[e + 1] <= tile) ++e;
  const int m0 = (tile - tile_start[e]) * 64, n0 = blockIdx.x * 64;
  const int rows = min(64, adm_count[e] - m0);
  if (threadIdx.x < 64) {
    const int i = e * capacity + m0 + min((int)threadIdx.x, rows - 1);
    arow[threadIdx.x] = gather ? (long long)adm_tok[i] : (long long)i;
  }
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  double acc[4][4][2] = {};
  const __nv_bfloat16 *wbase = W + (long long)e * K * N + n0;
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int r = 0; r < 8; ++r) {
      const int idx = threadIdx.x + 128 * r;
      As[idx >> 4][idx & 15] = A[arow[idx >> 4] * K + k0 + (idx & 15)];
      Bs[idx & 63][idx >> 6] = (double)__bfloat162float(wbase[(long long)(k0 + (idx >> 6)) * N + (idx & 63)]);
    }
    __syncthreads();
    for (int kk = 0; kk < 16; kk += 4) {
      double a[4], b[4];
      for (int i = 0; i < 4; ++i) a[i] = As[wm + 8 * i + g][kk + q];
      for (int j = 0; j < 4; ++j) b[j] = Bs[wn + 8 * j + g][kk + q];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) dmma(acc[i][j], a[i], b[j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int row = wm + 8 * i + g;
    if (row >= rows) continue;
    const long long p = (long long)e * capacity + m0 + row;
    const double s = scaled ? adm_w[p] : 1.0;
    double *c = C + p * N + n0 + wn;
    for (int j = 0; j < 4; ++j) {
      c[8 * j + 2 * q] = acc[i][j][0] * s;
      c[8 * j + 2 * q + 1] = acc[i][j][1] * s;
    }
  }
}

extern "C" __global__ void anchor_expert_in(const double *x64, const __nv_bfloat16 *W, double *C, const int *adm_count,
                                            const int *adm_tok, const int *tile_start, int capacity) {
  grouped_dgemm<true, false>(x64, W, C, adm_count, adm_tok, nullptr, tile_start, kInter, kHidden, capacity);
}
extern "C" __global__ void anchor_expert_down(const double *inter, const __nv_bfloat16 *W, double *C, const int *adm_count,
                                              const double *adm_w, const int *tile_start, int capacity) {
  grouped_dgemm<false, true>(inter, W, C, adm_count, nullptr, adm_w, tile_start, kHidden, kInter, capacity);
}

// silu(gate) * up for the admitted rows (rows past an expert's count are never read)
extern "C" __global__ void anchor_swiglu(double *gate, const double *up, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double g = gate[i];
    gate[i] = g / (1.0 + exp(-g)) * up[i];
  }
}

// output[t, :] = sum over the token's admitted pairs, in slot order, of the weighted expert output
extern "C" __global__ void anchor_combine(const double *y, const int *slot, double *output, long long tokens) {
  const long long n = tokens * kHidden;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / kHidden, h = i % kHidden;
    double s = 0.0;
    for (int k = 0; k < kTopK; ++k) {
      const int p = slot[t * kTopK + k];
      if (p >= 0) s += y[(long long)p * kHidden + h];
    }
    output[i] = s;
  }
}

/* mkb:plan
scratch adm_count int32[num_experts]
scratch adm_tok int32[num_experts * capacity]
scratch adm_w fp64[num_experts * capacity]
scratch slot int32[num_tokens * num_experts_per_tok]
scratch tile_start int32[num_experts + 1]
scratch x64 fp64[num_tokens * hidden_size]
scratch g64 fp64[num_experts * capacity * moe_intermediate_size]
scratch u64 fp64[num_experts * capacity * moe_intermediate_size]
scratch y64 fp64[num_experts * capacity * hidden_size]
launch anchor_admit grid(num_experts) block(1024)
  args(selected_experts, routing_weights, adm_count, adm_tok, adm_w, slot, i32(num_tokens), i32(capacity))
launch anchor_tiles grid(1) block(32) args(adm_count, tile_start)
launch anchor_to_f64 grid(8192) block(256) args(x64, hidden_states, i64(num_tokens * hidden_size))
launch anchor_expert_in grid(moe_intermediate_size / 64, num_experts * capacity / 64) block(128)
  args(x64, expert_gate_weights, g64, adm_count, adm_tok, tile_start, i32(capacity))
launch anchor_expert_in grid(moe_intermediate_size / 64, num_experts * capacity / 64) block(128)
  args(x64, expert_up_weights, u64, adm_count, adm_tok, tile_start, i32(capacity))
launch anchor_swiglu grid(8192) block(256) args(g64, u64, i64(num_experts * capacity * moe_intermediate_size))
launch anchor_expert_down grid(hidden_size / 64, num_experts * capacity / 64) block(128)
  args(g64, expert_down_weights, y64, adm_count, adm_w, tile_start, i32(capacity))
launch anchor_combine grid(8192) block(256) args(y64, slot, output, i64(num_tokens))
*/
