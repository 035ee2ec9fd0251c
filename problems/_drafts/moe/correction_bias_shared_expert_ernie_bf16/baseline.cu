// The eager baseline: one launch per operation of the reference as eager PyTorch runs it (eager.py is
// that program), bf16 tensors rounded once per operation, routing in fp32. The shared expert's and the
// router's products are cuBLAS matmul steps, as eager's. The loop over the hit experts (each iteration
// a torch.where, an index, three cuBLAS GEMMs and five elementwise launches, with host syncs) is
// batched: every loop operation is one launch over all (token, expert) pairs, laid out expert by expert
// in torch.where's order (top-k slot, then token); its per-expert GEMMs, whose row counts differ, are
// one grouped bf16 tensor-core GEMM launch each (fp32 accumulation, one rounding: cuBLAS's numerics), and
// index_add_ adds each token's expert outputs in expert order with a bf16 rounding per addition, as the
// loop's index_add_ calls do.
#include "mkb_ops.cuh"

namespace {
constexpr int kHidden = 8192, kExperts = 64, kTopK = 8;
__device__ __forceinline__ long long gstart() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long gstep() { return (long long)gridDim.x * blockDim.x; }
}

MKB_MAP(silu_bf16, bf16, (const bf16 *x), mkb_silu(f32(x[i])))
MKB_MAP(mul_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) * f32(b[i]))
MKB_MAP(add_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) + f32(b[i]))
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(add_cols, float, (const float *a, const float *b, unsigned cols), a[i] + b[(unsigned)i % cols])
MKB_MAP(clamp_min, float, (const float *x, float lo), fmaxf(x[i], lo))
MKB_MAP(div_rows, float, (const float *a, const float *b, unsigned cols), a[i] / b[(unsigned)i / cols])
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
MKB_MAP(fill_bf16, bf16, (float v), v)
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc)
// weighted_output = expert_output * routing_weights_normalized[top_x, idx, None] (bf16 * bf16)
MKB_MAP(mul_rows_bf16, bf16, (const bf16 *y, const bf16 *w, unsigned cols), f32(y[i]) * f32(w[(unsigned)i / cols]))

// F.softmax(router_logits, dim=1): a warp per token, exp(x - max) / sum
extern "C" __global__ void softmax64(float *out, const float *x, long long tokens) {
  const int lane = threadIdx.x & 31;
  for (long long t = gstart() / 32; t < tokens; t += gstep() / 32) {
    const float a = x[t * kExperts + lane], b = x[t * kExperts + lane + 32];
    float m = fmaxf(a, b);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    const float ea = expf(a - m), eb = expf(b - m);
    float s = ea + eb;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    out[t * kExperts + lane] = ea / s;
    out[t * kExperts + lane + 32] = eb / s;
  }
}

// torch.topk(routing_weights, 8, dim=-1): indices best first (a warp per token)
extern "C" __global__ void topk8(long long *sel, const float *x, long long tokens) {
  const int lane = threadIdx.x & 31;
  for (long long t = gstart() / 32; t < tokens; t += gstep() / 32) {
    float v[2] = {x[t * kExperts + lane], x[t * kExperts + lane + 32]};
    for (int k = 0; k < kTopK; ++k) {
      float best = -__int_as_float(0x7f800000);
      int where = 1 << 30;
      for (int j = 0; j < 2; ++j)
        if (v[j] > best) { best = v[j]; where = lane + 32 * j; }
      for (int o = 16; o > 0; o >>= 1) {
        const float ob = __shfl_xor_sync(0xffffffffu, best, o);
        const int ow = __shfl_xor_sync(0xffffffffu, where, o);
        if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
      }
      if ((where & 31) == lane) v[where >> 5] = -__int_as_float(0x7f800000);
      if (lane == 0) sel[t * kTopK + k] = where;
    }
  }
}

// torch.gather(routing_weights, -1, selected_experts)
extern "C" __global__ void gather8(float *out, const float *x, const long long *sel, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = x[(i / kTopK) * kExperts + sel[i]];
}

