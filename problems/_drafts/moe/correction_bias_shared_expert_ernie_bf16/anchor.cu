// The float64 anchor: router logits, softmax, correction bias, top-8 and the clamped renormalization in
// double; the shared expert as float64 matmul steps; each routed expert's SwiGLU MLP over its tokens as a
// grouped double GEMM on the fp64 tensor cores (mma m8n8k4), reading the bf16 weights exactly; every
// token's outputs summed in double.
#include <cuda_bf16.h>

namespace {
constexpr int kHidden = 8192, kExperts = 64, kTopK = 8, kInter = 3584;
}

extern "C" __global__ void anchor_to_f64_bf16(double *out, const __nv_bfloat16 *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)__bfloat162float(in[i]);
}
extern "C" __global__ void anchor_to_f64_f32(double *out, const float *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)in[i];
}
// silu(gate) * up, in place into gate
extern "C" __global__ void anchor_swiglu(double *gate, const double *up, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double g = gate[i];
    gate[i] = g / (1.0 + exp(-g)) * up[i];
  }
}

// Routing of one token per warp in double; lane holds experts lane and lane + 32. Writes the 8 selected
// experts (best first; the draws keep the 8th/9th margin) and their normalized weights.
extern "C" __global__ void anchor_route(const double *logits, const float *bias, int *sel, double *weight, double norm_min,
                                        long long tokens) {
  const long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (t >= tokens) return;
  const double x0 = logits[t * kExperts + lane], x1 = logits[t * kExperts + lane + 32];
  double m = fmax(x0, x1);
  for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
  const double e0 = exp(x0 - m), e1 = exp(x1 - m);
  double s = e0 + e1;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  double v[2] = {e0 / s + (double)bias[lane], e1 / s + (double)bias[lane + 32]};
  int chosen[kTopK];
  double val[kTopK], total = 0.0;
  for (int k = 0; k < kTopK; ++k) {
    double best = -1e300;
    int where = 1 << 30;
    for (int j = 0; j < 2; ++j)
      if (v[j] > best) { best = v[j]; where = lane + 32 * j; }
    for (int o = 16; o > 0; o >>= 1) {
      const double ob = __shfl_xor_sync(0xffffffffu, best, o);
      const int ow = __shfl_xor_sync(0xffffffffu, where, o);
      if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
    }
    if ((where & 31) == lane) v[where >> 5] = -1e300;
    chosen[k] = where;
    val[k] = best;
    total += best;
  }
  const double denom = fmax(total, norm_min);
  if (lane < kTopK) {
    int e = chosen[0];
    double w = val[0];
    for (int k = 1; k < kTopK; ++k)
      if (lane == k) { e = chosen[k]; w = val[k]; }
    sel[t * kTopK + lane] = e;
    weight[t * kTopK + lane] = w / denom;
  }
}

// One block of 1024 threads per expert: its tokens in ascending order (list[e][i]), their weights,
// and slot[t][e] (the token's rank, -1 if it does not use e).
extern "C" __global__ void anchor_lists(const int *sel, const double *weight, int *count, int *list, double *pw, int *slot,
                                        int tokens) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = blockIdx.x;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int t0 = 0; t0 < tokens; t0 += blockDim.x) {
    const int t = t0 + threadIdx.x;
    int hit = 0;
    double w = 0.0;
    if (t < tokens)
      for (int k = 0; k < kTopK; ++k)
        if (sel[t * kTopK + k] == e) { hit = 1; w = weight[t * kTopK + k]; }
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
    const int before = base + (warp > 0 ? warp_sums[warp - 1] : 0) + incl - hit;
    if (t < tokens) {
      slot[(long long)t * kExperts + e] = hit ? before : -1;
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

extern "C" __global__ void anchor_offsets(const int *count, int *offset, int *tile_start) {
  if (threadIdx.x != 0) return;
  int o = 0, tiles = 0;
  for (int e = 0; e < kExperts; ++e) {
    offset[e] = o;
    tile_start[e] = tiles;
    o += count[e];
    tiles += (count[e] + 63) / 64;
  }
  offset[kExperts] = o;
  tile_start[kExperts] = tiles;
}

__device__ __forceinline__ void dmma(double (&d)[2], double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1]) : "d"(a), "d"(b));
}

// Grouped double GEMM over the (token, expert) pairs of each expert e:
//   C[offset[e] + i, n] = scale_i * sum_k A[row_i, k] * W[e][n, k]
// with row_i = list[e][i] (gather, A = hidden in fp64) or offset[e] + i (A = per-pair rows), W bf16
// [N][K] per expert, scale_i = pw[e][i] or 1. 64 x 64 tiles, 128 threads (2 x 2 warps of 32 x 32).
template <bool gather, bool scaled>
__device__ void grouped_dgemm(const double *A, const __nv_bfloat16 *W, double *C, const int *count, const int *list,
                              const double *pw, const int *offset, const int *tile_start, int N, int K, int tokens) {
  __shared__ double As[64][17], Bs[64][17];
  __shared__ long long arow[64];
  const int tile = blockIdx.y;
  if (tile >= tile_start[kExperts]) return;
  int e = 0;
  while (tile_start[e + 1] <= tile) ++e;
  const int m0 = (tile - tile_start[e]) * 64, n0 = blockIdx.x * 64;
  const int rows = min(64, count[e] - m0);
  if (threadIdx.x < 64) {
    const int i = m0 + min((int)threadIdx.x, rows - 1);
    arow[threadIdx.x] = gather ? (long long)list[(long long)e * tokens + i] : (long long)offset[e] + i;
  }
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  double acc[4][4][2] = {};
  const __nv_bfloat16 *wbase = W + ((long long)e * N + n0) * K;
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int r = 0; r < 8; ++r) {
      const int idx = threadIdx.x + 128 * r, row = idx >> 4, kk = idx & 15;
      As[row][kk] = A[arow[row] * K + k0 + kk];
      Bs[row][kk] = (double)__bfloat162float(wbase[(long long)row * K + k0 + kk]);
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
    const double s = scaled ? pw[(long long)e * tokens + m0 + row] : 1.0;
    double *c = C + ((long long)offset[e] + m0 + row) * N + n0 + wn;
    for (int j = 0; j < 4; ++j) {
      c[8 * j + 2 * q] = acc[i][j][0] * s;
      c[8 * j + 2 * q + 1] = acc[i][j][1] * s;
    }
  }
}

