// qkvo_attention_block_nova_nvfp4 on Hopper, which has no FP4 tensor cores:
//   1. max |hidden_states|, then hidden_states quantized once with the reference's fp32 recipe into bf16
//      e2m1 * scale (exact; the reference quantizes it three times, identically); the four weights' codes
//      expanded likewise;
//   2. one GEMM for q, k and v (10240 output columns; each 128-column tile lies in one of them) whose
//      epilogue multiplies by the two global decode scales and rounds to bf16 ([tokens, features]);
//   3. per (batch, head) the attention core in eager's bf16 arithmetic: RoPE with each product and the sum
//      rounded to bf16, scores on the tensor cores rounded to bf16, * scaling rounded to bf16, the causal
//      -inf, the softmax in fp32 rounded to bf16 (kept in registers as the A operand of P V), P V rounded
//      to bf16, stored [tokens, heads * 128] with max |.| by atomicMax;
//   4. that quantized with the fp32 recipe, the o GEMM rounded to bf16.
// GEMMs: bf16 mma.sync m16n8k16, 128 x 128 tiles, each 64-wide K step's partial added in fp32.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

// ---- NVFP4 (reference.md): e2m1 codes, two per byte (element 2j in the low nibble), one e4m3 scale
// per 16 consecutive elements of a row, one fp32 global decode scale per tensor. The quantizer's
// arithmetic is fp32 with the rounding points of the reference on CUDA. ----
namespace nvfp4 {
__device__ const float kE2M1[16] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
                                    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
constexpr float kFloatMax = 3.40282346638528859812e38f;
// The per-tensor scales from the tensor's largest magnitude: encode = min(fp32(2688 / amax), FLT_MAX)
// (a true division), 1 where that is 0; decode = fp32(1 / encode).
struct global_scales {
  float encode, decode;
};
__device__ __forceinline__ global_scales global_from_amax(float amax) {
  float ge = fminf(__fdiv_rn(2688.0f, amax), kFloatMax);
  if (ge == 0.0f) ge = 1.0f;
  return {ge, __fdiv_rn(1.0f, ge)};
}
// The e4m3 scale byte of a 16-element block: fp32(fp32(amax_b * fp32(1/6)) * encode), clamped to
// [-448, 448], rounded to nearest even.
__device__ __forceinline__ unsigned char block_scale(float block_amax, float global_encode) {
  const float inv6 = __fdiv_rn(1.0f, 6.0f);
  float s = __fmul_rn(__fmul_rn(block_amax, inv6), global_encode);
  s = fminf(fmaxf(s, -448.0f), 448.0f);
  return (unsigned char)__nv_cvt_float_to_fp8(s, __NV_SATFINITE, __NV_E4M3);
}
__device__ __forceinline__ float e4m3_value(unsigned char byte) {
  __nv_fp8_e4m3 v;
  v.__x = byte;
  return float(v);
}
// The block's encode factor: min(fp32(1 / fp32(scale * decode)), FLT_MAX).
__device__ __forceinline__ float block_encode(float scale, float global_decode) {
  return fminf(__fdiv_rn(1.0f, __fmul_rn(scale, global_decode)), kFloatMax);
}
// The 4-bit code of x * encode after the clamp to [-6, 6]: the reference's bands (ties to even).
__device__ __forceinline__ unsigned fp4_code(float scaled) {
  const float x = fminf(fmaxf(scaled, -6.0f), 6.0f), a = fabsf(x);
  unsigned m;
  if (a <= 0.25f) m = 0;
  else if (a < 0.75f) m = 1;
  else if (a <= 1.25f) m = 2;
  else if (a < 1.75f) m = 3;
  else if (a <= 2.5f) m = 4;
  else if (a < 3.5f) m = 5;
  else if (a <= 5.0f) m = 6;
  else m = 7;
  return (x < 0.0f ? 8u : 0u) | m;
}
} // namespace nvfp4

