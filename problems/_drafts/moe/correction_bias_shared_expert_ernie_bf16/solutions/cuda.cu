// correction_bias_shared_expert_ernie_bf16, fused:
//   1. router logits with fp64 accumulation (the bf16 x fp32 products are exact in fp64), rounded once;
//   2. routing per token (softmax, bias, top-8, clamped weights) and the experts' token counts;
//   3. the (token, expert) pairs grouped by expert (counts -> offsets -> slots);
//   4. one grouped tensor-core GEMM computes gate and up together for every pair (both B tiles share the
//      A tile) and writes h = silu(gate) * up in bf16; the shared expert is one more launch of it;
//   5. the down projections: routed pairs scaled by their weight (bf16 rows), the shared expert in fp32;
//   6. per token, the shared row plus its 8 weighted expert rows, summed in fp32 and rounded once.
// The GEMM engine: 128 x 128 tiles (for gate/up: 64 gate + 64 up columns interleaved by 8), K steps of
// 64, 3 cp.async stages in XOR-swizzled shared memory, 4 warps of 64 x 64 (ldmatrix + mma.sync m16n8k16
// bf16, fp32 accumulation). CTAs run group by group, n-tile by n-tile, m-tile fastest, so a weight tile
// is reused from L2 by all m-tiles of its expert.
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

namespace {

constexpr int kHidden = 8192, kExperts = 64, kTopK = 8, kInter = 3584, kShared = 7168;

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
__device__ __forceinline__ void ldsm4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// byte offset of chunk c (8 bf16) of row r in a tile of 64 bf16 per row
__device__ __forceinline__ unsigned swz(int r, int c) { return (unsigned)(r * 128 + ((c ^ (r & 7)) << 4)); }

constexpr int kStages = 3, kStageBytes = 32768;
enum Epi { kSwiglu = 0, kScaleBf16 = 1, kF32 = 2 };

// Grouped GEMM over `groups` row groups: group g owns rows off[g] .. off[g] + cnt[g] of the output; its
// A rows are A[a_index[row]] (or A[row] when a_index is null); its B rows are B0 + g * b_stride (and, for
// gate/up, B1 + g * b_stride), [n][k] K-major. N is the output width (per source for gate/up).
template <int epi>
__device__ void grouped_gemm(const bf16 *__restrict__ A, const int *__restrict__ a_index, const bf16 *__restrict__ B0,
                             const bf16 *__restrict__ B1, long long b_stride, const int *cnt, const int *off, int groups,
                             int N, int K, void *C, const float *__restrict__ rowscale) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ int info[3];
  __shared__ long long arow[128];
  constexpr int kTileN = epi == kSwiglu ? 64 : 128;  // output columns per tile
  const int NT = N / kTileN;
  if (threadIdx.x == 0) {
    int id = blockIdx.x, g = 0, m0 = -1, n0 = 0;
    for (; g < groups; ++g) {
      const int mt = (cnt[g] + 127) / 128;
      if (id < mt * NT) { n0 = (id / mt) * kTileN; m0 = (id % mt) * 128; break; }
      id -= mt * NT;
    }
    info[0] = g; info[1] = m0; info[2] = n0;
  }
  __syncthreads();
  const int g = info[0], m0 = info[1], n0 = info[2];
  if (m0 < 0) return;
  const int rows = min(128, cnt[g] - m0);
  const long long row0 = (long long)off[g] + m0;
  {
    const int r = threadIdx.x;  // 128 threads, one row each
    const long long p = row0 + min(r, rows - 1);
    arow[r] = (a_index ? (long long)a_index[p] : p) * K;
  }
  __syncthreads();
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const unsigned sbase = smem_u32(smem);
  const bf16 *b0 = B0 + g * b_stride, *b1 = (epi == kSwiglu ? B1 : B0) + g * b_stride;
  auto load = [&](int stage, int k0) {
    const unsigned sa = sbase + stage * kStageBytes, sb = sa + 16384;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int c = tid + 128 * i, r = c >> 3, ch = c & 7;
      cp16(sa + swz(r, ch), A + arow[r] + k0 + ch * 8);
      const bf16 *src;
      if (epi == kSwiglu) src = (((r >> 3) & 1) ? b1 : b0) + (long long)(n0 + (r >> 4) * 8 + (r & 7)) * K;
      else src = b0 + (long long)(n0 + r) * K;
      cp16(sb + swz(r, ch), src + k0 + ch * 8);
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
    cp_commit();
  }
  const int wm = (warp >> 1) * 64, wn = (warp & 1) * 64;
  for (int kt = 0; kt < KT; ++kt) {
    cp_wait<kStages - 2>();
    __syncthreads();
    if (kt + kStages - 1 < KT) load((kt + kStages - 1) % kStages, (kt + kStages - 1) * 64);
    cp_commit();
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
  cp_wait<0>();
  const int gq = lane >> 2, q = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = wm + mt * 16 + gq + 8 * h;
      if (r >= rows) continue;
      const long long crow = row0 + r;
      if (epi == kSwiglu) {
        // logical n-tile 2j is gate columns n0 + wn / 2 + 8 j .., 2j + 1 the same up columns
        bf16 *c = static_cast<bf16 *>(C) + crow * N + n0 + wn / 2 + 2 * q;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float g0 = acc[mt][2 * j][2 * h], g1 = acc[mt][2 * j][2 * h + 1];
          const float u0 = acc[mt][2 * j + 1][2 * h], u1 = acc[mt][2 * j + 1][2 * h + 1];
          *reinterpret_cast<__nv_bfloat162 *>(c + 8 * j) =
              __floats2bfloat162_rn(g0 / (1.0f + __expf(-g0)) * u0, g1 / (1.0f + __expf(-g1)) * u1);
        }
      } else if (epi == kScaleBf16) {
        const float s = rowscale[crow];
        bf16 *c = static_cast<bf16 *>(C) + crow * N + n0 + wn + 2 * q;
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
          *reinterpret_cast<__nv_bfloat162 *>(c + 8 * nt) = __floats2bfloat162_rn(acc[mt][nt][2 * h] * s, acc[mt][nt][2 * h + 1] * s);
      } else {
        float *c = static_cast<float *>(C) + crow * N + n0 + wn + 2 * q;
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) *reinterpret_cast<float2 *>(c + 8 * nt) = make_float2(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
      }
    }
}

} // namespace

