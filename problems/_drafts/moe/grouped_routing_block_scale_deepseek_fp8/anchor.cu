// The float64 anchor: DeepSeek-V3 grouped routing in double, then for each local expert the block-scaled
// SwiGLU MLP of its tokens in double (the fp8 values and scales read exactly), the routing weight applied,
// and each token's local experts summed in expert order.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

constexpr int kExperts = 256, kGroups = 8, kTopKGroups = 4, kTopK = 8;
constexpr int kLocal = 32, kOffset = 32;
constexpr int kHidden = 7168, kInter = 2048, kBlock = 128;
constexpr double kScale = 2.5;

__device__ __forceinline__ double fp8v(unsigned char b) {
  __nv_fp8_e4m3 v;
  v.__x = b;
  return (double)(float)v;
}

} // namespace

// Routing of one token per warp, in double. Lane l holds experts 8 l .. 8 l + 7 (group l / 4).
// Writes the 8 selected experts and their weights (ties toward the lower index; the draws keep a margin).
extern "C" __global__ void anchor_route(const float *routing_logits, const __nv_bfloat16 *routing_bias, int *sel,
                                        double *weight, long long tokens) {
  const long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (t >= tokens) return;
  double s[8], sb[8];
  for (int i = 0; i < 8; ++i) {
    const int e = 8 * lane + i;
    s[i] = 1.0 / (1.0 + exp(-(double)routing_logits[t * kExperts + e]));
    sb[i] = s[i] + (double)__bfloat162float(routing_bias[e]);
  }
  double a = -1e300, b = -1e300;
  for (int i = 0; i < 8; ++i) {
    if (sb[i] > a) { b = a; a = sb[i]; }
    else if (sb[i] > b) b = sb[i];
  }
  for (int o = 1; o < 4; o <<= 1) {
    const double oa = __shfl_xor_sync(0xffffffffu, a, o), ob = __shfl_xor_sync(0xffffffffu, b, o);
    const double hi = fmax(a, oa), lo = fmax(fmin(a, oa), fmax(b, ob));
    a = hi;
    b = lo;
  }
  double gs[kGroups];
  for (int j = 0; j < kGroups; ++j) gs[j] = __shfl_sync(0xffffffffu, a + b, 4 * j);
  const int my_group = lane >> 2;
  int rank = 0;
  for (int i = 0; i < kGroups; ++i) rank += (gs[i] > gs[my_group]) || (gs[i] == gs[my_group] && i < my_group);
  const bool kept = rank < kTopKGroups;
  double v[8];
  for (int i = 0; i < 8; ++i) v[i] = kept ? sb[i] : -1e300;
  int chosen[kTopK];
  double chosen_s[kTopK], total = 0.0;
  for (int k = 0; k < kTopK; ++k) {
    double best = -1e301;
    int where = 1 << 30;
    for (int i = 0; i < 8; ++i)
      if (v[i] > best) { best = v[i]; where = 8 * lane + i; }
    for (int o = 16; o > 0; o >>= 1) {
      const double ob = __shfl_xor_sync(0xffffffffu, best, o);
      const int ow = __shfl_xor_sync(0xffffffffu, where, o);
      if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
    }
    double sv = 0.0;
    for (int i = 0; i < 8; ++i)
      if ((where >> 3) == lane && (where & 7) == i) { sv = s[i]; v[i] = -1e300; }
    sv = __shfl_sync(0xffffffffu, sv, where >> 3);
    chosen[k] = where;
    chosen_s[k] = sv;
    total += sv;
  }
  if (lane < kTopK) {
    int e = chosen[0];
    double w = chosen_s[0];
    for (int k = 1; k < kTopK; ++k)
      if (lane == k) { e = chosen[k]; w = chosen_s[k]; }
    sel[t * kTopK + lane] = e;
    weight[t * kTopK + lane] = w / (total + 1e-20) * kScale;
  }
}