// ---- max |x| of a bf16 tensor (into a zeroed float: non-negative floats order as their bits) and the
// quantizer applied to 16-element blocks of it. ----
extern "C" __global__ void __launch_bounds__(256) amax_bf16(float *amax, const __nv_bfloat16 *__restrict__ x, long long n) {
  float m = 0.0f;
  const long long vectors = n / 8;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += (long long)gridDim.x * blockDim.x) {
    union {
      uint4 u;
      __nv_bfloat162 h[4];
    } p;
    p.u = reinterpret_cast<const uint4 *>(x)[v];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 f = __bfloat1622float2(p.h[j]);
      m = fmaxf(m, fmaxf(fabsf(f.x), fabsf(f.y)));
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  __shared__ float warp_max[8];
  if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) m = fmaxf(m, warp_max[w]);
    atomicMax(reinterpret_cast<unsigned *>(amax), __float_as_uint(m));
  }
}
// The 16 values of block b (bf16 in, exact in fp32), their scale byte and their 16 codes.
struct block_codes {
  unsigned char scale;
  unsigned char code[16];
};
__device__ __forceinline__ block_codes quantize16(const float (&v)[16], const nvfp4::global_scales &g) {
  float amax = 0.0f;
#pragma unroll
  for (int j = 0; j < 16; ++j) amax = fmaxf(amax, fabsf(v[j]));
  block_codes q;
  q.scale = nvfp4::block_scale(amax, g.encode);
  const float enc = nvfp4::block_encode(nvfp4::e4m3_value(q.scale), g.decode);
#pragma unroll
  for (int j = 0; j < 16; ++j) q.code[j] = (unsigned char)nvfp4::fp4_code(__fmul_rn(v[j], enc));
  return q;
}
__device__ __forceinline__ void load16_bf16(const __nv_bfloat16 *p, float (&v)[16]) {
  union {
    uint4 u[2];
    __nv_bfloat162 h[8];
  } t;
  t.u[0] = reinterpret_cast<const uint4 *>(p)[0];
  t.u[1] = reinterpret_cast<const uint4 *>(p)[1];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const float2 f = __bfloat1622float2(t.h[j]);
    v[2 * j] = f.x;
    v[2 * j + 1] = f.y;
  }
}

// ---- The solution's quantizer: max |x| first (amax_bf16), then each 16-element block's codes with the
// reference's fp32 recipe, written as bf16 e2m1 * scale (exact) for the tensor cores; the global decode
// scale is applied in the GEMM epilogue. ----
extern "C" __global__ void __launch_bounds__(256) quantize_expand(__nv_bfloat16 *__restrict__ dst, const __nv_bfloat16 *__restrict__ x,
                                                                 const float *__restrict__ amax, long long blocks) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const nvfp4::global_scales g = nvfp4::global_from_amax(amax[0]);
  float v[16];
  load16_bf16(x + 16 * b, v);
  const block_codes q = quantize16(v, g);
  const float s = nvfp4::e4m3_value(q.scale);
  union {
    uint4 u[2];
    __nv_bfloat162 h[8];
  } o;
#pragma unroll
  for (int j = 0; j < 8; ++j) o.h[j] = __floats2bfloat162_rn(nvfp4::kE2M1[q.code[2 * j]] * s, nvfp4::kE2M1[q.code[2 * j + 1]] * s);
  reinterpret_cast<uint4 *>(dst)[2 * b] = o.u[0];
  reinterpret_cast<uint4 *>(dst)[2 * b + 1] = o.u[1];
}
// A stored NVFP4 tensor expanded the same way: dst[16 b + j] = bf16(e2m1(code) * e4m3(scale[b])).
extern "C" __global__ void __launch_bounds__(256) expand_nvfp4(__nv_bfloat16 *__restrict__ dst, const unsigned char *__restrict__ codes,
                                                              const unsigned char *__restrict__ scales, long long blocks) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const uint2 packed = reinterpret_cast<const uint2 *>(codes)[b];
  const float s = nvfp4::e4m3_value(scales[b]);
  union {
    uint4 u[2];
    __nv_bfloat162 h[8];
  } o;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const unsigned byte = ((j < 4 ? packed.x : packed.y) >> (8 * (j & 3))) & 0xffu;
    o.h[j] = __floats2bfloat162_rn(nvfp4::kE2M1[byte & 15u] * s, nvfp4::kE2M1[byte >> 4] * s);
  }
  reinterpret_cast<uint4 *>(dst)[2 * b] = o.u[0];
  reinterpret_cast<uint4 *>(dst)[2 * b + 1] = o.u[1];
}