// 1. router_logits[t, e] = sum_k float(x[t, k]) * gate_weight[e, k]: 32 tokens x 64 experts per block,
//    256 threads with 2 x 4 outputs each, fp64 accumulation.
extern "C" __global__ void __launch_bounds__(256) router_logits_kernel(const bf16 *__restrict__ x, const float *__restrict__ w,
                                                                       float *__restrict__ logits) {
  __shared__ float xs[32][65], ws[64][65];
  const int t0 = blockIdx.x * 32, tid = threadIdx.x;
  const int tr = tid >> 4, ec = tid & 15;  // tokens tr, tr + 16; experts ec + 16 j
  double acc[2][4] = {};
  for (int k0 = 0; k0 < kHidden; k0 += 64) {
    for (int i = tid; i < 32 * 64; i += 256) xs[i >> 6][i & 63] = __bfloat162float(x[(long long)(t0 + (i >> 6)) * kHidden + k0 + (i & 63)]);
    for (int i = tid; i < 64 * 64; i += 256) ws[i >> 6][i & 63] = w[(long long)(i >> 6) * kHidden + k0 + (i & 63)];
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < 64; ++k) {
      const double a0 = xs[tr][k], a1 = xs[tr + 16][k];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const double b = ws[ec + 16 * j][k];
        acc[0][j] = fma(a0, b, acc[0][j]);
        acc[1][j] = fma(a1, b, acc[1][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) logits[(long long)(t0 + tr + 16 * i) * kExperts + ec + 16 * j] = (float)acc[i][j];
}

// 2. routing, a warp per token: softmax, + bias, top-8, weights = biased / clamp(sum, norm_min) (bf16).
extern "C" __global__ void route_kernel(const float *__restrict__ logits, const float *__restrict__ bias, float norm_min,
                                        int *__restrict__ sel, float *__restrict__ wsel, int *__restrict__ count, int tokens) {
  const int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (t >= tokens) return;
  const float x0 = logits[(long long)t * kExperts + lane], x1 = logits[(long long)t * kExperts + lane + 32];
  float m = fmaxf(x0, x1);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  const float e0 = expf(x0 - m), e1 = expf(x1 - m);
  float s = e0 + e1;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  float v[2] = {e0 / s + bias[lane], e1 / s + bias[lane + 32]};
  int my_e = 0;
  float my_v = 0.0f, total = 0.0f;
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
    if (lane == k) { my_e = where; my_v = best; }
    total += best;
  }
  if (lane < kTopK) {
    sel[t * kTopK + lane] = my_e;
    wsel[t * kTopK + lane] = __bfloat162float(__float2bfloat16_rn(my_v / fmaxf(total, norm_min)));
    atomicAdd(&count[my_e], 1);
  }
}

// 3a. offsets of each expert's pairs; off[64] = 65536 (the shared expert's rows use off2 = {0}, cnt2).
extern "C" __global__ void offsets_kernel(const int *count, int *off, int *cnt2, int tokens) {
  if (threadIdx.x != 0) return;
  int o = 0;
  for (int e = 0; e < kExperts; ++e) {
    off[e] = o;
    o += count[e];
  }
  off[kExperts] = o;
  cnt2[0] = tokens;  // shared expert: one group of every token
  cnt2[1] = 0;       // its offset
}
// 3b. every (token, slot) gets a row in its expert's range (order inside an expert is immaterial)
extern "C" __global__ void fill_pairs(const int *sel, const float *wsel, const int *off, int *cursor, int *pair_token,
                                      float *pair_w, int *pair_of, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int e = sel[i];
  const int p = off[e] + atomicAdd(&cursor[e], 1);
  pair_token[p] = i / kTopK;
  pair_w[p] = wsel[i];
  pair_of[i] = p;
}

// 4. h = silu(x @ Wg.T) * (x @ Wu.T) for routed pairs (64 groups) or the shared expert (1 group)
extern "C" __global__ void __launch_bounds__(128) gate_up_routed(const bf16 *x, const int *pair_token, const bf16 *wg,
                                                                 const bf16 *wu, const int *count, const int *off, bf16 *h) {
  grouped_gemm<kSwiglu>(x, pair_token, wg, wu, (long long)kInter * kHidden, count, off, kExperts, kInter, kHidden, h, nullptr);
}
extern "C" __global__ void __launch_bounds__(128) gate_up_shared(const bf16 *x, const bf16 *wg, const bf16 *wu, const int *cnt2,
                                                                 bf16 *h) {
  grouped_gemm<kSwiglu>(x, nullptr, wg, wu, 0, cnt2, cnt2 + 1, 1, kShared, kHidden, h, nullptr);
}
// 5. y = h @ Wd.T: routed rows scaled by their weight (bf16), shared rows in fp32
extern "C" __global__ void __launch_bounds__(128) down_routed(const bf16 *h, const bf16 *wd, const int *count, const int *off,
                                                              const float *pair_w, bf16 *y) {
  grouped_gemm<kScaleBf16>(h, nullptr, wd, nullptr, (long long)kHidden * kInter, count, off, kExperts, kHidden, kInter, y, pair_w);
}
extern "C" __global__ void __launch_bounds__(128) down_shared(const bf16 *h, const bf16 *wd, const int *cnt2, float *y) {
  grouped_gemm<kF32>(h, nullptr, wd, nullptr, 0, cnt2, cnt2 + 1, 1, kHidden, kShared, y, nullptr);
}

// 6. output[t] = bf16(shared[t] + sum_k y[pair_of[t, k]]), 8 columns per thread
extern "C" __global__ void combine_kernel(const float *__restrict__ shared, const bf16 *__restrict__ y, const int *__restrict__ pair_of,
                                          bf16 *__restrict__ out, int tokens) {
  const long long n = (long long)tokens * (kHidden / 8);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / (kHidden / 8), c = (i % (kHidden / 8)) * 8;
    float s[8];
    const float4 s0 = *reinterpret_cast<const float4 *>(shared + t * kHidden + c);
    const float4 s1 = *reinterpret_cast<const float4 *>(shared + t * kHidden + c + 4);
    s[0] = s0.x; s[1] = s0.y; s[2] = s0.z; s[3] = s0.w; s[4] = s1.x; s[5] = s1.y; s[6] = s1.z; s[7] = s1.w;
#pragma unroll
    for (int k = 0; k < kTopK; ++k) {
      const long long p = pair_of[t * kTopK + k];
      const uint4 v = *reinterpret_cast<const uint4 *>(y + p * kHidden + c);
      const __nv_bfloat162 *b = reinterpret_cast<const __nv_bfloat162 *>(&v);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float2 f = __bfloat1622float2(b[j]);
        s[2 * j] += f.x;
        s[2 * j + 1] += f.y;
      }
    }
    uint4 o;
    __nv_bfloat162 *ob = reinterpret_cast<__nv_bfloat162 *>(&o);
#pragma unroll
    for (int j = 0; j < 4; ++j) ob[j] = __floats2bfloat162_rn(s[2 * j], s[2 * j + 1]);
    *reinterpret_cast<uint4 *>(out + t * kHidden + c) = o;
  }
}