// One block (1024 threads) per local expert: its tokens in ascending order, their weights, and each
// token's rank in the list (slot[t][e], -1 when the token does not use the expert).
extern "C" __global__ void anchor_lists(const int *sel, const double *weight, int *count, int *list, double *pw, int *slot,
                                        int tokens) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = blockIdx.x, ge = e + kOffset;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  for (int t0 = 0; t0 < tokens; t0 += blockDim.x) {
    const int t = t0 + threadIdx.x;
    int hit = 0;
    double w = 0.0;
    if (t < tokens)
      for (int k = 0; k < kTopK; ++k)
        if (sel[t * kTopK + k] == ge) { hit = 1; w = weight[t * kTopK + k]; }
    // Block-wide exclusive scan of hit.
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
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
      warp_sums[lane] = ws;  // inclusive over warps
    }
    __syncthreads();
    const int before = base + (warp > 0 ? warp_sums[warp - 1] : 0) + incl - hit;
    if (t < tokens) {
      slot[(long long)t * kLocal + e] = hit ? before : -1;
      if (hit) {
        list[(long long)e * tokens + before] = t;
        pw[(long long)e * tokens + before] = w;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) base += warp_sums[blockDim.x / 32 - 1];
    __syncthreads();
  }
  if (threadIdx.x == 0) count[e] = base;
}

// offset[e] (pairs before expert e) and tile_start[e] (64-row tiles before expert e); tile_start[32] = tiles.
extern "C" __global__ void anchor_offsets(const int *count, int *offset, int *tile_start) {
  if (threadIdx.x != 0) return;
  int o = 0, tiles = 0;
  for (int e = 0; e < kLocal; ++e) {
    offset[e] = o;
    tile_start[e] = tiles;
    o += count[e];
    tiles += (count[e] + 63) / 64;
  }
  offset[kLocal] = o;
  tile_start[kLocal] = tiles;
}

// Grouped double GEMM: C[p, n] = sum_k A(p, k) B(n, k) for the pairs p of one expert. 64 x 64 tiles,
// 256 threads, each 4 x 4 outputs. kind 0: A = dequantized hidden rows of the expert's tokens, B = W13;
// kind 1: A = the SwiGLU intermediate, B = W2, and the result is scaled by the pair's routing weight.
template <int kind>
__device__ void grouped_gemm(const unsigned char *hidden, const float *hs_scale, const double *inter, const unsigned char *w,
                             const float *w_scale, const int *count, const int *list, const double *pw, const int *offset,
                             const int *tile_start, double *out, int tokens) {
  constexpr int N = kind == 0 ? 2 * kInter : kHidden;
  constexpr int K = kind == 0 ? kHidden : kInter;
  __shared__ double As[16][65], Bs[16][65];
  __shared__ int rows_tok[64];
  const int tile = blockIdx.y;
  if (tile >= tile_start[kLocal]) return;
  int e = 0;
  while (tile_start[e + 1] <= tile) ++e;
  const int m0 = (tile - tile_start[e]) * 64, n0 = blockIdx.x * 64;
  const int rows = min(64, count[e] - m0);
  if (threadIdx.x < 64) rows_tok[threadIdx.x] = threadIdx.x < rows ? list[(long long)e * tokens + m0 + threadIdx.x] : -1;
  __syncthreads();
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  double acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int r = 0; r < 4; ++r) {
      const int idx = threadIdx.x + 256 * r, row = idx >> 4, kk = idx & 15, k = k0 + kk;
      double a = 0.0;
      if (row < rows) {
        if (kind == 0) {
          const int t = rows_tok[row];
          a = fp8v(hidden[(long long)t * kHidden + k]) * (double)hs_scale[(long long)(k / kBlock) * tokens + t];
        } else {
          a = inter[(long long)(offset[e] + m0 + row) * kInter + k];
        }
      }
      As[kk][row] = a;
      const int n = n0 + row;
      Bs[kk][row] = fp8v(w[((long long)e * N + n) * K + k]) *
                    (double)w_scale[((long long)e * (N / kBlock) + n / kBlock) * (K / kBlock) + k / kBlock];
    }
    __syncthreads();
    for (int kk = 0; kk < 16; ++kk)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += As[kk][ty + 16 * i] * Bs[kk][tx + 16 * j];
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int row = ty + 16 * i;
    if (row >= rows) continue;
    const long long p = offset[e] + m0 + row;
    const double scale = kind == 1 ? pw[(long long)e * tokens + m0 + row] : 1.0;
    for (int j = 0; j < 4; ++j) out[p * N + n0 + tx + 16 * j] = acc[i][j] * scale;
  }
}

