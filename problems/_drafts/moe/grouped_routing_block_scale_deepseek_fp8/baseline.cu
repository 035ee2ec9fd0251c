// The eager baseline: one launch per operation of the original's reference() as eager PyTorch runs it
// (eager.py is that program), every intermediate in memory in fp32 (the reference's compute dtype).
// The reference's Python loop over the 32 local experts (with its .any() and nonzero() host syncs) is
// batched: each operation of the loop body is one launch over all experts' (token, expert) pairs, laid out
// expert by expert with each expert's tokens in ascending order (nonzero's order), extents read on the
// device. Its two fp32 cuBLAS GEMMs per expert are grouped CUDA-core SGEMMs (fp32 FMA, no TF32), since the
// experts' token counts differ and a matmul step takes one shape; its index_add_ per expert is one launch
// that adds each token's expert outputs in expert order, the order the loop adds them.
#include <cuda_fp8.h>

#include "mkb_ops.cuh"

namespace {
constexpr int kLocal = 32, kOffset = 32, kTopK = 8;
constexpr int kHidden = 7168, kInter = 2048;

__device__ __forceinline__ float fp8f(unsigned char b) {
  __nv_fp8_e4m3 v;
  v.__x = b;
  return (float)v;
}
__device__ __forceinline__ long long gstart() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long gstep() { return (long long)gridDim.x * blockDim.x; }
} // namespace

// ---- Routing: [T, 256] fp32 elementwise ---------------------------------------------------------------
// scores = 1.0 / (1.0 + exp(-logits)): neg, exp, add, reciprocal, mul (Tensor.__rtruediv__)
MKB_MAP(neg, float, (const float *x), -x[i])
MKB_MAP(exp_map, float, (const float *x), expf(x[i]))
MKB_MAP(add_scalar, float, (const float *x, float s), x[i] + s)
MKB_MAP(reciprocal, float, (const float *x), 1.0f / x[i])
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
// routing_bias.to(fp32); scores_with_bias = scores + bias (broadcast along the rows)
MKB_MAP(bf16_to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(add_cols, float, (const float *a, const float *b, unsigned cols), a[i] + b[(unsigned)i % cols])
// group_scores = topk(..., k=2).values.sum(dim=2): the sum over the pair
MKB_MAP(sum_pairs, float, (const float *x), x[2 * i] + x[2 * i + 1])
// masked_fill's clone; scores * selected_mask; routing_weights / sum (broadcast); copies
MKB_MAP(copy_f32, float, (const float *x), x[i])
MKB_MAP(mul, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(div_rows, float, (const float *a, const float *b, unsigned cols), a[i] / b[(unsigned)i / cols])
MKB_MAP(fill_f32, float, (float v), v)
// rsum = routing_weights.sum(dim=1, keepdim=True)
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc)

// topk(grouped_scores [T, 8, 32], k=2, dim=2).values -> [T, 8, 2] (a thread per (token, group))
extern "C" __global__ void topk2_groups(float *out, const float *sb, long long rows) {
  for (long long r = gstart(); r < rows; r += gstep()) {
    float a = -__int_as_float(0x7f800000), b = a;
    for (int i = 0; i < 32; ++i) {
      const float v = sb[r * 32 + i];
      if (v > a) { b = a; a = v; }
      else if (v > b) b = v;
    }
    out[2 * r] = a;
    out[2 * r + 1] = b;
  }
}

// topk(group_scores [T, 8], k=4, dim=1).indices -> int64 [T, 4] (a thread per token)
extern "C" __global__ void topk4_groups(long long *out, const float *gs, long long tokens) {
  for (long long t = gstart(); t < tokens; t += gstep()) {
    int k = 0;
    for (int j = 0; j < 8 && k < 4; ++j) {
      int rank = 0;
      for (int i = 0; i < 8; ++i) rank += (gs[t * 8 + i] > gs[t * 8 + j]) || (gs[t * 8 + i] == gs[t * 8 + j] && i < j);
      if (rank < 4) out[t * 4 + k++] = j;
    }
  }
}

// bool tensors as bytes: zeros, scatter_(1, idx, True), expand + reshape (a copy), logical not
extern "C" __global__ void fill_u8(unsigned char *out, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = 0;
}
extern "C" __global__ void scatter_true(unsigned char *mask, const long long *idx, int k, int cols, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) mask[(i / k) * cols + idx[i]] = 1;
}
extern "C" __global__ void expand_groups(unsigned char *out, const unsigned char *group_mask, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = group_mask[i / 32];
}
extern "C" __global__ void logical_not(unsigned char *out, const unsigned char *in, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = !in[i];
}
// pruned.masked_fill_(~expert_mask, finfo(float32).min)
extern "C" __global__ void masked_fill(float *x, const unsigned char *mask, float v, long long n) {
  for (long long i = gstart(); i < n; i += gstep())
    if (mask[i]) x[i] = v;
}
// selected_mask.scatter_(1, selected_experts, 1.0)
extern "C" __global__ void scatter_one(float *x, const long long *idx, int k, int cols, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) x[(i / k) * cols + idx[i]] = 1.0f;
}