// F.one_hot(selected_experts, 64): int64 [T, 8, 64]
extern "C" __global__ void one_hot(long long *out, const long long *sel, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = sel[i / kExperts] == i % kExperts;
}
// expert_mask.sum(dim=(-1, -2)) on the permuted [64, 8, T] view: per expert, over all tokens and slots
extern "C" __global__ void expert_totals(long long *count, const long long *oh, long long rows) {
  long long c = 0;
  for (long long r = threadIdx.x; r < rows; r += blockDim.x) c += oh[r * kExperts + blockIdx.x];
  c = mkb_ops::block_reduce<mkb_ops::sum_op>(c);
  if (threadIdx.x == 0) count[blockIdx.x] = c;
}
// torch.greater(..., 0) (the hit list's nonzero is implicit: the batched loop skips empty experts)
extern "C" __global__ void greater0(unsigned char *hit, const long long *count) {
  if (threadIdx.x < kExperts) hit[threadIdx.x] = count[threadIdx.x] > 0;
}
// offsets of each expert's pairs and of its 128-row tiles times the n-tiles of the widest GEMM
extern "C" __global__ void pair_offsets(const long long *count, int *cnt, int *offset) {
  if (threadIdx.x != 0) return;
  int o = 0;
  for (int e = 0; e < kExperts; ++e) {
    cnt[e] = (int)count[e];
    offset[e] = o;
    o += (int)count[e];
  }
  offset[kExperts] = o;
}
// torch.where(expert_mask[e]): the (slot, token) pairs of expert e in row-major order of [8, T]; a block
// of 1024 per expert. Also each token's pair per expert (slot_of[t][e], -1 if none) for the index_add.
extern "C" __global__ void where_pairs(int *pair_token, int *pair_k, int *slot_of, const long long *sel, const int *offset,
                                       int tokens) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = blockIdx.x;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int n = kTopK * tokens;
  for (int j0 = 0; j0 < n; j0 += blockDim.x) {
    const int j = j0 + threadIdx.x, k = j / tokens, t = j % tokens;
    const int hit = j < n ? (sel[(long long)t * kTopK + k] == e) : 0;
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
    const int p = offset[e] + base + (warp > 0 ? warp_sums[warp - 1] : 0) + incl - hit;
    if (hit) {
      pair_token[p] = t;
      pair_k[p] = k;
      slot_of[(long long)t * kExperts + e] = p;
    }
    __syncthreads();
    if (threadIdx.x == 0) base += warp_sums[blockDim.x / 32 - 1];
    __syncthreads();
  }
}
extern "C" __global__ void fill_i32(int *x, int v, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) x[i] = v;
}
// current_state = hidden_states_flat[top_x]
extern "C" __global__ void gather_rows(bf16 *out, const bf16 *x, const int *pair_token, long long pairs) {
  const long long n = pairs * (kHidden / 8);
  for (long long i = gstart(); i < n; i += gstep()) {
    const long long p = i / (kHidden / 8), c = i % (kHidden / 8);
    reinterpret_cast<uint4 *>(out)[i] = reinterpret_cast<const uint4 *>(x)[(long long)pair_token[p] * (kHidden / 8) + c];
  }
}
// routing_weights_normalized[top_x, idx]
extern "C" __global__ void gather_pair_weights(bf16 *out, const bf16 *rw, const int *pair_token, const int *pair_k, long long pairs) {
  for (long long p = gstart(); p < pairs; p += gstep()) out[p] = rw[(long long)pair_token[p] * kTopK + pair_k[p]];
}
// final_hidden_states.index_add_(0, top_x, weighted_output), expert after expert (bf16 adds)
extern "C" __global__ void index_add_bf16(bf16 *final_hs, const bf16 *weighted, const int *slot_of, long long tokens) {
  const long long n = tokens * kHidden;
  for (long long i = gstart(); i < n; i += gstep()) {
    const long long t = i / kHidden, h = i % kHidden;
    float acc = f32(final_hs[i]);
    for (int e = 0; e < kExperts; ++e) {
      const int p = slot_of[t * kExperts + e];
      if (p >= 0) acc = mkb_ops::round_to<bf16>(acc + f32(weighted[(long long)p * kHidden + h]));
    }
    final_hs[i] = mkb_ops::store<bf16>(acc);
  }
}