// ---- The tensor-core GEMM engine: C[m, n] = sum_k A[m, k] * B[n, k], A and B bf16 row-major (K
// contiguous: B is an nn.Linear weight), fp32 accumulation. A CTA of 256 threads computes a 128 x 128
// tile in K steps of 64 through 3 cp.async stages of XOR-swizzled shared memory; 8 warps of 64 x 32
// (ldmatrix + mma.sync m16n8k16). With kPromote the tensor cores accumulate one 64-wide K step at a
// time and each step's partial sum is added to the total with an fp32 add (round to nearest): the
// tensor cores' own accumulation truncates, which over a long K drifts by more than an fp32 SGEMM. ----
namespace gemm {
constexpr int kBM = 128, kBN = 128, kBK = 64, kStages = 3, kThreads = 256;
constexpr int kTileBytes = kBM * kBK * 2, kStageBytes = 2 * kTileBytes;  // 3 stages: 96 KiB of shared memory

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
__device__ __forceinline__ void ldsm4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Byte offset of 16-byte chunk c (8 bf16) of row r in a tile of 64 bf16 per row.
__device__ __forceinline__ unsigned swz(int r, int c) { return (unsigned)(r * 128 + ((c ^ (r & 7)) << 4)); }

// The tile of blockIdx.x: groups of 8 row tiles sweep the column tiles, so that concurrent CTAs share
// their A rows and B columns in L2.
__device__ __forceinline__ void tile_of(int tiles_m, int tiles_n, int &m0, int &n0) {
  const int id = blockIdx.x, per_group = 8 * tiles_n, group = id / per_group;
  const int first = group * 8, rows = min(8, tiles_m - first), in = id % per_group;
  m0 = (first + in % rows) * kBM;
  n0 = (in / rows) * kBN;
}

// Computes the tile at rows m0.. of A and hands the warp's fragment to epi(frag, row0, col0, gq, q)
// (below). brow(r) points at the B row (K elements) that gives tile column r (0..127).
template <bool kPromote, class BRow, class Epi>
__device__ __forceinline__ void tile(const __nv_bfloat16 *__restrict__ A, int K, int m0, BRow brow, Epi epi) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const unsigned base = smem_u32(smem);
  const __nv_bfloat16 *arow[4], *bsrc[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = (tid + kThreads * i) >> 3;
    arow[i] = A + (long long)(m0 + r) * K;
    bsrc[i] = brow(r);
  }
  auto load = [&](int stage, int k0) {
    const unsigned sa = base + stage * kStageBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = tid + kThreads * i, r = c >> 3, ch = c & 7;
      cp16(sa + swz(r, ch), arow[i] + k0 + ch * 8);
      cp16(sb + swz(r, ch), bsrc[i] + k0 + ch * 8);
    }
  };
  float acc[4][4][4], tot[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = tot[i][j][v] = 0.0f;
  const int KT = K / kBK;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < KT) load(s, s * kBK);
    cp_commit();
  }
  const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
  for (int kt = 0; kt < KT; ++kt) {
    cp_wait<kStages - 2>();
    __syncthreads();
    if (kt + kStages - 1 < KT) load((kt + kStages - 1) % kStages, (kt + kStages - 1) * kBK);
    cp_commit();
    const unsigned sa = base + (kt % kStages) * kStageBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      unsigned a[4][4], b[2][4];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) ldsm4(a[mt], sa + swz(wm + mt * 16 + (lane & 15), ks * 2 + (lane >> 4)));
