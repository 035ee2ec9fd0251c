// mamba2_output_projection_nemotron_nvfp4 on Hopper, which has no FP4 tensor cores:
//   1. each operand's codes and block scales are expanded to bf16 values e2m1 * scale (exact: at most
//      6 significant bits), one thread per 16-element block;
//   2. a bf16 tensor-core GEMM (mma.sync m16n8k16, fp32 accumulation promoted to an fp32 total every
//      64 of K) computes sum_k (e2m1 * scale)_a (e2m1 * scale)_b, and the epilogue multiplies by the
//      product of the two global decode scales: the same products the reference sums, in another order.
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
constexpr int kM = 8192, kN = 1920, kK = 1920;
}

// dst[16 b + j] = bf16(e2m1(code) * e4m3(scale[b])) for every 16-element block b.
extern "C" __global__ void __launch_bounds__(256) expand_nvfp4(__nv_bfloat16 *__restrict__ dst, const unsigned char *__restrict__ codes,
                                                              const unsigned char *__restrict__ scales, long long blocks) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const uint2 packed = reinterpret_cast<const uint2 *>(codes)[b];
  const float s = nvfp4::e4m3_value(scales[b]);
  union {
    uint4 v[2];
    __nv_bfloat162 h[8];
  } out;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const unsigned byte = ((j < 4 ? packed.x : packed.y) >> (8 * (j & 3))) & 0xffu;
    out.h[j] = __floats2bfloat162_rn(nvfp4::kE2M1[byte & 15u] * s, nvfp4::kE2M1[byte >> 4] * s);
  }
  reinterpret_cast<uint4 *>(dst)[2 * b] = out.v[0];
  reinterpret_cast<uint4 *>(dst)[2 * b + 1] = out.v[1];
}

extern "C" __global__ void __launch_bounds__(256) nvfp4_gemm(float *__restrict__ out, const __nv_bfloat16 *__restrict__ a,
                                                            const __nv_bfloat16 *__restrict__ b, const float *__restrict__ gd_a,
                                                            const float *__restrict__ gd_b) {
  int m0, n0;
  gemm::tile_of(kM / gemm::kBM, kN / gemm::kBN, m0, n0);
  const float g = __fmul_rn(gd_a[0], gd_b[0]);
  gemm::tile<true>(a, kK, m0, [&](int r) { return b + (long long)(n0 + r) * kK; },
                   [&](const float (&f)[4][4][4], int row0, int col0, int gq, int q) {
#pragma unroll
                     for (int mt = 0; mt < 4; ++mt)
#pragma unroll
                       for (int h = 0; h < 2; ++h) {
                         float *o = out + (long long)(row0 + mt * 16 + gq + 8 * h) * kN + n0 + col0 + 2 * q;
#pragma unroll
                         for (int nt = 0; nt < 4; ++nt)
                           *reinterpret_cast<float2 *>(o + 8 * nt) = make_float2(f[mt][nt][2 * h] * g, f[mt][nt][2 * h + 1] * g);
                       }
                   });
}

/* mkb:plan
scratch xa bf16[batch * m * intermediate_size]
scratch wb bf16[batch * hidden_size * intermediate_size]
launch expand_nvfp4 grid(ceil_div(batch * m * intermediate_size / 16, 256)) block(256)
  args(xa, hidden_states, hidden_states_scale, i64(batch * m * intermediate_size / 16))
launch expand_nvfp4 grid(ceil_div(batch * hidden_size * intermediate_size / 16, 256)) block(256)
  args(wb, weight, weight_scale, i64(batch * hidden_size * intermediate_size / 16))
launch nvfp4_gemm grid((m / 128) * (hidden_size / 128)) block(256) shared(98304)
  args(out, xa, wb, global_decode_scale_input, global_decode_scale_weight)
*/