// topk(pruned [T, 256], k=8).indices -> int64 [T, 8]: a warp per token, lane holding experts 8 l .. 8 l + 7
extern "C" __global__ void topk8_experts(long long *out, const float *x, long long tokens) {
  const int lane = threadIdx.x & 31;
  for (long long t = gstart() / 32; t < tokens; t += gstep() / 32) {
    float v[8];
    for (int i = 0; i < 8; ++i) v[i] = x[t * 256 + 8 * lane + i];
    for (int k = 0; k < kTopK; ++k) {
      float best = -__int_as_float(0x7f800000);
      int where = 1 << 30;
      for (int i = 0; i < 8; ++i)
        if (v[i] > best || (v[i] == best && 8 * lane + i < where)) { best = v[i]; where = 8 * lane + i; }
      for (int o = 16; o > 0; o >>= 1) {
        const float ob = __shfl_xor_sync(0xffffffffu, best, o);
        const int ow = __shfl_xor_sync(0xffffffffu, where, o);
        if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
      }
      if ((where >> 3) == lane) v[where & 7] = -__int_as_float(0x7f800000);
      if (lane == 0) out[t * kTopK + k] = where;
    }
  }
}

// ---- Activations ------------------------------------------------------------------------------------
// hidden_states.to(fp32); .view(T, 56, 128).mul(hidden_states_scale.t().unsqueeze(-1))
MKB_MAP(fp8_to_f32, float, (const unsigned char *x), fp8f(x[i]))
MKB_MAP(scale_act, float, (const float *a, const float *s, unsigned hidden, unsigned tokens),
        a[i] * s[((unsigned)i % hidden) / 128u * tokens + (unsigned)i / hidden])

// ---- The expert loop's bookkeeping: (selected_experts == e).any(dim=1), nonzero -----------------------
extern "C" __global__ void eq_experts(unsigned char *eq, const long long *sel, long long tokens) {
  const long long n = (long long)kLocal * tokens * kTopK;
  for (long long i = gstart(); i < n; i += gstep()) {
    const long long e = i / (tokens * kTopK), r = i % (tokens * kTopK);
    eq[i] = sel[r] == e + kOffset;
  }
}
extern "C" __global__ void any_slots(unsigned char *token_mask, const unsigned char *eq, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) {
    unsigned char a = 0;
    for (int k = 0; k < kTopK; ++k) a |= eq[i * kTopK + k];
    token_mask[i] = a;
  }
}
// nonzero, part 1: tokens per expert (a block per expert)
extern "C" __global__ void nz_count(int *count, const unsigned char *token_mask, int tokens) {
  int c = 0;
  for (int t = threadIdx.x; t < tokens; t += blockDim.x) c += token_mask[(long long)blockIdx.x * tokens + t];
  c = mkb_ops::block_reduce<mkb_ops::sum_op>(c);
  if (threadIdx.x == 0) count[blockIdx.x] = c;
}
// part 2: offset[e] (pairs before expert e; offset[32] = all pairs) and 128-row SGEMM tiles before e
extern "C" __global__ void nz_offsets(const int *count, int *offset, int *tile_start) {
  if (threadIdx.x != 0) return;
  int o = 0, tiles = 0;
  for (int e = 0; e < kLocal; ++e) {
    offset[e] = o;
    tile_start[e] = tiles;
    o += count[e];
    tiles += (count[e] + 127) / 128;
  }
  offset[kLocal] = o;
  tile_start[kLocal] = tiles;
}
// part 3 (a block of 1024 per expert): the expert's tokens in ascending order, and each token's rank
// (slot[t][e], -1 where it does not use the expert) for the index_add
extern "C" __global__ void nz_fill(int *pair_token, int *slot, const unsigned char *token_mask, const int *offset, int tokens) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = blockIdx.x;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int t0 = 0; t0 < tokens; t0 += blockDim.x) {
    const int t = t0 + threadIdx.x;
    const int hit = t < tokens ? token_mask[(long long)e * tokens + t] : 0;
    int incl = hit;
    for (int o = 1; o < 32; o <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += v;
    }
    if (lane == 31) warp_sums[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      int ws = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0;
      for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, ws, o);
        if (lane >= o) ws += v;
      }
      warp_sums[lane] = ws;
    }
    __syncthreads();
    const int rank = base + (warp > 0 ? warp_sums[warp - 1] : 0) + incl - hit;
    if (t < tokens) {
      slot[(long long)t * kLocal + e] = hit ? rank : -1;
      if (hit) pair_token[offset[e] + rank] = t;
    }
    __syncthreads();
    if (threadIdx.x == 0) base += warp_sums[blockDim.x / 32 - 1];
    __syncthreads();
  }
}

