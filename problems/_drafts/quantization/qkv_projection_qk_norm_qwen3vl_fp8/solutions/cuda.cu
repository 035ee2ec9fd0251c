// qkv_projection_qk_norm_qwen3vl_fp8, on the FP8 tensor cores:
//   1. quant_act: the 1 x 128 activation blocks once (the three projections quantize x identically), a
//      warp per block: amax, the fp32 scale amax * fp32(1/448), the e4m3 codes of x / scale;
//   2. quant_weights_qkv: the 128 x 128 blocks of q_weight, k_weight and v_weight into one [9728, 7680]
//      e4m3 operand, so that each 128-column tile of the product is exactly one head;
//   3. gemm_qkv_norm: 128 x 128 tiles, 128-wide K steps (one scale block), a 4-stage cp.async pipeline
//      into XOR-swizzled shared memory, ldmatrix fragments and mma.sync m16n8k32 e4m3 (exact products,
//      fp32 accumulation; each K block accumulated on its own and added times its two scales); the
//      epilogue adds the bias, rounds the projection to bf16, and for q and k normalizes the head in
//      registers (a row's sum of squares over the 4 warps of the tile through shared memory), rounds,
//      multiplies by the norm weight and stores [batch, head, seq, dim].
// 8 warps as 2 x 4, a warp computing 64 x 32 of the tile.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

constexpr int kStages = 4;
constexpr int kQHeads = 60, kKvHeads = 8, kSeq = 256;
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

// One 128 x 128 block of a row-major bf16 matrix with `cols` columns (src and dst at the block's first
// element), by 256 threads: thread t owns 64 values of row t / 2. Writes the e4m3 codes to dst (same
// layout) and the block's scale to *scale_out.
__device__ __forceinline__ void quantize_block128(const __nv_bfloat16 *__restrict__ src, unsigned char *__restrict__ dst,
                                                  float *scale_out, int cols) {
  __shared__ float warp_max[8];
  const int t = threadIdx.x;
  const long long off = (long long)(t >> 1) * cols + (t & 1) * 64;
  uint4 raw[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) raw[j] = __ldg(reinterpret_cast<const uint4 *>(src + off) + j);
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
    *reinterpret_cast<uint2 *>(dst + off + 8 * j) = make_uint2(word[0], word[1]);
  }
  if (t == 0) *scale_out = scale;
}

// The GEMM core: the CTA's 128 x 128 tile of sum_k dq(A)[m, k] dq(B)[n, k] into acc (the warp's 64 x 32
// of it in the m16n8 fragment layout). A: e4m3 [M, K] rows m0.., scales SA [M, K/128]; B rows are read
// from b_row(r) (r = 0..127, each K contiguous bytes); the tile's B scale for K block kb is b_scale(kb).
template <class BRow, class BScale>
__device__ __forceinline__ void gemm_tile(const unsigned char *__restrict__ A, const float *__restrict__ SA, int m0, int K,
                                          BRow b_row, BScale b_scale, unsigned char *smem, float (&acc)[4][4][4]) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3;
  const int g = lane >> 2;
  const int kblocks = K / 128;
  const unsigned sbase = smem_u32(smem);
  const unsigned char *gA = A + (long long)m0 * K;

  auto load_stage = [&](int stage, int kb) {
    const unsigned sa = sbase + stage * 2 * kTileBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int idx = tid + j * 256, row = idx >> 3, chunk = idx & 7;
      const int off = kb * 128 + chunk * 16;
      cp16(sa + swz(row, chunk), gA + (long long)row * K + off);
      cp16(sb + swz(row, chunk), b_row(row) + off);
    }
  };

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
    const float stile = b_scale(kb);

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
  __syncthreads();  // the pipeline's shared memory is free for the epilogue
}

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


// The three weights quantized into one [9728, K] e4m3 operand (rows 0..7679 q, 7680..8703 k,
// 8704..9727 v) with scales [76, K/128]. Grid (K / 128, 76).
extern "C" __global__ void __launch_bounds__(256) quant_weights_qkv(const __nv_bfloat16 *__restrict__ wq,
                                                                    const __nv_bfloat16 *__restrict__ wk,
                                                                    const __nv_bfloat16 *__restrict__ wv,
                                                                    unsigned char *__restrict__ q, float *__restrict__ s,
                                                                    int cols) {
  const int rb = blockIdx.y;
  const __nv_bfloat16 *src = rb < kQHeads ? wq + (long long)rb * 128 * cols
                             : rb < kQHeads + kKvHeads ? wk + (long long)(rb - kQHeads) * 128 * cols
                                                       : wv + (long long)(rb - kQHeads - kKvHeads) * 128 * cols;
  quantize_block128(src + blockIdx.x * 128, q + (long long)rb * 128 * cols + blockIdx.x * 128,
                    s + (long long)rb * gridDim.x + blockIdx.x, cols);
}