extern "C" __global__ void anchor_expert_in(const double *x64, const __nv_bfloat16 *W, double *C, const int *count,
                                            const int *list, const int *offset, const int *tile_start, int tokens) {
  grouped_dgemm<true, false>(x64, W, C, count, list, nullptr, offset, tile_start, kInter, kHidden, tokens);
}
extern "C" __global__ void anchor_expert_down(const double *inter, const __nv_bfloat16 *W, double *C, const int *count,
                                              const int *list, const double *pw, const int *offset, const int *tile_start,
                                              int tokens) {
  grouped_dgemm<false, true>(inter, W, C, count, list, pw, offset, tile_start, kHidden, kInter, tokens);
}

// output[t, :] = shared[t, :] + sum over the token's experts, in expert order, of its weighted outputs
extern "C" __global__ void anchor_combine(const double *shared, const double *ypw, const int *slot, const int *offset,
                                          double *output, long long tokens) {
  const long long n = tokens * kHidden;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / kHidden, h = i % kHidden;
    double s = 0.0;
    for (int e = 0; e < kExperts; ++e) {
      const int r = slot[t * kExperts + e];
      if (r >= 0) s += ypw[((long long)offset[e] + r) * kHidden + h];
    }
    output[i] = s + shared[i];
  }
}

/* mkb:plan
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch gw64 fp64[num_experts * hidden_size]
scratch sel int32[batch_size * seq_len * top_k]
scratch weight fp64[batch_size * seq_len * top_k]
scratch count int32[num_experts]
scratch list int32[num_experts * batch_size * seq_len]
scratch pw fp64[num_experts * batch_size * seq_len]
scratch slot int32[batch_size * seq_len * num_experts]
scratch offset int32[num_experts + 1]
scratch tile_start int32[num_experts + 1]
scratch sw fp64[shared_intermediate_size * hidden_size]
scratch sg64 fp64[batch_size * seq_len * shared_intermediate_size]
scratch su64 fp64[batch_size * seq_len * shared_intermediate_size]
scratch shared64 fp64[batch_size * seq_len * hidden_size]
scratch eg64 fp64[batch_size * seq_len * top_k * intermediate_size]
scratch eu64 fp64[batch_size * seq_len * top_k * intermediate_size]
scratch ypw fp64[batch_size * seq_len * top_k * hidden_size]
launch anchor_to_f64_bf16 grid(8192) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch anchor_to_f64_f32 grid(2048) block(256) args(gw64, gate_weight, i64(num_experts * hidden_size))
matmul c(router_logits) a(x64) b(gw64) m(batch_size * seq_len) n(num_experts) k(hidden_size) transpose_b
launch anchor_route grid(ceil_div(batch_size * seq_len * 32, 256)) block(256)
  args(router_logits, e_score_correction_bias, sel, weight, f64(norm_min), i64(batch_size * seq_len))
launch anchor_lists grid(num_experts) block(1024) args(sel, weight, count, list, pw, slot, i32(batch_size * seq_len))
launch anchor_offsets grid(1) block(32) args(count, offset, tile_start)
launch anchor_to_f64_bf16 grid(8192) block(256) args(sw, shared_gate_proj, i64(shared_intermediate_size * hidden_size))
matmul c(sg64) a(x64) b(sw) m(batch_size * seq_len) n(shared_intermediate_size) k(hidden_size) transpose_b
launch anchor_to_f64_bf16 grid(8192) block(256) args(sw, shared_up_proj, i64(shared_intermediate_size * hidden_size))
matmul c(su64) a(x64) b(sw) m(batch_size * seq_len) n(shared_intermediate_size) k(hidden_size) transpose_b
launch anchor_swiglu grid(8192) block(256) args(sg64, su64, i64(batch_size * seq_len * shared_intermediate_size))
launch anchor_to_f64_bf16 grid(8192) block(256) args(sw, shared_down_proj, i64(hidden_size * shared_intermediate_size))
matmul c(shared64) a(sg64) b(sw) m(batch_size * seq_len) n(hidden_size) k(shared_intermediate_size) transpose_b
launch anchor_expert_in grid(intermediate_size / 64, batch_size * seq_len * top_k / 64 + num_experts) block(128)
  args(x64, expert_gate_proj, eg64, count, list, offset, tile_start, i32(batch_size * seq_len))
launch anchor_expert_in grid(intermediate_size / 64, batch_size * seq_len * top_k / 64 + num_experts) block(128)
  args(x64, expert_up_proj, eu64, count, list, offset, tile_start, i32(batch_size * seq_len))
launch anchor_swiglu grid(8192) block(256) args(eg64, eu64, i64(batch_size * seq_len * top_k * intermediate_size))
launch anchor_expert_down grid(hidden_size / 64, batch_size * seq_len * top_k / 64 + num_experts) block(128)
  args(eg64, expert_down_proj, ypw, count, list, pw, offset, tile_start, i32(batch_size * seq_len))
launch anchor_combine grid(8192) block(256) args(shared64, ypw, slot, offset, output, i64(batch_size * seq_len))
*/
