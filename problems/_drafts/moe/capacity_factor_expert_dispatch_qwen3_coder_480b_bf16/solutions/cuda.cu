// capacity_factor_expert_dispatch_qwen3_coder_480b_bf16, fused: only admitted rows are computed (about
// 58k of the 81920 capacity slots the reference multiplies), never the zero padding.
//   1. admission: a block per expert lists the first 512 tokens (ascending) that selected it, with their
//      weights; every (token, slot) learns its row or -1 (dropped);
//   2. one grouped tensor-core GEMM computes gate and up together for the admitted rows (the two B tiles
//      share the A tile, gathered straight from hidden_states) and writes h = silu(gate) * up in bf16;
//   3. the down projection of the admitted rows, scaled by their routing weight (bf16 rows);
//   4. per token, its admitted rows summed in fp32 and rounded once.
// The weights are [expert, in, out] (x @ W), so B tiles are k-rows of n-contiguous data: ldmatrix.trans.
// GEMM engine: 128 x 128 tiles (gate/up: 64 gate + 64 up columns interleaved by 8), K steps of 64, 3
// cp.async stages in XOR-swizzled shared memory, 4 warps of 64 x 64 (mma.sync m16n8k16 bf16, fp32
// accumulation); CTAs run expert by expert, n-tile by n-tile, m-tile fastest.
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

namespace {

constexpr int kHidden = 6144, kInter = 2560, kExperts = 160, kTopK = 8;

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
__device__ __forceinline__ void ldsm4t(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// A tiles: 128 rows x 64 bf16 (128 B); chunk c of row r
__device__ __forceinline__ unsigned swz_a(int r, int c) { return (unsigned)(r * 128 + ((c ^ (r & 7)) << 4)); }
// B tiles: 64 k-rows x 128 bf16 (256 B); chunk c (0..15) of k-row r
__device__ __forceinline__ unsigned swz_b(int r, int c) { return (unsigned)(r * 256 + ((c ^ (r & 7)) << 4)); }

constexpr int kStages = 3, kStageBytes = 32768;

// Grouped GEMM over the 160 experts: expert e owns rows e * cap .. e * cap + count[e]; A row of row p is
// A[a_index[p]] (or A[p]); B = B0 + e * K * N ([K][N], N contiguous), for gate/up also B1.
template <bool swiglu>
__device__ void grouped_gemm(const bf16 *__restrict__ A, const int *__restrict__ a_index, const bf16 *__restrict__ B0,
                             const bf16 *__restrict__ B1, const int *count, int cap, int N, int K, bf16 *__restrict__ C,
                             const float *__restrict__ rowscale) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ int info[3];
  __shared__ long long arow[128];
  constexpr int kTileN = swiglu ? 64 : 128;
  const int NT = N / kTileN;
  if (threadIdx.x == 0) {
    int id = blockIdx.x, e = 0, m0 = -1, n0 = 0;
    for (; e < kExperts; ++e) {
      const int mt = (count[e] + 127) / 128;
      if (id < mt * NT) { n0 = (id / mt) * kTileN; m0 = (id % mt) * 128; break; }
      id -= mt * NT;
    }
    info[0] = e; info[1] = m0; info[2] = n0;
  }
  __syncthreads();
  const int e = info[0], m0 = info[1], n0 = info[2];
  if (m0 < 0) return;
  const int rows = min(128, count[e] - m0);
  const long long row0 = (long long)e * cap + m0;
  {
    const long long p = row0 + min((int)threadIdx.x, rows - 1);
    arow[threadIdx.x] = (a_index ? (long long)a_index[p] : p) * K;
  }
  __syncthreads();
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const unsigned sbase = smem_u32(smem);
  const bf16 *b0 = B0 + (long long)e * K * N, *b1 = (swiglu ? B1 : B0) + (long long)e * K * N;
  auto load = [&](int stage, int k0) {
    const unsigned sa = sbase + stage * kStageBytes, sb = sa + 16384;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int c = tid + 128 * i;
      const int r = c >> 3, ch = c & 7;
      cp16(sa + swz_a(r, ch), A + arow[r] + k0 + ch * 8);
      const int kr = c >> 4, bc = c & 15;
      const bf16 *src = swiglu ? ((bc & 1) ? b1 : b0) + (long long)(k0 + kr) * N + n0 + (bc >> 1) * 8
                               : b0 + (long long)(k0 + kr) * N + n0 + bc * 8;
      cp16(sb + swz_b(kr, bc), src);
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
  const int mi = lane >> 3;
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
      for (int mt = 0; mt < 4; ++mt) ldsm4(a[mt], sa + swz_a(wm + mt * 16 + (lane & 15), ks * 2 + (lane >> 4)));
#pragma unroll
      for (int np = 0; np < 4; ++np)
        ldsm4t(b[np], sb + swz_b(ks * 16 + (mi & 1) * 8 + (lane & 7), wn / 8 + np * 2 + (mi >> 1)));
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
      if (swiglu) {
        bf16 *c = C + crow * N + n0 + wn / 2 + 2 * q;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float g0 = acc[mt][2 * j][2 * h], g1 = acc[mt][2 * j][2 * h + 1];
          const float u0 = acc[mt][2 * j + 1][2 * h], u1 = acc[mt][2 * j + 1][2 * h + 1];
          *reinterpret_cast<__nv_bfloat162 *>(c + 8 * j) =
              __floats2bfloat162_rn(g0 / (1.0f + __expf(-g0)) * u0, g1 / (1.0f + __expf(-g1)) * u1);
        }
      } else {
        const float s = rowscale[crow];
        bf16 *c = C + crow * N + n0 + wn + 2 * q;
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
          *reinterpret_cast<__nv_bfloat162 *>(c + 8 * nt) = __floats2bfloat162_rn(acc[mt][nt][2 * h] * s, acc[mt][nt][2 * h + 1] * s);
      }
    }
}

} // namespace