#pragma unroll
      for (int np = 0; np < 2; ++np)
        ldsm4(b[np], sb + swz(wn + np * 16 + (lane >> 4) * 8 + (lane & 7), ks * 2 + ((lane >> 3) & 1)));
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) mma16816(acc[mt][nt], a[mt], b[nt >> 1][(nt & 1) * 2], b[nt >> 1][(nt & 1) * 2 + 1]);
    }
    if (kPromote) {
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
          for (int v = 0; v < 4; ++v) {
            tot[i][j][v] = __fadd_rn(tot[i][j][v], acc[i][j][v]);
            acc[i][j][v] = 0.0f;
          }
    }
  }
  cp_wait<0>();
  // The warp's 64 x 32 results: frag[mt][nt][2 h + e] is row wm + 16 mt + (lane >> 2) + 8 h, tile column
  // wn + 8 nt + 2 (lane & 3) + e.
  if (kPromote) epi(tot, m0 + wm, wn, lane >> 2, lane & 3);
  else epi(acc, m0 + wm, wn, lane >> 2, lane & 3);
}
} // namespace gemm

namespace {
constexpr int kBatch = 64, kSeq = 128, kHidden = 8192, kHeads = 64, kKvHeads = 8, kDim = 128, kKv = kKvHeads * kDim;
constexpr int kTokens = kBatch * kSeq;
constexpr float kScaling = 0.08838834764831845f;  // HEAD_DIM ** -0.5 as PyTorch's fp32 opmath scalar
__device__ __forceinline__ float bf16r(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&h);
}
// Byte offset of 16-byte chunk c of row r in a [128][128] bf16 tile (16 chunks a row), XOR-swizzled.
__device__ __forceinline__ unsigned swz16(int r, int c) { return (unsigned)(r * 256 + ((c ^ (r & 7)) << 4)); }
} // namespace

extern "C" __global__ void __launch_bounds__(256) qkv_gemm(__nv_bfloat16 *__restrict__ q, __nv_bfloat16 *__restrict__ k,
                                                          __nv_bfloat16 *__restrict__ v, const __nv_bfloat16 *__restrict__ xa,
                                                          const __nv_bfloat16 *__restrict__ qw, const __nv_bfloat16 *__restrict__ kw,
                                                          const __nv_bfloat16 *__restrict__ vw, const float *__restrict__ x_amax,
                                                          const float *__restrict__ gd_q, const float *__restrict__ gd_k,
                                                          const float *__restrict__ gd_v) {
  int m0, n0;
  gemm::tile_of(kTokens / gemm::kBM, (kHidden + 2 * kKv) / gemm::kBN, m0, n0);
  const int part = n0 < kHidden ? 0 : (n0 < kHidden + kKv ? 1 : 2);
  const int base = part == 0 ? 0 : (part == 1 ? kHidden : kHidden + kKv), width = part == 0 ? kHidden : kKv;
  const __nv_bfloat16 *w = part == 0 ? qw : (part == 1 ? kw : vw);
  __nv_bfloat16 *dst = part == 0 ? q : (part == 1 ? k : v);
  const float g = __fmul_rn(nvfp4::global_from_amax(x_amax[0]).decode, (part == 0 ? gd_q : (part == 1 ? gd_k : gd_v))[0]);
  const int c0 = n0 - base;
  gemm::tile<true>(xa, kHidden, m0, [&](int r) { return w + (long long)(c0 + r) * kHidden; },
                   [&](const float (&f)[4][4][4], int row0, int col0, int gq, int qq) {
#pragma unroll
                     for (int mt = 0; mt < 4; ++mt)
#pragma unroll
                       for (int h = 0; h < 2; ++h) {
                         __nv_bfloat16 *o = dst + (long long)(row0 + mt * 16 + gq + 8 * h) * width + c0 + col0 + 2 * qq;
#pragma unroll
                         for (int nt = 0; nt < 4; ++nt)
                           *reinterpret_cast<__nv_bfloat162 *>(o + 8 * nt) = __floats2bfloat162_rn(f[mt][nt][2 * h] * g, f[mt][nt][2 * h + 1] * g);
                       }
                   });
}