// One 128 x 128 tile of [q | k | v] = dq(x) dq(W)^T: tile column nb is q head nb (< 60), k head
// nb - 60 (< 68) or v head nb - 68, and a 128-row tile is 128 tokens of one sequence. Epilogue: the
// bias and the bf16 rounding of the projection; for q and k the head's RMSNorm (fp32 row statistics
// over the 4 warps of the tile's width), bf16, times the norm weight, bf16; stored to [b, h, s, d].
// Grid (76, T / 128), 256 threads, shared(131072).
extern "C" __global__ void __launch_bounds__(256, 1)
gemm_qkv_norm(const unsigned char *__restrict__ A, const float *__restrict__ SA, const unsigned char *__restrict__ B,
              const float *__restrict__ SB, const __nv_bfloat16 *__restrict__ q_bias, const __nv_bfloat16 *__restrict__ k_bias,
              const __nv_bfloat16 *__restrict__ v_bias, const __nv_bfloat16 *__restrict__ q_norm_weight,
              const __nv_bfloat16 *__restrict__ k_norm_weight, __nv_bfloat16 *__restrict__ q_out,
              __nv_bfloat16 *__restrict__ k_out, __nv_bfloat16 *__restrict__ v_out, float eps, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int nb = blockIdx.x, m0 = blockIdx.y * 128;
  const int kblocks = K / 128;
  const unsigned char *gB = B + (long long)nb * 128 * K;
  float acc[4][4][4];
  gemm_tile(
      A, SA, m0, K, [&](int r) { return gB + (long long)r * K; },
      [&](int kb) { return __ldg(SB + (long long)nb * kblocks + kb); }, smem, acc);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3, g = lane >> 2, tq = lane & 3;
  const int kind = nb < kQHeads ? 0 : (nb < kQHeads + kKvHeads ? 1 : 2);
  const int head = kind == 0 ? nb : (kind == 1 ? nb - kQHeads : nb - kQHeads - kKvHeads);
  const int heads = kind == 0 ? kQHeads : kKvHeads;
  const __nv_bfloat16 *bias = (kind == 0 ? q_bias : kind == 1 ? k_bias : v_bias) + head * 128;
  const __nv_bfloat16 *norm_w = kind == 0 ? q_norm_weight : k_norm_weight;
  __nv_bfloat16 *out = kind == 0 ? q_out : kind == 1 ? k_out : v_out;

  // y = bf16(acc + bias), kept as float
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) {
    const int d = wn * 32 + nt * 8 + tq * 2;
    const float2 bb = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(bias + d));
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        acc[mt][nt][2 * h] = __bfloat162float(__float2bfloat16_rn(acc[mt][nt][2 * h] + bb.x));
        acc[mt][nt][2 * h + 1] = __bfloat162float(__float2bfloat16_rn(acc[mt][nt][2 * h + 1] + bb.y));
      }
  }

  if (kind != 2) {
    float *red = reinterpret_cast<float *>(smem);  // [128 rows][4 warps across the width]
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float s = 0.0f;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt)
          s = fmaf(acc[mt][nt][2 * h], acc[mt][nt][2 * h], fmaf(acc[mt][nt][2 * h + 1], acc[mt][nt][2 * h + 1], s));
        s += __shfl_xor_sync(0xffffffffu, s, 1);
        s += __shfl_xor_sync(0xffffffffu, s, 2);
        if (tq == 0) red[(wm * 64 + mt * 16 + g + 8 * h) * 4 + wn] = s;
      }
    __syncthreads();
    float wd[4][2];
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      const float2 w2 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(norm_w + wn * 32 + nt * 8 + tq * 2));
      wd[nt][0] = w2.x;
      wd[nt][1] = w2.y;
    }
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float *r = red + (wm * 64 + mt * 16 + g + 8 * h) * 4;
        const float rstd = rsqrtf((r[0] + r[1] + r[2] + r[3]) * (1.0f / 128.0f) + eps);
#pragma unroll
        for (int nt = 0; nt < 4; ++nt)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float n = __bfloat162float(__float2bfloat16_rn(acc[mt][nt][2 * h + e] * rstd));
            acc[mt][nt][2 * h + e] = wd[nt][e] * n;
          }
      }
  }

#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int t = m0 + wm * 64 + mt * 16 + g + 8 * h;
      const int b = t / kSeq, s = t % kSeq;
      __nv_bfloat16 *row = out + (((long long)b * heads + head) * kSeq + s) * 128;
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
        *reinterpret_cast<__nv_bfloat162 *>(row + wn * 32 + nt * 8 + tq * 2) =
            __floats2bfloat162_rn(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
    }
}

/* mkb:plan
scratch qx uint8[batch_size * seq_len * hidden_size]
scratch sx fp32[batch_size * seq_len * hidden_size / 128]
scratch qw uint8[(q_size + 2 * kv_size) * hidden_size]
scratch sw fp32[(q_size + 2 * kv_size) * hidden_size / 16384]
launch quant_act grid(batch_size * seq_len * hidden_size / 1024) block(256)
  args(hidden_states, qx, sx, i64(batch_size * seq_len * hidden_size / 128))
launch quant_weights_qkv grid(hidden_size / 128, (q_size + 2 * kv_size) / 128) block(256)
  args(q_weight, k_weight, v_weight, qw, sw, i32(hidden_size))
launch gemm_qkv_norm grid((q_size + 2 * kv_size) / 128, batch_size * seq_len / 128) block(256) shared(131072)
  args(qx, sx, qw, sw, q_bias, k_bias, v_bias, q_norm_weight, k_norm_weight, q, k, v, f32(eps), i32(hidden_size))
*/