// 1. admission: a block of 1024 per expert, tokens in ascending order; the first `cap` are admitted.
extern "C" __global__ void admit_kernel(const long long *__restrict__ sel, const bf16 *__restrict__ routing_weights,
                                        int *__restrict__ count, int *__restrict__ adm_tok, float *__restrict__ adm_w,
                                        int *__restrict__ slot, int tokens, int cap) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = blockIdx.x;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int t0 = 0; t0 < tokens; t0 += blockDim.x) {
    const int t = t0 + threadIdx.x;
    int hit = 0, kk = 0;
    if (t < tokens) {
      const longlong2 *s2 = reinterpret_cast<const longlong2 *>(sel + (long long)t * kTopK);
      const longlong2 a0 = s2[0], a1 = s2[1], a2 = s2[2], a3 = s2[3];
      const long long v[8] = {a0.x, a0.y, a1.x, a1.y, a2.x, a2.y, a3.x, a3.y};
#pragma unroll
      for (int k = 0; k < kTopK; ++k)
        if (v[k] == e) { hit = 1; kk = k; }
    }
    int incl = hit;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int n = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += n;
    }
    if (lane == 31) warp_sums[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      int ws = warp_sums[lane];
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const int n = __shfl_up_sync(0xffffffffu, ws, o);
        if (lane >= o) ws += n;
      }
      warp_sums[lane] = ws;
    }
    __syncthreads();
    const int rank = base + (warp > 0 ? warp_sums[warp - 1] : 0) + incl - hit;
    if (hit) {
      if (rank < cap) {
        adm_tok[e * cap + rank] = t;
        adm_w[e * cap + rank] = __bfloat162float(routing_weights[(long long)t * kTopK + kk]);
        slot[t * kTopK + kk] = e * cap + rank;
      } else {
        slot[t * kTopK + kk] = -1;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) base += warp_sums[31];
    __syncthreads();
  }
  if (threadIdx.x == 0) count[e] = min(base, cap);
}

// 2. h = silu(x @ Wg) * (x @ Wu) for the admitted rows
extern "C" __global__ void __launch_bounds__(128) gate_up_kernel(const bf16 *x, const int *adm_tok, const bf16 *wg, const bf16 *wu,
                                                                 const int *count, bf16 *h, int cap) {
  grouped_gemm<true>(x, adm_tok, wg, wu, count, cap, kInter, kHidden, h, nullptr);
}
// 3. y = (h @ Wd) * weight, bf16 rows
extern "C" __global__ void __launch_bounds__(128) down_kernel(const bf16 *h, const bf16 *wd, const int *count, const float *adm_w,
                                                              bf16 *y, int cap) {
  grouped_gemm<false>(h, nullptr, wd, nullptr, count, cap, kHidden, kInter, y, adm_w);
}

// 4. output[t] = bf16(sum over the token's admitted slots of y), 8 columns per thread
extern "C" __global__ void combine_kernel(const bf16 *__restrict__ y, const int *__restrict__ slot, bf16 *__restrict__ out, int tokens) {
  const long long n = (long long)tokens * (kHidden / 8);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / (kHidden / 8), c = (i % (kHidden / 8)) * 8;
    float s[8] = {};
#pragma unroll
    for (int k = 0; k < kTopK; ++k) {
      const int p = slot[t * kTopK + k];
      if (p < 0) continue;
      const uint4 v = *reinterpret_cast<const uint4 *>(y + (long long)p * kHidden + c);
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
scratch count int32[num_experts]
scratch adm_tok int32[num_experts * capacity]
scratch adm_w fp32[num_experts * capacity]
scratch slot int32[num_tokens * num_experts_per_tok]
scratch h bf16[num_experts * capacity * moe_intermediate_size]
scratch y bf16[num_experts * capacity * hidden_size]
launch admit_kernel grid(num_experts) block(1024)
  args(selected_experts, routing_weights, count, adm_tok, adm_w, slot, i32(num_tokens), i32(capacity))
launch gate_up_kernel grid(num_experts * capacity / 128 * (moe_intermediate_size / 64)) block(128) shared(98304)
  args(hidden_states, adm_tok, expert_gate_weights, expert_up_weights, count, h, i32(capacity))
launch down_kernel grid(num_experts * capacity / 128 * (hidden_size / 128)) block(128) shared(98304)
  args(h, expert_down_weights, count, adm_w, y, i32(capacity))
launch combine_kernel grid(8192) block(256) args(y, slot, output, i32(num_tokens))
*/