// 8 rotated bf16 values of row `row` (a [.., heads * 128] projection row), chunk c (elements 8c .. 8c+7),
// stored into a swizzled [128][128] tile: x * cos + cat(-x2, x1) * sin, each product and the sum rounded.
__device__ __forceinline__ void rope_chunk(unsigned char *tile, int s, int c, const __nv_bfloat16 *row, const __nv_bfloat16 *cs,
                                           const __nv_bfloat16 *sn) {
  union u8 {
    uint4 u;
    __nv_bfloat16 h[8];
  } x, y, cv, sv, out;
  x.u = *reinterpret_cast<const uint4 *>(row + 8 * c);
  y.u = *reinterpret_cast<const uint4 *>(row + 8 * (c ^ 8));  // the other half: d -/+ 64
  cv.u = *reinterpret_cast<const uint4 *>(cs + 8 * c);
  sv.u = *reinterpret_cast<const uint4 *>(sn + 8 * c);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float rot = c < 8 ? -__bfloat162float(y.h[e]) : __bfloat162float(y.h[e]);
    const float a = bf16r(__bfloat162float(x.h[e]) * __bfloat162float(cv.h[e]));
    const float b = bf16r(rot * __bfloat162float(sv.h[e]));
    out.h[e] = __float2bfloat16_rn(a + b);
  }
  *reinterpret_cast<uint4 *>(tile + swz16(s, c)) = out.u;
}

// The attention core of one (batch, head): 256 threads, 8 warps of 16 query rows, 96 KiB of shared memory.
extern "C" __global__ void __launch_bounds__(256) attention(__nv_bfloat16 *__restrict__ out, float *out_amax,
                                                           const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
                                                           const __nv_bfloat16 *__restrict__ v, const __nv_bfloat16 *__restrict__ cosb,
                                                           const __nv_bfloat16 *__restrict__ sinb) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char *qs = smem, *ks = smem + kSeq * kDim * 2, *vt = smem + 2 * kSeq * kDim * 2;
  const int b = blockIdx.x / kHeads, h = blockIdx.x % kHeads, kvh = h / (kHeads / kKvHeads);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  for (int it = tid; it < kSeq * (kDim / 8); it += 256) {
    const int s = it / (kDim / 8), c = it % (kDim / 8);
    const long long tok = (long long)b * kSeq + s;
    rope_chunk(qs, s, c, q + tok * kHidden + h * kDim, cosb + tok * kDim, sinb + tok * kDim);
    rope_chunk(ks, s, c, k + tok * kKv + kvh * kDim, cosb + tok * kDim, sinb + tok * kDim);
    // v^T: row d holds feature d of the 128 keys (the B operand of P V, keys contiguous)
    union {
      uint4 u;
      __nv_bfloat16 h[8];
    } x;
    x.u = *reinterpret_cast<const uint4 *>(v + tok * kKv + kvh * kDim + 8 * c);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const int d = 8 * c + e;
      *reinterpret_cast<__nv_bfloat16 *>(vt + swz16(d, s >> 3) + 2 * (s & 7)) = x.h[e];
    }
  }
  __syncthreads();
  const unsigned qbase = (unsigned)__cvta_generic_to_shared(qs), kbase = (unsigned)__cvta_generic_to_shared(ks),
                 vbase = (unsigned)__cvta_generic_to_shared(vt);
  float acc[kSeq / 8][4];
