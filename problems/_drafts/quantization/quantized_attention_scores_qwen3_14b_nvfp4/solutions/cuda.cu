// quantized_attention_scores_qwen3_14b_nvfp4 on Hopper (no FP4 tensor cores), three steps:
//   1. max |q|, max |k|, max |v| (the global scales of the three quantized operands);
//   2. per (batch, head, 64 query rows): q rows and the head's k rows quantized with the fp32 recipe into
//      shared memory as bf16 e2m1 * scale (exact); scores on the tensor cores (mma.sync m16n8k16, fp32);
//      then the reference's rounding points in registers: * both global decode scales, bf16, * scaling,
//      bf16, + mask, bf16; a row's softmax in fp32 (exp(s - max) / sum, as PyTorch's warp softmax) rounded
//      to bf16 and stored as attn_weights, with max(attn_weights) by atomicMax;
//   3. per (batch, head, 64 query rows): those rows of attn_weights quantized along the keys, v^T quantized
//      along the keys (16 keys of one feature per block), P V on the tensor cores, * both global decode
//      scales, bf16.
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

namespace {
constexpr int kHeads = 40, kKvHeads = 8, kGroup = kHeads / kKvHeads, kSeq = 256, kDim = 128, kRows = 64;
constexpr float kScaling = 0.08838834764831845f;  // HEAD_DIM ** -0.5, as PyTorch's fp32 opmath scalar

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
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
// Byte offset of 16-byte chunk c of row r in a shared tile with `chunks` chunks (8 bf16) per row; the
// XOR keeps 8 consecutive rows of one chunk in 8 different bank groups (ldmatrix without conflicts).
template <int chunks> __device__ __forceinline__ unsigned swz(int r, int c) { return (unsigned)(r * chunks * 16 + ((c ^ (r & 7)) << 4)); }
__device__ __forceinline__ float bf16r(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }
// A 16-element block quantized with global scales g and stored as two chunks of bf16 e2m1 * scale.
template <int chunks>
__device__ __forceinline__ void store_block(unsigned char *smem, int row, int chunk, const float (&v)[16], const nvfp4::global_scales &g) {
  const block_codes q = quantize16(v, g);
  const float s = nvfp4::e4m3_value(q.scale);
  union {
    uint4 u[2];
    __nv_bfloat162 h[8];
  } o;
#pragma unroll
  for (int j = 0; j < 8; ++j) o.h[j] = __floats2bfloat162_rn(nvfp4::kE2M1[q.code[2 * j]] * s, nvfp4::kE2M1[q.code[2 * j + 1]] * s);
  *reinterpret_cast<uint4 *>(smem + swz<chunks>(row, chunk)) = o.u[0];
  *reinterpret_cast<uint4 *>(smem + swz<chunks>(row, chunk + 1)) = o.u[1];
}
} // namespace

// Step 2: grid (64 * 40 * 4), 128 threads (4 warps of 16 query rows), 80 KiB of shared memory.
extern "C" __global__ void __launch_bounds__(128) scores_softmax(__nv_bfloat16 *__restrict__ attn_weights, float *p_amax,
                                                                const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
                                                                const __nv_bfloat16 *__restrict__ mask, const float *__restrict__ amax_q,
                                                                const float *__restrict__ amax_k) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char *qs = smem, *ks = smem + kRows * kDim * 2;
  const int bh = blockIdx.x / (kSeq / kRows), q0 = (blockIdx.x % (kSeq / kRows)) * kRows;
  const int b = bh / kHeads, h = bh % kHeads;
  const nvfp4::global_scales gq = nvfp4::global_from_amax(amax_q[0]), gk = nvfp4::global_from_amax(amax_k[0]);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const __nv_bfloat16 *qrows = q + ((long long)bh * kSeq + q0) * kDim;
  const __nv_bfloat16 *krows = k + (long long)(b * kKvHeads + h / kGroup) * kSeq * kDim;
  for (int blk = tid; blk < kRows * (kDim / 16); blk += 128) {
    const int r = blk / (kDim / 16), c = blk % (kDim / 16);
    float v[16];
    load16_bf16(qrows + r * kDim + c * 16, v);
    store_block<kDim / 8>(qs, r, 2 * c, v, gq);
  }
  for (int blk = tid; blk < kSeq * (kDim / 16); blk += 128) {
    const int r = blk / (kDim / 16), c = blk % (kDim / 16);
    float v[16];
    load16_bf16(krows + r * kDim + c * 16, v);
    store_block<kDim / 8>(ks, r, 2 * c, v, gk);
  }
  __syncthreads();
  float acc[kSeq / 8][4];