// ---- Weights: gemm_weights[e].to(fp32).view(...).mul(scale) for every expert --------------------------
// the conversion is fp8_to_f32 above; the block-scale multiply runs in place on its output
extern "C" __global__ void scale_weights(float *w, const float *scale, unsigned rows, unsigned cols, long long n) {
  const unsigned sr = rows / 128u, sc = cols / 128u;
  for (long long base = (long long)blockIdx.x * blockDim.x * 4; base < n; base += (long long)gridDim.x * blockDim.x * 4) {
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      if (i < n) {
        const unsigned u = (unsigned)i, e = u / (rows * cols), r = u / cols % rows, c = u % cols;
        v[k] = w[i] * scale[(e * sr + r / 128u) * sc + c / 128u];
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      if (i < n) w[i] = v[k];
    }
  }
}

// ---- Per-pair operations over the first offset[32] pairs (extents on the device) -----------------------
// activation.index_select(0, token_indices)
extern "C" __global__ void gather_rows(float *out, const float *act, const int *pair_token, const int *offset) {
  const long long n = (long long)offset[kLocal] * kHidden;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = act[(long long)pair_token[i / kHidden] * kHidden + i % kHidden];
}
// up, gate = projected.split(2048, dim=1); gate / (1.0 + exp(-gate)) * up: neg, exp, add, div, mul
extern "C" __global__ void neg_gate(float *out, const float *proj, const int *offset) {
  const long long n = (long long)offset[kLocal] * kInter;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = -proj[(i / kInter) * 2 * kInter + kInter + i % kInter];
}
extern "C" __global__ void pair_exp(float *out, const float *x, const int *offset) {
  const long long n = (long long)offset[kLocal] * kInter;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = expf(x[i]);
}
extern "C" __global__ void pair_add_one(float *out, const float *x, const int *offset) {
  const long long n = (long long)offset[kLocal] * kInter;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = 1.0f + x[i];
}
extern "C" __global__ void gate_div(float *out, const float *proj, const float *den, const int *offset) {
  const long long n = (long long)offset[kLocal] * kInter;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = proj[(i / kInter) * 2 * kInter + kInter + i % kInter] / den[i];
}
extern "C" __global__ void mul_up(float *out, const float *x, const float *proj, const int *offset) {
  const long long n = (long long)offset[kLocal] * kInter;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = x[i] * proj[(i / kInter) * 2 * kInter + i % kInter];
}
// token_weights = routing_weights[token_indices, global_expert]
extern "C" __global__ void gather_weights(float *out, const float *rw, const int *pair_token, const int *offset) {
  const int total = offset[kLocal];
  for (long long p = gstart(); p < total; p += gstep()) {
    int e = 0;
    while (offset[e + 1] <= p) ++e;
    out[p] = rw[(long long)pair_token[p] * 256 + e + kOffset];
  }
}
// expert_output * token_weights
extern "C" __global__ void mul_rows(float *out, const float *y, const float *w, const int *offset) {
  const long long n = (long long)offset[kLocal] * kHidden;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = y[i] * w[i / kHidden];
}
// output.index_add_(0, token_indices, weighted) for the experts in loop order
extern "C" __global__ void index_add_experts(float *output, const float *yw, const int *slot, const int *offset, long long tokens) {
  const long long n = tokens * kHidden;
  for (long long i = gstart(); i < n; i += gstep()) {
    const long long t = i / kHidden, h = i % kHidden;
    float acc = output[i];
    for (int e = 0; e < kLocal; ++e) {
      const int r = slot[t * kLocal + e];
      if (r >= 0) acc += yw[((long long)offset[e] + r) * kHidden + h];
    }
    output[i] = acc;
  }
}
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