#pragma unroll
  for (int n = 0; n < kSeq / 8; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
#pragma unroll
  for (int kk = 0; kk < kDim / 16; ++kk) {
    unsigned a[4];
    gemm::ldsm4(a, qbase + swz16(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
    for (int np = 0; np < kSeq / 16; ++np) {
      unsigned bb[4];
      gemm::ldsm4(bb, kbase + swz16(np * 16 + (lane >> 4) * 8 + (lane & 7), kk * 2 + ((lane >> 3) & 1)));
      gemm::mma16816(acc[2 * np], a, bb[0], bb[1]);
      gemm::mma16816(acc[2 * np + 1], a, bb[2], bb[3]);
    }
  }
  // Scores: bf16 of the fp32 dot product, * scaling rounded to bf16, -inf above the diagonal; softmax per row
  // over the quad (the 4 threads of one row) in fp32; P rounded to bf16 and packed as A fragments.
  const int gq = lane >> 2, qd = lane & 3;
  unsigned pa[kSeq / 16][4];
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int i = warp * 16 + gq + 8 * half;
    float mx = -__int_as_float(0x7f800000);
#pragma unroll
    for (int n = 0; n < kSeq / 8; ++n)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int j = 8 * n + 2 * qd + e;
        const float s = j > i ? -__int_as_float(0x7f800000) : bf16r(bf16r(acc[n][2 * half + e]) * kScaling);
        acc[n][2 * half + e] = s;
        mx = fmaxf(mx, s);
      }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    float sum = 0.0f;
#pragma unroll
    for (int n = 0; n < kSeq / 8; ++n)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float x = expf(acc[n][2 * half + e] - mx);
        acc[n][2 * half + e] = x;
        sum += x;
      }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
#pragma unroll
    for (int kk = 0; kk < kSeq / 16; ++kk) {
      pa[kk][half] = pack_bf16(acc[2 * kk][2 * half] / sum, acc[2 * kk][2 * half + 1] / sum);
      pa[kk][2 + half] = pack_bf16(acc[2 * kk + 1][2 * half] / sum, acc[2 * kk + 1][2 * half + 1] / sum);
    }
  }
  float o[kDim / 8][4];
#pragma unroll
  for (int n = 0; n < kDim / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
#pragma unroll
  for (int kk = 0; kk < kSeq / 16; ++kk)
#pragma unroll
    for (int np = 0; np < kDim / 16; ++np) {
      unsigned bb[4];
      gemm::ldsm4(bb, vbase + swz16(np * 16 + (lane >> 4) * 8 + (lane & 7), kk * 2 + ((lane >> 3) & 1)));
      gemm::mma16816(o[2 * np], pa[kk], bb[0], bb[1]);
      gemm::mma16816(o[2 * np + 1], pa[kk], bb[2], bb[3]);
    }
  float local_max = 0.0f;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int i = warp * 16 + gq + 8 * half;
    __nv_bfloat16 *row = out + ((long long)b * kSeq + i) * kHidden + h * kDim;
#pragma unroll
    for (int n = 0; n < kDim / 8; ++n) {
      const float x0 = bf16r(o[n][2 * half]), x1 = bf16r(o[n][2 * half + 1]);
      local_max = fmaxf(local_max, fmaxf(fabsf(x0), fabsf(x1)));
      *reinterpret_cast<__nv_bfloat162 *>(row + 8 * n + 2 * qd) = __floats2bfloat162_rn(x0, x1);
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) local_max = fmaxf(local_max, __shfl_xor_sync(0xffffffffu, local_max, off));
  if (lane == 0) atomicMax(reinterpret_cast<unsigned *>(out_amax), __float_as_uint(local_max));
}

