// multimodal_embedding_projection_qwen3vl_nvfp4 (Hopper has no fp4 tensor cores):
//   1. act_amax: the vision features' amax (a grid reduction into one word);
//   2. act_quant: the reference's NVFP4 quantization of each 16-element block (e4m3 block scale from the
//      global encode scale, e2m1 codes by division and round to nearest even), stored as the bf16 value
//      E2M1[code] * s8, exact in bf16 (at most 6 significant bits); weight_dequant the same from the
//      weight's packed codes and scales;
//   3. vision_positions: each sequence's masked positions in order (a ballot prefix count);
//   4. text_rows: the embedding rows of the positions not replaced (16-byte copies);
//   5. vision_gemm: [12288 x 3584] x [8192 x 3584]^T on the bf16 tensor cores (128 x 128 tiles, a 4-stage
//      cp.async pipeline into XOR-swizzled shared memory, ldmatrix, mma.sync m16n8k16, exact products and
//      fp32 sums), times the two global decode scales, rounded to bf16, the bias added and rounded again,
//      each row written at its sequence position.
// 8 warps as 2 x 4, a warp computing 64 x 32 of the tile.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

constexpr int kStages = 4;
constexpr int kSeq = 1024, kVisionTokens = 384, kHidden = 8192, kVisionHidden = 3584;
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
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` of a tile of 128-byte rows: the chunk is
// XOR-swizzled by the row's low 3 bits, so the 8 rows an ldmatrix phase reads hit 8 bank groups.
__device__ __forceinline__ unsigned swz(int row, int chunk) { return (unsigned)(row * 128 + ((chunk ^ (row & 7)) << 4)); }

__device__ __forceinline__ float e4m3_value(unsigned char b) {
  __nv_fp8_e4m3 v;
  v.__x = b;
  return float(v);
}
// The global encode scale 2688 / amax (1 when amax is 0); the decode scale is its fp32 reciprocal.
__device__ __forceinline__ float encode_of(float amax) { return amax > 0.0f ? __fdiv_rn(2688.0f, amax) : 1.0f; }
// The e2m1 code of v (already clamped to +-6): nearest, ties to even, -0 for [-0.25, 0).
__device__ __forceinline__ unsigned e2m1_code(float v) {
  const float a = fabsf(v);
  const unsigned m = a <= 0.25f ? 0u : a < 0.75f ? 1u : a <= 1.25f ? 2u : a < 1.75f ? 3u : a <= 2.5f ? 4u : a < 3.5f ? 5u : a <= 5.0f ? 6u : 7u;
  return m | (v < 0.0f ? 8u : 0u);
}
__device__ __forceinline__ float e2m1_value(unsigned code) {
  const unsigned m = code & 7u;
  const float mag = m < 4u ? 0.5f * (float)m : (m == 4u ? 2.0f : m == 5u ? 3.0f : m == 6u ? 4.0f : 6.0f);
  return (code & 8u) ? -mag : mag;
}

} // namespace


// The bf16 GEMM core: the CTA's 128 x 128 tile of sum_k A[m, k] B[n, k] into acc (the warp's 64 x 32 in
// the m16n8 fragment layout), A and B bf16 with K contiguous (K here counts bytes: 2 per element), rows
// of B from b_row(r). The pipeline, swizzle and fragment addressing are the fp8 kernels': a 16-byte chunk
// holds 8 bf16 as it held 16 fp8, and m16n8k16 bf16 has the m16n8k32 8-bit fragment layout per byte.
template <class BRow>
__device__ __forceinline__ void gemm_tile_bf16(const unsigned char *__restrict__ A, int m0, int K,
                                               BRow b_row, unsigned char *smem, float (&acc)[4][4][4]) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3;
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
        for (int nt = 0; nt < 4; ++nt) mma_bf16(acc[mt][nt], a[mt], b[nt][0], b[nt][1]);
    }
  }
  cp_wait<0>();
  __syncthreads();  // the pipeline's shared memory is free for the epilogue
}

// The vision features' amax as the bits of a non-negative float (integer order) in *amax_bits (zeroed).
extern "C" __global__ void __launch_bounds__(256) act_amax(const __nv_bfloat16 *__restrict__ x, int *amax_bits, long long n8) {
  __shared__ float warp_max[8];
  float m = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n8; i += (long long)gridDim.x * blockDim.x) {
    const uint4 raw = __ldg(reinterpret_cast<const uint4 *>(x) + i);
    const __nv_bfloat162 *p = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      const float2 f = __bfloat1622float2(p[h]);
      m = fmaxf(m, fmaxf(fabsf(f.x), fabsf(f.y)));
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < 8; ++i) m = fmaxf(m, warp_max[i]);
    atomicMax(amax_bits, __float_as_int(fmaxf(m, warp_max[0])));
  }
}

// One thread per 16-element block of the vision features: the reference's NVFP4 quantization; writes
// E2M1[code] * s8 as bf16 (exact), the operand of the bf16 GEMM (the global decode scale comes later).
extern "C" __global__ void __launch_bounds__(256) act_quant(const __nv_bfloat16 *__restrict__ x, const int *__restrict__ amax_bits,
                                                            __nv_bfloat16 *__restrict__ a, long long blocks) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const float decode = __frcp_rn(encode_of(__int_as_float(*amax_bits)));
  const float encode = encode_of(__int_as_float(*amax_bits));
  uint4 raw[2];
  raw[0] = __ldg(reinterpret_cast<const uint4 *>(x + b * 16));
  raw[1] = __ldg(reinterpret_cast<const uint4 *>(x + b * 16) + 1);
  float v[16], bmax = 0.0f;
#pragma unroll
  for (int h = 0; h < 8; ++h) {
    const float2 f = __bfloat1622float2(reinterpret_cast<const __nv_bfloat162 *>(raw)[h]);
    v[2 * h] = f.x;
    v[2 * h + 1] = f.y;
    bmax = fmaxf(bmax, fmaxf(fabsf(f.x), fabsf(f.y)));
  }
  const float s = fminf(fmaxf(__fmul_rn(__fmul_rn(bmax, 1.0f / 6.0f), encode), -448.0f), 448.0f);
  const float s8 = e4m3_value((unsigned char)__nv_cvt_float_to_fp8(s, __NV_SATFINITE, __NV_E4M3));
  const float d = __fmul_rn(s8, decode);
  uint4 out[2];
  __nv_bfloat162 *o = reinterpret_cast<__nv_bfloat162 *>(out);
#pragma unroll
  for (int h = 0; h < 8; ++h) {
    const float q0 = fminf(fmaxf(__fdiv_rn(v[2 * h], d), -6.0f), 6.0f), q1 = fminf(fmaxf(__fdiv_rn(v[2 * h + 1], d), -6.0f), 6.0f);
    o[h] = __floats2bfloat162_rn(e2m1_value(e2m1_code(q0)) * s8, e2m1_value(e2m1_code(q1)) * s8);
  }
  *reinterpret_cast<uint4 *>(a + b * 16) = out[0];
  *(reinterpret_cast<uint4 *>(a + b * 16) + 1) = out[1];
}

// One thread per 16-element block of the weight: E2M1[code] * s8 as bf16 (exact), [N, K].
extern "C" __global__ void __launch_bounds__(256) weight_dequant(const unsigned char *__restrict__ packed,
                                                                 const unsigned char *__restrict__ scale,
                                                                 __nv_bfloat16 *__restrict__ w, long long blocks) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const uint2 bytes = __ldg(reinterpret_cast<const uint2 *>(packed) + b);
  const float s8 = e4m3_value(scale[b]);
  const unsigned word[2] = {bytes.x, bytes.y};
  uint4 out[2];
  __nv_bfloat162 *o = reinterpret_cast<__nv_bfloat162 *>(out);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const unsigned byte = (word[j >> 2] >> (8 * (j & 3))) & 0xffu;
    o[j] = __floats2bfloat162_rn(e2m1_value(byte & 15u) * s8, e2m1_value(byte >> 4) * s8);
  }
  *reinterpret_cast<uint4 *>(w + b * 16) = out[0];
  *(reinterpret_cast<uint4 *>(w + b * 16) + 1) = out[1];
}

// Per sequence (a 1024-thread block, one thread per position): the rank of each masked position; the
// first min(count, vision_tokens) are replaced: vrow[b, j] = their positions in order (-1 past count),
// replaced[b, s] = 1 for them.
extern "C" __global__ void __launch_bounds__(1024) vision_positions(const bool *__restrict__ mask, int *__restrict__ vrow,
                                                                    unsigned char *__restrict__ replaced) {
  __shared__ int warp_count[32];
  const int b = blockIdx.x, s = threadIdx.x, lane = s & 31, warp = s >> 5;
  const bool m = mask[(long long)b * kSeq + s];
  const unsigned ballot = __ballot_sync(0xffffffffu, m);
  if (lane == 0) warp_count[warp] = __popc(ballot);
  __syncthreads();
  int before = __popc(ballot & ((1u << lane) - 1u));
  for (int w = 0; w < warp; ++w) before += warp_count[w];
  if (s < kVisionTokens) vrow[b * kVisionTokens + s] = -1;
  __syncthreads();
  const bool take = m && before < kVisionTokens;
  if (take) vrow[b * kVisionTokens + before] = s;
  replaced[(long long)b * kSeq + s] = take ? 1 : 0;
}

// The text rows: output[b, s] = embed_weight[input_ids[b, s]] where the position is not replaced.
// One block of 256 threads per position (16-byte copies).
extern "C" __global__ void __launch_bounds__(256) text_rows(const long long *__restrict__ ids, const __nv_bfloat16 *__restrict__ table,
                                                            const unsigned char *__restrict__ replaced, __nv_bfloat16 *__restrict__ out) {
  const long long t = blockIdx.x;
  if (replaced[t]) return;
  const uint4 *src = reinterpret_cast<const uint4 *>(table + ids[t] * kHidden);
  uint4 *dst = reinterpret_cast<uint4 *>(out + t * kHidden);
#pragma unroll
  for (int i = 0; i < kHidden / 8 / 256; ++i) dst[threadIdx.x + 256 * i] = __ldg(src + threadIdx.x + 256 * i);
}

// The vision rows: y = sum_k A[r, k] W[n, k] (bf16 operands, exact products, fp32 sum) times the two
// global decode scales; bf16; + bias; bf16; written at output[b, vrow[b, j]] for r = b * 384 + j.
// Grid (N / 128, rows / 128), 256 threads, shared(131072).
extern "C" __global__ void __launch_bounds__(256, 1)
vision_gemm(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ W, const int *__restrict__ amax_bits,
            const float *__restrict__ weight_decode, const __nv_bfloat16 *__restrict__ bias, const int *__restrict__ vrow,
            __nv_bfloat16 *__restrict__ out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int nb = blockIdx.x, m0 = blockIdx.y * 128;
  constexpr int kBytes = kVisionHidden * 2;
  const unsigned char *gB = reinterpret_cast<const unsigned char *>(W) + (long long)nb * 128 * kBytes;
  float acc[4][4][4];
  gemm_tile_bf16(reinterpret_cast<const unsigned char *>(A), m0, kBytes, [&](int r) { return gB + (long long)r * kBytes; },
                 smem, acc);
  const float scale = __frcp_rn(encode_of(__int_as_float(*amax_bits))) * *weight_decode;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3, g = lane >> 2, tq = lane & 3;
  float2 bb[4];
#pragma unroll
  for (int nt = 0; nt < 4; ++nt)
    bb[nt] = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(bias + nb * 128 + wn * 32 + nt * 8 + tq * 2));
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = m0 + wm * 64 + mt * 16 + g + 8 * h, b = r / kVisionTokens;
      const int pos = vrow[r];
      if (pos < 0) continue;
      __nv_bfloat16 *row = out + ((long long)b * kSeq + pos) * kHidden + nb * 128 + wn * 32 + tq * 2;
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const float y0 = __bfloat162float(__float2bfloat16_rn(acc[mt][nt][2 * h] * scale));
        const float y1 = __bfloat162float(__float2bfloat16_rn(acc[mt][nt][2 * h + 1] * scale));
        *reinterpret_cast<__nv_bfloat162 *>(row + nt * 8) = __floats2bfloat162_rn(y0 + bb[nt].x, y1 + bb[nt].y);
      }
    }
}

/* mkb:plan
scratch amax_bits int32[1] zeroed
scratch a_bf16 bf16[batch_size * num_vision_tokens * vision_hidden_size]
scratch w_bf16 bf16[hidden_size * vision_hidden_size]
scratch vrow int32[batch_size * num_vision_tokens]
scratch replaced uint8[batch_size * seq_len]
launch act_amax grid(1056) block(256) args(vision_features, amax_bits, i64(batch_size * num_vision_tokens * vision_hidden_size / 8))
launch act_quant grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 256)) block(256)
  args(vision_features, amax_bits, a_bf16, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch weight_dequant grid(ceil_div(hidden_size * vision_hidden_size / 16, 256)) block(256)
  args(vision_proj_weight_fp4, vision_proj_weight_scale, w_bf16, i64(hidden_size * vision_hidden_size / 16))
launch vision_positions grid(batch_size) block(1024) args(vision_token_mask, vrow, replaced)
launch text_rows grid(batch_size * seq_len) block(256) args(input_ids, embed_weight, replaced, output)
launch vision_gemm grid(hidden_size / 128, batch_size * num_vision_tokens / 128) block(256) shared(131072)
  args(a_bf16, w_bf16, amax_bits, vision_proj_global_decode, vision_proj_bias, vrow, output)
*/