// ---- Grouped SGEMM (cuBLAS's per-expert fp32 GEMM): C[p, n] = sum_k A[p, k] * B[e][n, k] -------------
// 128 x 128 tiles, k steps of 8, 256 threads with 8 x 8 outputs each, register-prefetched double buffer.
extern "C" __global__ void __launch_bounds__(256) sgemm_grouped(const float *__restrict__ A, const float *__restrict__ B,
                                                                float *__restrict__ C, const int *count, const int *offset,
                                                                const int *tile_start, int N, int K) {
  __shared__ __align__(16) float As[2][8][132], Bs[2][8][132];
  const int tile = blockIdx.y;
  if (tile >= tile_start[kLocal]) return;
  int e = 0;
  while (tile_start[e + 1] <= tile) ++e;
  const int m0 = (tile - tile_start[e]) * 128, n0 = blockIdx.x * 128;
  const int rows = min(128, count[e] - m0);
  const int tid = threadIdx.x, lr = tid >> 1, lk = (tid & 1) * 4;
  const float *a_src = A + ((long long)offset[e] + m0 + min(lr, rows - 1)) * K + lk;
  const float *b_src = B + ((long long)e * N + n0 + lr) * K + lk;
  float4 ra = *reinterpret_cast<const float4 *>(a_src), rb = *reinterpret_cast<const float4 *>(b_src);
  const int tx = tid & 15, ty = tid >> 4;
  float acc[8][8] = {};
  int buf = 0;
  As[0][lk + 0][lr] = ra.x; As[0][lk + 1][lr] = ra.y; As[0][lk + 2][lr] = ra.z; As[0][lk + 3][lr] = ra.w;
  Bs[0][lk + 0][lr] = rb.x; Bs[0][lk + 1][lr] = rb.y; Bs[0][lk + 2][lr] = rb.z; Bs[0][lk + 3][lr] = rb.w;
  __syncthreads();
  for (int k0 = 0; k0 < K; k0 += 8) {
    const bool more = k0 + 8 < K;
    if (more) {
      ra = *reinterpret_cast<const float4 *>(a_src + k0 + 8);
      rb = *reinterpret_cast<const float4 *>(b_src + k0 + 8);
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      float a[8], b[8];
      *reinterpret_cast<float4 *>(a) = *reinterpret_cast<const float4 *>(&As[buf][k][ty * 4]);
      *reinterpret_cast<float4 *>(a + 4) = *reinterpret_cast<const float4 *>(&As[buf][k][64 + ty * 4]);
      *reinterpret_cast<float4 *>(b) = *reinterpret_cast<const float4 *>(&Bs[buf][k][tx * 4]);
      *reinterpret_cast<float4 *>(b + 4) = *reinterpret_cast<const float4 *>(&Bs[buf][k][64 + tx * 4]);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) {
      buf ^= 1;
      As[buf][lk + 0][lr] = ra.x; As[buf][lk + 1][lr] = ra.y; As[buf][lk + 2][lr] = ra.z; As[buf][lk + 3][lr] = ra.w;
      Bs[buf][lk + 0][lr] = rb.x; Bs[buf][lk + 1][lr] = rb.y; Bs[buf][lk + 2][lr] = rb.z; Bs[buf][lk + 3][lr] = rb.w;
      __syncthreads();
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    if (row >= rows) continue;
    float *c = C + ((long long)offset[e] + m0 + row) * N + n0;
    *reinterpret_cast<float4 *>(c + tx * 4) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4 *>(c + 64 + tx * 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

/* mkb:plan
# routing, [T, 256]
scratch neg_l fp32[seq_len * num_global_experts]
scratch ex fp32[seq_len * num_global_experts]
scratch den fp32[seq_len * num_global_experts]
scratch rec fp32[seq_len * num_global_experts]
scratch scores fp32[seq_len * num_global_experts]
scratch bias32 fp32[num_global_experts]
scratch sb fp32[seq_len * num_global_experts]
scratch top2 fp32[seq_len * num_groups * 2]
scratch group_scores fp32[seq_len * num_groups]
scratch sel_groups int64[seq_len * topk_groups]
scratch group_mask uint8[seq_len * num_groups]
scratch expert_mask uint8[seq_len * num_global_experts]
scratch not_mask uint8[seq_len * num_global_experts]
scratch pruned fp32[seq_len * num_global_experts]
scratch sel int64[seq_len * top_k]
scratch sel_mask fp32[seq_len * num_global_experts]
scratch rw0 fp32[seq_len * num_global_experts]
scratch rsum fp32[seq_len]
scratch rsum2 fp32[seq_len]
scratch rw1 fp32[seq_len * num_global_experts]
scratch rw fp32[seq_len * num_global_experts]
# activations and the fp32 output accumulator
scratch a32 fp32[seq_len * hidden_size]
scratch act fp32[seq_len * hidden_size]
scratch out32 fp32[seq_len * hidden_size]
# the expert loop, batched over the (token, expert) pairs: at most seq_len * top_k of them
scratch eq uint8[num_local_experts * seq_len * top_k]
scratch token_mask uint8[num_local_experts * seq_len]
scratch count int32[num_local_experts]
scratch offset int32[num_local_experts + 1]
scratch tile_start int32[num_local_experts + 1]
scratch pair_token int32[seq_len * top_k]
scratch slot int32[seq_len * num_local_experts]
scratch w13 fp32[num_local_experts * 2 * intermediate_size * hidden_size]
scratch w2 fp32[num_local_experts * hidden_size * intermediate_size]
scratch gathered fp32[seq_len * top_k * hidden_size]
scratch proj fp32[seq_len * top_k * 2 * intermediate_size]
scratch ng fp32[seq_len * top_k * intermediate_size]
scratch eg fp32[seq_len * top_k * intermediate_size]
scratch dg fp32[seq_len * top_k * intermediate_size]
scratch sg fp32[seq_len * top_k * intermediate_size]
scratch inter fp32[seq_len * top_k * intermediate_size]
scratch y fp32[seq_len * top_k * hidden_size]
scratch tw fp32[seq_len * top_k]
scratch yw fp32[seq_len * top_k * hidden_size]

launch neg grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(neg_l, routing_logits, i64(seq_len * num_global_experts))
launch exp_map grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(ex, neg_l, i64(seq_len * num_global_experts))
launch add_scalar grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(den, ex, f32(1.0), i64(seq_len * num_global_experts))
launch reciprocal grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(rec, den, i64(seq_len * num_global_experts))
launch mul_scalar grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(scores, rec, f32(1.0), i64(seq_len * num_global_experts))
launch bf16_to_f32 grid(1) block(256) args(bias32, routing_bias, i64(num_global_experts))
launch add_cols grid(ceil_div(seq_len * num_global_experts, 1024)) block(256)
  args(sb, scores, bias32, u32(num_global_experts), i64(seq_len * num_global_experts))
launch topk2_groups grid(ceil_div(seq_len * num_groups, 256)) block(256) args(top2, sb, i64(seq_len * num_groups))
launch sum_pairs grid(ceil_div(seq_len * num_groups, 1024)) block(256) args(group_scores, top2, i64(seq_len * num_groups))
launch topk4_groups grid(ceil_div(seq_len, 256)) block(256) args(sel_groups, group_scores, i64(seq_len))
launch fill_u8 grid(ceil_div(seq_len * num_groups, 256)) block(256) args(group_mask, i64(seq_len * num_groups))
launch scatter_true grid(ceil_div(seq_len * topk_groups, 256)) block(256)
  args(group_mask, sel_groups, i32(topk_groups), i32(num_groups), i64(seq_len * topk_groups))
launch expand_groups grid(ceil_div(seq_len * num_global_experts, 256)) block(256) args(expert_mask, group_mask, i64(seq_len * num_global_experts))
launch logical_not grid(ceil_div(seq_len * num_global_experts, 256)) block(256) args(not_mask, expert_mask, i64(seq_len * num_global_experts))
launch copy_f32 grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(pruned, sb, i64(seq_len * num_global_experts))
launch masked_fill grid(ceil_div(seq_len * num_global_experts, 256)) block(256)
  args(pruned, not_mask, f32(-3.4028234663852886e38), i64(seq_len * num_global_experts))
launch topk8_experts grid(ceil_div(seq_len * 32, 256)) block(256) args(sel, pruned, i64(seq_len))
launch fill_f32 grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(sel_mask, f32(0.0), i64(seq_len * num_global_experts))
launch scatter_one grid(ceil_div(seq_len * top_k, 256)) block(256)
  args(sel_mask, sel, i32(top_k), i32(num_global_experts), i64(seq_len * top_k))
launch mul grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(rw0, scores, sel_mask, i64(seq_len * num_global_experts))
launch row_sum grid(seq_len) block(256) args(rsum, rw0, i32(num_global_experts))
launch add_scalar grid(ceil_div(seq_len, 1024)) block(256) args(rsum2, rsum, f32(1e-20), i64(seq_len))
launch div_rows grid(ceil_div(seq_len * num_global_experts, 1024)) block(256)
  args(rw1, rw0, rsum2, u32(num_global_experts), i64(seq_len * num_global_experts))
launch mul_scalar grid(ceil_div(seq_len * num_global_experts, 1024)) block(256) args(rw, rw1, f32(routed_scaling_factor), i64(seq_len * num_global_experts))

launch fp8_to_f32 grid(ceil_div(seq_len * hidden_size, 1024)) block(256) args(a32, hidden_states, i64(seq_len * hidden_size))
launch scale_act grid(ceil_div(seq_len * hidden_size, 1024)) block(256)
  args(act, a32, hidden_states_scale, u32(hidden_size), u32(seq_len), i64(seq_len * hidden_size))
launch fill_f32 grid(ceil_div(seq_len * hidden_size, 1024)) block(256) args(out32, f32(0.0), i64(seq_len * hidden_size))

launch eq_experts grid(4096) block(256) args(eq, sel, i64(seq_len))
launch any_slots grid(ceil_div(num_local_experts * seq_len, 256)) block(256) args(token_mask, eq, i64(num_local_experts * seq_len))
launch nz_count grid(num_local_experts) block(1024) args(count, token_mask, i32(seq_len))
launch nz_offsets grid(1) block(32) args(count, offset, tile_start)
launch nz_fill grid(num_local_experts) block(1024) args(pair_token, slot, token_mask, offset, i32(seq_len))

launch fp8_to_f32 grid(ceil_div(num_local_experts * 2 * intermediate_size * hidden_size, 1024)) block(256)
  args(w13, gemm1_weights, i64(num_local_experts * 2 * intermediate_size * hidden_size))
launch scale_weights grid(ceil_div(num_local_experts * 2 * intermediate_size * hidden_size, 1024)) block(256)
  args(w13, gemm1_weights_scale, u32(2 * intermediate_size), u32(hidden_size), i64(num_local_experts * 2 * intermediate_size * hidden_size))
launch gather_rows grid(8192) block(256) args(gathered, act, pair_token, offset)
launch sgemm_grouped grid(2 * intermediate_size / 128, ceil_div(seq_len * top_k, 128) + num_local_experts) block(256)
  args(gathered, w13, proj, count, offset, tile_start, i32(2 * intermediate_size), i32(hidden_size))
launch neg_gate grid(8192) block(256) args(ng, proj, offset)
launch pair_exp grid(8192) block(256) args(eg, ng, offset)
launch pair_add_one grid(8192) block(256) args(dg, eg, offset)
launch gate_div grid(8192) block(256) args(sg, proj, dg, offset)
launch mul_up grid(8192) block(256) args(inter, sg, proj, offset)
launch fp8_to_f32 grid(ceil_div(num_local_experts * hidden_size * intermediate_size, 1024)) block(256)
  args(w2, gemm2_weights, i64(num_local_experts * hidden_size * intermediate_size))
launch scale_weights grid(ceil_div(num_local_experts * hidden_size * intermediate_size, 1024)) block(256)
  args(w2, gemm2_weights_scale, u32(hidden_size), u32(intermediate_size), i64(num_local_experts * hidden_size * intermediate_size))
launch sgemm_grouped grid(hidden_size / 128, ceil_div(seq_len * top_k, 128) + num_local_experts) block(256)
  args(inter, w2, y, count, offset, tile_start, i32(hidden_size), i32(intermediate_size))
launch gather_weights grid(ceil_div(seq_len * top_k, 256)) block(256) args(tw, rw, pair_token, offset)
launch mul_rows grid(8192) block(256) args(yw, y, tw, offset)
launch index_add_experts grid(8192) block(256) args(out32, yw, slot, offset, i64(seq_len))
launch to_bf16 grid(ceil_div(seq_len * hidden_size, 1024)) block(256) args(output, out32, i64(seq_len * hidden_size))
*/