extern "C" __global__ void __launch_bounds__(256) o_gemm(__nv_bfloat16 *__restrict__ out, const __nv_bfloat16 *__restrict__ aa,
                                                        const __nv_bfloat16 *__restrict__ ow, const float *__restrict__ a_amax,
                                                        const float *__restrict__ gd_o) {
  int m0, n0;
  gemm::tile_of(kTokens / gemm::kBM, kHidden / gemm::kBN, m0, n0);
  const float g = __fmul_rn(nvfp4::global_from_amax(a_amax[0]).decode, gd_o[0]);
  gemm::tile<true>(aa, kHidden, m0, [&](int r) { return ow + (long long)(n0 + r) * kHidden; },
                   [&](const float (&f)[4][4][4], int row0, int col0, int gq, int qq) {
#pragma unroll
                     for (int mt = 0; mt < 4; ++mt)
#pragma unroll
                       for (int h = 0; h < 2; ++h) {
                         __nv_bfloat16 *o = out + (long long)(row0 + mt * 16 + gq + 8 * h) * kHidden + n0 + col0 + 2 * qq;
#pragma unroll
                         for (int nt = 0; nt < 4; ++nt)
                           *reinterpret_cast<__nv_bfloat162 *>(o + 8 * nt) = __floats2bfloat162_rn(f[mt][nt][2 * h] * g, f[mt][nt][2 * h + 1] * g);
                       }
                   });
}

/* mkb:plan
scratch xamax fp32[1] zeroed
scratch aamax fp32[1] zeroed
scratch xa bf16[batch_size * seq_len * hidden_size]
scratch qw bf16[q_out_features * hidden_size]
scratch kw bf16[kv_out_features * hidden_size]
scratch vw bf16[kv_out_features * hidden_size]
scratch ow bf16[hidden_size * q_out_features]
scratch q16 bf16[batch_size * seq_len * q_out_features]
scratch k16 bf16[batch_size * seq_len * kv_out_features]
scratch v16 bf16[batch_size * seq_len * kv_out_features]
scratch ao bf16[batch_size * seq_len * q_out_features]
launch amax_bf16 grid(1056) block(256) args(xamax, hidden_states, i64(batch_size * seq_len * hidden_size))
launch quantize_expand grid(ceil_div(batch_size * seq_len * hidden_size / 16, 256)) block(256)
  args(xa, hidden_states, xamax, i64(batch_size * seq_len * hidden_size / 16))
launch expand_nvfp4 grid(ceil_div(q_out_features * hidden_size / 16, 256)) block(256) args(qw, q_weight_fp4, q_scale, i64(q_out_features * hidden_size / 16))
launch expand_nvfp4 grid(ceil_div(kv_out_features * hidden_size / 16, 256)) block(256) args(kw, k_weight_fp4, k_scale, i64(kv_out_features * hidden_size / 16))
launch expand_nvfp4 grid(ceil_div(kv_out_features * hidden_size / 16, 256)) block(256) args(vw, v_weight_fp4, v_scale, i64(kv_out_features * hidden_size / 16))
launch qkv_gemm grid((batch_size * seq_len / 128) * ((q_out_features + 2 * kv_out_features) / 128)) block(256) shared(98304)
  args(q16, k16, v16, xa, qw, kw, vw, xamax, q_global_decode_scale, k_global_decode_scale, v_global_decode_scale)
launch attention grid(batch_size * num_heads) block(256) shared(98304) args(ao, aamax, q16, k16, v16, cos, sin)
launch quantize_expand grid(ceil_div(batch_size * seq_len * q_out_features / 16, 256)) block(256)
  args(xa, ao, aamax, i64(batch_size * seq_len * q_out_features / 16))
launch expand_nvfp4 grid(ceil_div(hidden_size * q_out_features / 16, 256)) block(256) args(ow, o_weight_fp4, o_scale, i64(hidden_size * q_out_features / 16))
launch o_gemm grid((batch_size * seq_len / 128) * (hidden_size / 128)) block(256) shared(98304)
  args(out, xa, ow, aamax, o_global_decode_scale)
*/