extern "C" __global__ void anchor_gemm1(const unsigned char *hidden, const float *hs_scale, const unsigned char *w13,
                                        const float *s13, const int *count, const int *list, const int *offset,
                                        const int *tile_start, double *proj, int tokens) {
  grouped_gemm<0>(hidden, hs_scale, nullptr, w13, s13, count, list, nullptr, offset, tile_start, proj, tokens);
}

extern "C" __global__ void anchor_gemm2(const double *inter, const unsigned char *w2, const float *s2, const int *count,
                                        const int *list, const double *pw, const int *offset, const int *tile_start,
                                        double *ypw, int tokens) {
  grouped_gemm<1>(nullptr, nullptr, inter, w2, s2, count, list, pw, offset, tile_start, ypw, tokens);
}

// inter = silu(gate) * up with up = proj[:, :2048], gate = proj[:, 2048:].
extern "C" __global__ void anchor_swiglu(const double *proj, const int *offset, double *inter) {
  const long long n = (long long)offset[kLocal] * kInter;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long p = i / kInter, c = i % kInter;
    const double up = proj[p * 2 * kInter + c], gate = proj[p * 2 * kInter + kInter + c];
    inter[i] = gate / (1.0 + exp(-gate)) * up;
  }
}

// output[t, :] = sum over the token's local experts, in expert order, of its weighted expert output.
extern "C" __global__ void anchor_combine(const double *ypw, const int *slot, const int *offset, double *output, long long tokens) {
  const long long n = tokens * kHidden;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / kHidden, h = i % kHidden;
    double s = 0.0;
    for (int e = 0; e < kLocal; ++e) {
      const int r = slot[t * kLocal + e];
      if (r >= 0) s += ypw[((long long)offset[e] + r) * kHidden + h];
    }
    output[i] = s;
  }
}

/* mkb:plan
scratch sel int32[seq_len * top_k]
scratch weight fp64[seq_len * top_k]
scratch count int32[num_local_experts]
scratch list int32[num_local_experts * seq_len]
scratch pw fp64[num_local_experts * seq_len]
scratch slot int32[seq_len * num_local_experts]
scratch offset int32[num_local_experts + 1]
scratch tile_start int32[num_local_experts + 1]
scratch proj fp64[seq_len * top_k * 2 * intermediate_size]
scratch inter fp64[seq_len * top_k * intermediate_size]
scratch ypw fp64[seq_len * top_k * hidden_size]
launch anchor_route grid(ceil_div(seq_len * 32, 256)) block(256) args(routing_logits, routing_bias, sel, weight, i64(seq_len))
launch anchor_lists grid(num_local_experts) block(1024) args(sel, weight, count, list, pw, slot, i32(seq_len))
launch anchor_offsets grid(1) block(32) args(count, offset, tile_start)
launch anchor_gemm1 grid(2 * intermediate_size / 64, ceil_div(seq_len * top_k, 64) + num_local_experts) block(256)
  args(hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale, count, list, offset, tile_start, proj, i32(seq_len))
launch anchor_swiglu grid(4096) block(256) args(proj, offset, inter)
launch anchor_gemm2 grid(hidden_size / 64, ceil_div(seq_len * top_k, 64) + num_local_experts) block(256)
  args(inter, gemm2_weights, gemm2_weights_scale, count, list, pw, offset, tile_start, ypw, i32(seq_len))
launch anchor_combine grid(4096) block(256) args(ypw, slot, offset, output, i64(seq_len))
*/