#pragma unroll
  for (int n = 0; n < kSeq / 8; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
  const unsigned qbase = smem_u32(qs), kbase = smem_u32(ks);
#pragma unroll
  for (int kk = 0; kk < kDim / 16; ++kk) {
    unsigned a[4];
    ldsm4(a, qbase + swz<kDim / 8>(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
    for (int np = 0; np < kSeq / 16; ++np) {
      unsigned bb[4];
      ldsm4(bb, kbase + swz<kDim / 8>(np * 16 + (lane >> 4) * 8 + (lane & 7), kk * 2 + ((lane >> 3) & 1)));
      mma16816(acc[2 * np], a, bb[0], bb[1]);
      mma16816(acc[2 * np + 1], a, bb[2], bb[3]);
    }
  }
  // Rows r0 (values 0, 1) and r0 + 8 (values 2, 3) of this thread; columns 8 n + 2 (lane & 3) + e.
  const int gq4 = lane >> 2, qd = lane & 3;
  const float g = __fmul_rn(gq.decode, gk.decode);
  float local_max = 0.0f;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int i = q0 + warp * 16 + gq4 + 8 * half;
    const __nv_bfloat16 *mrow = mask + ((long long)b * kSeq + i) * kSeq;
    float mx = -__int_as_float(0x7f800000);
#pragma unroll
    for (int n = 0; n < kSeq / 8; ++n) {
      const float2 m = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(mrow + 8 * n + 2 * qd));
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float s1 = bf16r(acc[n][2 * half + e] * g);        // .to(bf16) of the fp32 product
        const float s2 = bf16r(s1 * kScaling);                    // * scaling
        const float s3 = bf16r(s2 + (e ? m.y : m.x));             // + attention_mask
        acc[n][2 * half + e] = s3;
        mx = fmaxf(mx, s3);
      }
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
    __nv_bfloat16 *prow = attn_weights + ((long long)bh * kSeq + i) * kSeq;
#pragma unroll
    for (int n = 0; n < kSeq / 8; ++n) {
      const float p0 = bf16r(acc[n][2 * half] / sum), p1 = bf16r(acc[n][2 * half + 1] / sum);
      local_max = fmaxf(local_max, fmaxf(p0, p1));
      *reinterpret_cast<__nv_bfloat162 *>(prow + 8 * n + 2 * qd) = __floats2bfloat162_rn(p0, p1);
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) local_max = fmaxf(local_max, __shfl_xor_sync(0xffffffffu, local_max, o));
  if (lane == 0) atomicMax(reinterpret_cast<unsigned *>(p_amax), __float_as_uint(local_max));
}

// Step 3: grid (64 * 40 * 4), 128 threads, 96 KiB of shared memory.
extern "C" __global__ void __launch_bounds__(128) attn_pv(__nv_bfloat16 *__restrict__ attn_output, const __nv_bfloat16 *__restrict__ attn_weights,
                                                         const __nv_bfloat16 *__restrict__ v, const float *__restrict__ amax_v,
                                                         const float *__restrict__ p_amax) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char *ps = smem, *vt = smem + kRows * kSeq * 2;
  const int bh = blockIdx.x / (kSeq / kRows), q0 = (blockIdx.x % (kSeq / kRows)) * kRows;
  const int b = bh / kHeads, h = bh % kHeads;
  const nvfp4::global_scales gp = nvfp4::global_from_amax(p_amax[0]), gv = nvfp4::global_from_amax(amax_v[0]);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const __nv_bfloat16 *prows = attn_weights + ((long long)bh * kSeq + q0) * kSeq;
  for (int blk = tid; blk < kRows * (kSeq / 16); blk += 128) {
    const int r = blk / (kSeq / 16), c = blk % (kSeq / 16);
    float x[16];
    load16_bf16(prows + r * kSeq + c * 16, x);
    store_block<kSeq / 8>(ps, r, 2 * c, x, gp);
  }
  // v^T of the head: row d holds the 256 keys of feature d; a block is 16 consecutive keys of one feature.
  const __nv_bfloat16 *vh = v + (long long)(b * kKvHeads + h / kGroup) * kSeq * kDim;
  for (int blk = tid; blk < kDim * (kSeq / 16); blk += 128) {
    const int d = blk % kDim, kb = blk / kDim;
    float x[16];
#pragma unroll
    for (int j = 0; j < 16; ++j) x[j] = __bfloat162float(vh[(kb * 16 + j) * kDim + d]);
    store_block<kSeq / 8>(vt, d, 2 * kb, x, gv);
  }
  __syncthreads();
  float acc[kDim / 8][4];
#pragma unroll
  for (int n = 0; n < kDim / 8; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
  const unsigned pbase = smem_u32(ps), vbase = smem_u32(vt);
#pragma unroll 4
  for (int kk = 0; kk < kSeq / 16; ++kk) {
    unsigned a[4];
    ldsm4(a, pbase + swz<kSeq / 8>(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
    for (int np = 0; np < kDim / 16; ++np) {
      unsigned bb[4];
      ldsm4(bb, vbase + swz<kSeq / 8>(np * 16 + (lane >> 4) * 8 + (lane & 7), kk * 2 + ((lane >> 3) & 1)));
      mma16816(acc[2 * np], a, bb[0], bb[1]);
      mma16816(acc[2 * np + 1], a, bb[2], bb[3]);
    }
  }
  const int gq4 = lane >> 2, qd = lane & 3;
  const float g = __fmul_rn(gp.decode, gv.decode);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int i = q0 + warp * 16 + gq4 + 8 * half;
    __nv_bfloat16 *orow = attn_output + ((long long)bh * kSeq + i) * kDim;
#pragma unroll
    for (int n = 0; n < kDim / 8; ++n)
      *reinterpret_cast<__nv_bfloat162 *>(orow + 8 * n + 2 * qd) = __floats2bfloat162_rn(acc[n][2 * half] * g, acc[n][2 * half + 1] * g);
  }
}

/* mkb:plan
scratch amax_q fp32[1] zeroed
scratch amax_k fp32[1] zeroed
scratch amax_v fp32[1] zeroed
scratch amax_p fp32[1] zeroed
launch amax_bf16 grid(1056) block(256) args(amax_q, query_states, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch amax_bf16 grid(1056) block(256) args(amax_k, key_states, i64(batch_size * num_key_value_heads * seq_len * head_dim))
launch amax_bf16 grid(1056) block(256) args(amax_v, value_states, i64(batch_size * num_key_value_heads * seq_len * head_dim))
launch scores_softmax grid(batch_size * num_attention_heads * (seq_len / 64)) block(128) shared(81920)
  args(attn_weights, amax_p, query_states, key_states, attention_mask, amax_q, amax_k)
launch attn_pv grid(batch_size * num_attention_heads * (seq_len / 64)) block(128) shared(98304)
  args(attn_output, attn_weights, value_states, amax_v, amax_p)
*/