// ---- Grouped bf16 GEMM, cuBLAS's per-expert matmul(x, W[e].t()) ---------------------------------------
// C[p, n] = bf16(sum_k A[p, k] * W[e][n, k]) for the pairs p = offset[e] .. offset[e+1] of expert e.
// 128 x 128 tiles, K steps of 64, 3 cp.async stages in XOR-swizzled shared memory, 4 warps of 64 x 64
// (mma.sync m16n8k16, fp32 accumulation). CTAs run expert by expert, n-tile by n-tile, m-tile fastest.
namespace gg {
__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
__device__ __forceinline__ void ldsm4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// byte offset of 16-byte chunk `c` (0..7) of row `r` in a tile of 64 bf16 per row
__device__ __forceinline__ unsigned swz(int r, int c) { return (unsigned)(r * 128 + ((c ^ (r & 7)) << 4)); }
constexpr int kStages = 3, kStageBytes = 32768;
} // namespace gg

extern "C" __global__ void __launch_bounds__(128) grouped_gemm_bf16(const bf16 *__restrict__ A, const bf16 *__restrict__ W,
                                                                    bf16 *__restrict__ C, const int *cnt, const int *offset,
                                                                    int N, int K) {
  using namespace gg;
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ int info[3];
  const int NT = N / 128;
  if (threadIdx.x == 0) {
    int id = blockIdx.x, e = 0, m0 = -1, n0 = 0;
    for (; e < kExperts; ++e) {
      const int mt = (cnt[e] + 127) / 128;
      if (id < mt * NT) { n0 = (id / mt) * 128; m0 = (id % mt) * 128; break; }
      id -= mt * NT;
    }
    info[0] = e; info[1] = m0; info[2] = n0;
  }
  __syncthreads();
  const int e = info[0], m0 = info[1], n0 = info[2];
  if (m0 < 0) return;
  const int rows = min(128, cnt[e] - m0);
  const long long prow0 = (long long)offset[e] + m0;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const unsigned sbase = smem_u32(smem);
  const bf16 *wb = W + ((long long)e * N + n0) * K;
  auto load = [&](int stage, int k0) {
    const unsigned sa = sbase + stage * kStageBytes, sb = sa + 16384;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int c = tid + 128 * i, r = c >> 3, ch = c & 7;
      cp16(sa + swz(r, ch), A + (prow0 + min(r, rows - 1)) * K + k0 + ch * 8);
      cp16(sb + swz(r, ch), wb + (long long)r * K + k0 + ch * 8);
    }
  };
  float acc[4][8][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;
  const int KT = K / 64;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < KT) load(s, s * 64);
    commit();
  }
  const int wm = (warp >> 1) * 64, wn = (warp & 1) * 64;
  for (int kt = 0; kt < KT; ++kt) {
    wait<kStages - 2>();
    __syncthreads();
    if (kt + kStages - 1 < KT) load((kt + kStages - 1) % kStages, (kt + kStages - 1) * 64);
    commit();
    const unsigned sa = sbase + (kt % kStages) * kStageBytes, sb = sa + 16384;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      unsigned a[4][4], b[4][4];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) ldsm4(a[mt], sa + swz(wm + mt * 16 + (lane & 15), ks * 2 + (lane >> 4)));