/* mkb:plan
scratch sel int32[batch_size * seq_len * top_k]
scratch wsel fp32[batch_size * seq_len * top_k]
scratch count int32[num_experts] zeroed
scratch cursor int32[num_experts] zeroed
scratch off int32[num_experts + 1]
scratch cnt2 int32[2]
scratch pair_token int32[batch_size * seq_len * top_k]
scratch pair_w fp32[batch_size * seq_len * top_k]
scratch pair_of int32[batch_size * seq_len * top_k]
scratch h bf16[batch_size * seq_len * top_k * intermediate_size]
scratch hs bf16[batch_size * seq_len * shared_intermediate_size]
scratch y bf16[batch_size * seq_len * top_k * hidden_size]
scratch ys fp32[batch_size * seq_len * hidden_size]
launch router_logits_kernel grid(batch_size * seq_len / 32) block(256) args(hidden_states, gate_weight, router_logits)
launch route_kernel grid(batch_size * seq_len * 32 / 256) block(256)
  args(router_logits, e_score_correction_bias, f32(norm_min), sel, wsel, count, i32(batch_size * seq_len))
launch offsets_kernel grid(1) block(32) args(count, off, cnt2, i32(batch_size * seq_len))
launch fill_pairs grid(batch_size * seq_len * top_k / 256) block(256)
  args(sel, wsel, off, cursor, pair_token, pair_w, pair_of, i32(batch_size * seq_len * top_k))
launch gate_up_routed grid((batch_size * seq_len * top_k / 128 + num_experts) * (intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, pair_token, expert_gate_proj, expert_up_proj, count, off, h)
launch gate_up_shared grid(batch_size * seq_len / 128 * (shared_intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, shared_gate_proj, shared_up_proj, cnt2, hs)
launch down_routed grid((batch_size * seq_len * top_k / 128 + num_experts) * (hidden_size / 128)) block(128) shared(98304)
  args(h, expert_down_proj, count, off, pair_w, y)
launch down_shared grid(batch_size * seq_len / 128 * (hidden_size / 128)) block(128) shared(98304)
  args(hs, shared_down_proj, cnt2, ys)
launch combine_kernel grid(8192) block(256) args(ys, y, pair_of, output, i32(batch_size * seq_len))
*/
