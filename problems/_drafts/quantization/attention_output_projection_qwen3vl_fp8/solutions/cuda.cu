// attention_output_projection_qwen3vl_fp8, on the FP8 tensor cores:
//   1. quant_act: the 1 x 128 activation blocks, a warp per block (4 values a lane): amax, the fp32
//      scale amax * fp32(1/448), the e4m3 codes of x / scale (IEEE division, as the reference);
//   2. quant_weight: the 128 x 128 weight blocks, a 256-thread block per block, in the weight's own
//      [N, K] layout (the blocks of W and of W.T are the same);
//   3. gemm: 128 x 128 output tiles, 128-wide K steps (one scale block), a 4-stage cp.async pipeline
//      into XOR-swizzled shared memory, ldmatrix fragments and mma.sync m16n8k32 e4m3 (exact fp8
//      products, fp32 accumulation). Each K block is accumulated on its own and added into the fp32
//      result times sx[row] * sw[tile]; the epilogue adds the bias and rounds to bf16 once.
// 8 warps as 2 x 4, a warp computing 64 x 32 of the tile.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

constexpr int kStages = 4;
constexpr int kTileBytes = 128 * 128;  // one operand tile (128 rows of 128 fp8) per stage

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned &r0, unsigned &r1, unsigned &r2, unsigned &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void mma_e4m3(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` of a tile of 128-byte rows: the chunk is
// XOR-swizzled by the row's low 3 bits, so the 8 rows an ldmatrix phase reads hit 8 bank groups.
__device__ __forceinline__ unsigned swz(int row, int chunk) { return (unsigned)(row * 128 + ((chunk ^ (row & 7)) << 4)); }

// e4m3 code of x / scale clamped to +-448 (IEEE division, round to nearest even).
__device__ __forceinline__ unsigned e4m3_code(float x, float scale) {
  const float v = fminf(fmaxf(__fdiv_rn(x, scale), -448.0f), 448.0f);
  return (unsigned)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}

} // namespace

// 1 x 128 blocks of a row-major bf16 matrix: q (e4m3 bytes, same layout), s[block] (row-major [rows, cols/128]).
extern "C" __global__ void __launch_bounds__(256) quant_act(const __nv_bfloat16 *__restrict__ x, unsigned char *__restrict__ q,
                                                            float *__restrict__ s, long long blocks) {
  const long long blk = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (blk >= blocks) return;
  const uint2 raw = __ldg(reinterpret_cast<const uint2 *>(x + blk * 128) + lane);
  const float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.x));
  const float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.y));
  float m = fmaxf(fmaxf(fabsf(lo.x), fabsf(lo.y)), fmaxf(fabsf(hi.x), fabsf(hi.y)));
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  const float scale = __fmul_rn(m, 1.0f / 448.0f);
  const unsigned packed = e4m3_code(lo.x, scale) | (e4m3_code(lo.y, scale) << 8) | (e4m3_code(hi.x, scale) << 16) |
                          (e4m3_code(hi.y, scale) << 24);
  reinterpret_cast<unsigned *>(q + blk * 128)[lane] = packed;
  if (lane == 0) s[blk] = scale;
}

// 128 x 128 blocks of a row-major bf16 [rows, cols] matrix, grid (cols / 128, rows / 128): thread t
// owns 64 values of row t / 2. s is row-major [rows / 128, cols / 128].
extern "C" __global__ void __launch_bounds__(256) quant_weight(const __nv_bfloat16 *__restrict__ w, unsigned char *__restrict__ q,
                                                               float *__restrict__ s, int cols) {
  __shared__ float warp_max[8];
  const int t = threadIdx.x;
  const long long base = ((long long)blockIdx.y * 128 + (t >> 1)) * cols + (long long)blockIdx.x * 128 + (t & 1) * 64;
  uint4 raw[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) raw[j] = __ldg(reinterpret_cast<const uint4 *>(w + base) + j);
  float m = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const __nv_bfloat162 *p = reinterpret_cast<const __nv_bfloat162 *>(&raw[j]);
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      const float2 f = __bfloat1622float2(p[h]);
      m = fmaxf(m, fmaxf(fabsf(f.x), fabsf(f.y)));
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((t & 31) == 0) warp_max[t >> 5] = m;
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 8; ++i) m = fmaxf(m, warp_max[i]);
  const float scale = __fmul_rn(m, 1.0f / 448.0f);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const __nv_bfloat162 *p = reinterpret_cast<const __nv_bfloat162 *>(&raw[j]);
    unsigned word[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float2 f0 = __bfloat1622float2(p[2 * h]), f1 = __bfloat1622float2(p[2 * h + 1]);
      word[h] = e4m3_code(f0.x, scale) | (e4m3_code(f0.y, scale) << 8) | (e4m3_code(f1.x, scale) << 16) |
                (e4m3_code(f1.y, scale) << 24);
    }
    *reinterpret_cast<uint2 *>(q + base + 8 * j) = make_uint2(word[0], word[1]);
  }
  if (t == 0) s[(long long)blockIdx.y * gridDim.x + blockIdx.x] = scale;
}

// out[m, n] = bf16(sum_k dq(A)[m, k] dq(B)[n, k] + bias[n]). A: e4m3 [M, K] with scales SA [M, K/128];
// B: e4m3 [N, K] with scales SB [N/128, K/128]. M, N multiples of 128, K a multiple of 128.
// Grid (N / 128, M / 128), 256 threads, shared(4 * 2 * 16384).
extern "C" __global__ void __launch_bounds__(256, 1)
gemm_fp8_bias(const unsigned char *__restrict__ A, const float *__restrict__ SA, const unsigned char *__restrict__ B,
              const float *__restrict__ SB, const __nv_bfloat16 *__restrict__ bias, __nv_bfloat16 *__restrict__ out, int M,
              int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3;
  const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128;
  const int kblocks = K / 128;
  const unsigned sbase = smem_u32(smem);
  const unsigned char *gA = A + (long long)m0 * K;
  const unsigned char *gB = B + (long long)n0 * K;

  auto load_stage = [&](int stage, int kb) {
    const unsigned sa = sbase + stage * 2 * kTileBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int idx = tid + j * 256, row = idx >> 3, chunk = idx & 7;
      const long long off = (long long)row * K + kb * 128 + chunk * 16;
      cp16(sa + swz(row, chunk), gA + off);
      cp16(sb + swz(row, chunk), gB + off);
    }
  };

  float acc[4][4][4];
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < kblocks) load_stage(s, s);
    cp_commit();
  }

  const int g = lane >> 2, tq = lane & 3;
  for (int kb = 0; kb < kblocks; ++kb) {
    cp_wait<kStages - 2>();
    __syncthreads();
    {
      const int next = kb + kStages - 1;
      if (next < kblocks) load_stage(next % kStages, next);
      cp_commit();
    }
    float srow[4][2];
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) srow[mt][h] = __ldg(SA + (long long)(m0 + wm * 64 + mt * 16 + g + 8 * h) * kblocks + kb);
    const float stile = __ldg(SB + (long long)blockIdx.x * kblocks + kb);

    float part[4][4][4];
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) part[mt][nt][e] = 0.0f;

    const unsigned sa = sbase + (kb % kStages) * 2 * kTileBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      unsigned a[4][4], b[4][2];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
        ldsm_x4(sa + swz(wm * 64 + mt * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, ks * 2 + (lane >> 4)), a[mt][0], a[mt][1],
                a[mt][2], a[mt][3]);
#pragma unroll
      for (int np = 0; np < 2; ++np)
        ldsm_x4(sb + swz(wn * 32 + np * 16 + (lane & 7) + ((lane >> 4) & 1) * 8, ks * 2 + ((lane >> 3) & 1)), b[2 * np][0],
                b[2 * np][1], b[2 * np + 1][0], b[2 * np + 1][1]);
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) mma_e4m3(part[mt][nt], a[mt], b[nt][0], b[nt][1]);
    }
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float f = srow[mt][h] * stile;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          acc[mt][nt][2 * h] = fmaf(part[mt][nt][2 * h], f, acc[mt][nt][2 * h]);
          acc[mt][nt][2 * h + 1] = fmaf(part[mt][nt][2 * h + 1], f, acc[mt][nt][2 * h + 1]);
        }
      }
  }
  cp_wait<0>();

#pragma unroll
  for (int nt = 0; nt < 4; ++nt) {
    const int col = n0 + wn * 32 + nt * 8 + tq * 2;
    const float2 bb = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(bias + col));
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const long long row = m0 + wm * 64 + mt * 16 + g + 8 * h;
        *reinterpret_cast<__nv_bfloat162 *>(out + row * N + col) =
            __floats2bfloat162_rn(acc[mt][nt][2 * h] + bb.x, acc[mt][nt][2 * h + 1] + bb.y);
      }
  }
}

/* mkb:plan
scratch qx uint8[num_tokens * input_dim]
scratch sx fp32[num_tokens * input_dim / 128]
scratch qw uint8[hidden_size * input_dim]
scratch sw fp32[hidden_size * input_dim / 16384]
launch quant_act grid(num_tokens * input_dim / 1024) block(256) args(attn_output, qx, sx, i64(num_tokens * input_dim / 128))
launch quant_weight grid(input_dim / 128, hidden_size / 128) block(256) args(o_proj_weight, qw, sw, i32(input_dim))
launch gemm_fp8_bias grid(hidden_size / 128, num_tokens / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, o_proj_bias, output, i32(num_tokens), i32(hidden_size), i32(input_dim))
*/