#pragma unroll
      for (int np = 0; np < 4; ++np)
        ldsm4(b[np], sb + swz(wn + np * 16 + (lane >> 4) * 8 + (lane & 7), ks * 2 + ((lane >> 3) & 1)));
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) mma(acc[mt][nt], a[mt], b[nt >> 1][(nt & 1) * 2], b[nt >> 1][(nt & 1) * 2 + 1]);
    }
  }
  const int g = lane >> 2, q = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = wm + mt * 16 + g + 8 * h;
      if (r >= rows) continue;
      bf16 *c = C + (prow0 + r) * N + n0 + wn + 2 * q;
#pragma unroll
      for (int nt = 0; nt < 8; ++nt)
        *reinterpret_cast<__nv_bfloat162 *>(c + nt * 8) = __floats2bfloat162_rn(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
    }
}

/* mkb:plan
scratch sgo bf16[batch_size * seq_len * shared_intermediate_size]
scratch ssilu bf16[batch_size * seq_len * shared_intermediate_size]
scratch suo bf16[batch_size * seq_len * shared_intermediate_size]
scratch sint bf16[batch_size * seq_len * shared_intermediate_size]
scratch shared_out bf16[batch_size * seq_len * hidden_size]
scratch x32 fp32[batch_size * seq_len * hidden_size]
scratch probs fp32[batch_size * seq_len * num_experts]
scratch rwb fp32[batch_size * seq_len * num_experts]
scratch sel int64[batch_size * seq_len * top_k]
scratch rws fp32[batch_size * seq_len * top_k]
scratch rsum fp32[batch_size * seq_len]
scratch rclamp fp32[batch_size * seq_len]
scratch rwn fp32[batch_size * seq_len * top_k]
scratch rwn16 bf16[batch_size * seq_len * top_k]
scratch final_hs bf16[batch_size * seq_len * hidden_size]
scratch oh int64[batch_size * seq_len * top_k * num_experts]
scratch ecount int64[num_experts]
scratch hit uint8[num_experts]
scratch cnt int32[num_experts]
scratch offset int32[num_experts + 1]
scratch pair_token int32[batch_size * seq_len * top_k]
scratch pair_k int32[batch_size * seq_len * top_k]
scratch slot_of int32[batch_size * seq_len * num_experts]
scratch cur bf16[batch_size * seq_len * top_k * hidden_size]
scratch ego bf16[batch_size * seq_len * top_k * intermediate_size]
scratch esilu bf16[batch_size * seq_len * top_k * intermediate_size]
scratch euo bf16[batch_size * seq_len * top_k * intermediate_size]
scratch eint bf16[batch_size * seq_len * top_k * intermediate_size]
scratch eout bf16[batch_size * seq_len * top_k * hidden_size]
scratch pw bf16[batch_size * seq_len * top_k]
scratch weighted bf16[batch_size * seq_len * top_k * hidden_size]

matmul c(sgo) a(hidden_states) b(shared_gate_proj) m(batch_size * seq_len) n(shared_intermediate_size) k(hidden_size) transpose_b
launch silu_bf16 grid(ceil_div(batch_size * seq_len * shared_intermediate_size, 1024)) block(256)
  args(ssilu, sgo, i64(batch_size * seq_len * shared_intermediate_size))
matmul c(suo) a(hidden_states) b(shared_up_proj) m(batch_size * seq_len) n(shared_intermediate_size) k(hidden_size) transpose_b
launch mul_bf16 grid(ceil_div(batch_size * seq_len * shared_intermediate_size, 1024)) block(256)
  args(sint, ssilu, suo, i64(batch_size * seq_len * shared_intermediate_size))
matmul c(shared_out) a(sint) b(shared_down_proj) m(batch_size * seq_len) n(hidden_size) k(shared_intermediate_size) transpose_b

launch to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x32, hidden_states, i64(batch_size * seq_len * hidden_size))
matmul c(router_logits) a(x32) b(gate_weight) m(batch_size * seq_len) n(num_experts) k(hidden_size) transpose_b
launch softmax64 grid(ceil_div(batch_size * seq_len * 32, 256)) block(256) args(probs, router_logits, i64(batch_size * seq_len))
launch add_cols grid(ceil_div(batch_size * seq_len * num_experts, 1024)) block(256)
  args(rwb, probs, e_score_correction_bias, u32(num_experts), i64(batch_size * seq_len * num_experts))
launch topk8 grid(ceil_div(batch_size * seq_len * 32, 256)) block(256) args(sel, rwb, i64(batch_size * seq_len))
launch gather8 grid(ceil_div(batch_size * seq_len * top_k, 256)) block(256) args(rws, rwb, sel, i64(batch_size * seq_len * top_k))
launch row_sum grid(batch_size * seq_len) block(32) args(rsum, rws, i32(top_k))
launch clamp_min grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(rclamp, rsum, f32(norm_min), i64(batch_size * seq_len))
launch div_rows grid(ceil_div(batch_size * seq_len * top_k, 1024)) block(256) args(rwn, rws, rclamp, u32(top_k), i64(batch_size * seq_len * top_k))
launch to_bf16 grid(ceil_div(batch_size * seq_len * top_k, 1024)) block(256) args(rwn16, rwn, i64(batch_size * seq_len * top_k))
launch fill_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(final_hs, f32(0.0), i64(batch_size * seq_len * hidden_size))
launch one_hot grid(ceil_div(batch_size * seq_len * top_k * num_experts, 256)) block(256) args(oh, sel, i64(batch_size * seq_len * top_k * num_experts))
launch expert_totals grid(num_experts) block(1024) args(ecount, oh, i64(batch_size * seq_len * top_k))
launch greater0 grid(1) block(64) args(hit, ecount)

launch pair_offsets grid(1) block(32) args(ecount, cnt, offset)
launch fill_i32 grid(ceil_div(batch_size * seq_len * num_experts, 256)) block(256) args(slot_of, i32(-1), i64(batch_size * seq_len * num_experts))
launch where_pairs grid(num_experts) block(1024) args(pair_token, pair_k, slot_of, sel, offset, i32(batch_size * seq_len))
launch gather_rows grid(8192) block(256) args(cur, hidden_states, pair_token, i64(batch_size * seq_len * top_k))
launch grouped_gemm_bf16 grid((batch_size * seq_len * top_k / 128 + num_experts) * (intermediate_size / 128)) block(128) shared(98304)
  args(cur, expert_gate_proj, ego, cnt, offset, i32(intermediate_size), i32(hidden_size))
launch silu_bf16 grid(ceil_div(batch_size * seq_len * top_k * intermediate_size, 1024)) block(256)
  args(esilu, ego, i64(batch_size * seq_len * top_k * intermediate_size))
launch grouped_gemm_bf16 grid((batch_size * seq_len * top_k / 128 + num_experts) * (intermediate_size / 128)) block(128) shared(98304)
  args(cur, expert_up_proj, euo, cnt, offset, i32(intermediate_size), i32(hidden_size))
launch mul_bf16 grid(ceil_div(batch_size * seq_len * top_k * intermediate_size, 1024)) block(256)
  args(eint, esilu, euo, i64(batch_size * seq_len * top_k * intermediate_size))
launch grouped_gemm_bf16 grid((batch_size * seq_len * top_k / 128 + num_experts) * (hidden_size / 128)) block(128) shared(98304)
  args(eint, expert_down_proj, eout, cnt, offset, i32(hidden_size), i32(intermediate_size))
launch gather_pair_weights grid(ceil_div(batch_size * seq_len * top_k, 256)) block(256)
  args(pw, rwn16, pair_token, pair_k, i64(batch_size * seq_len * top_k))
launch mul_rows_bf16 grid(ceil_div(batch_size * seq_len * top_k * hidden_size, 1024)) block(256)
  args(weighted, eout, pw, u32(hidden_size), i64(batch_size * seq_len * top_k * hidden_size))
launch index_add_bf16 grid(8192) block(256) args(final_hs, weighted, slot_of, i64(batch_size * seq_len))
launch add_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(output, final_hs, shared_out, i64(batch_size * seq_len * hidden_size))
*/
