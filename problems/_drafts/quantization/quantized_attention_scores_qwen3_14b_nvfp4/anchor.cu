// The float64 anchor. Codes and block scales are semantics, so every value that reaches a quantizer keeps
// the reference's rounding points: q and the repeated k are quantized with the fp32 recipe and decoded
// exactly; the scores are their exact product rounded to bf16 (the .to(query_states.dtype)), times scaling
// in fp32 rounded to bf16, plus the mask in fp32 rounded to bf16 (bf16 tensor arithmetic); the softmax of
// those bf16 scores is exact (fp64) and is attn_weights; rounded to bf16 (the cast) it is quantized along
// the keys; v^T is quantized along the keys; attn_output is the exact product, not rounded.
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

// ---- The anchor's quantizer: the reference's fp32 recipe decides codes and scales exactly (they are
// part of the semantics); the decoded value e2m1 * scale * global_decode is then exact in fp64. ----
extern "C" __global__ void quantize_decode_f64(double *__restrict__ out, const __nv_bfloat16 *__restrict__ x,
                                               const float *__restrict__ amax, long long blocks) {
  const nvfp4::global_scales g = nvfp4::global_from_amax(amax[0]);
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += (long long)gridDim.x * blockDim.x) {
    float v[16];
    load16_bf16(x + 16 * b, v);
    const block_codes q = quantize16(v, g);
    const double s = (double)nvfp4::e4m3_value(q.scale) * (double)g.decode;
#pragma unroll
    for (int j = 0; j < 16; ++j) out[16 * b + j] = (double)nvfp4::kE2M1[q.code[j]] * s;
  }
}
// out[i] = e2m1(code i) * scale[i / 16] * global_decode for a stored NVFP4 tensor.
extern "C" __global__ void dequantize_f64(double *__restrict__ out, const unsigned char *__restrict__ codes,
                                          const unsigned char *__restrict__ scales, const float *__restrict__ global_decode,
                                          long long n) {
  const double g = global_decode[0];
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const unsigned byte = codes[i >> 1], code = (i & 1) ? byte >> 4 : byte & 15u;
    out[i] = (double)nvfp4::kE2M1[code] * (double)nvfp4::e4m3_value(scales[i >> 4]) * g;
  }
}

namespace {
constexpr int kHeads = 40, kKvHeads = 8, kGroup = kHeads / kKvHeads, kSeq = 256, kDim = 128;
constexpr float kScaling = 0.08838834764831845f;  // HEAD_DIM ** -0.5 as PyTorch's fp32 opmath scalar
}

// The repeated k ([b, 40, s, d], head h reading kv head h / 5) quantized along d and decoded.
extern "C" __global__ void k_repeat_decode_f64(double *__restrict__ out, const __nv_bfloat16 *__restrict__ k,
                                               const float *__restrict__ amax, long long blocks) {
  const nvfp4::global_scales g = nvfp4::global_from_amax(amax[0]);
  for (long long blk = (long long)blockIdx.x * blockDim.x + threadIdx.x; blk < blocks; blk += (long long)gridDim.x * blockDim.x) {
    const long long c = blk % (kDim / 16), s = (blk / (kDim / 16)) % kSeq, bh = blk / (kDim / 16) / kSeq;
    const long long src = (((bh / kHeads) * kKvHeads + (bh % kHeads) / kGroup) * kSeq + s) * kDim + c * 16;
    float v[16];
    load16_bf16(k + src, v);
    const block_codes q = quantize16(v, g);
    const double sc = (double)nvfp4::e4m3_value(q.scale) * (double)g.decode;
#pragma unroll
    for (int j = 0; j < 16; ++j) out[16 * blk + j] = (double)nvfp4::kE2M1[q.code[j]] * sc;
  }
}

// v^T of the repeated v ([b * 40, d, s]) quantized along the keys (16 keys of one feature) and decoded.
extern "C" __global__ void vt_repeat_decode_f64(double *__restrict__ out, const __nv_bfloat16 *__restrict__ v,
                                                const float *__restrict__ amax, long long blocks) {
  const nvfp4::global_scales g = nvfp4::global_from_amax(amax[0]);
  for (long long blk = (long long)blockIdx.x * blockDim.x + threadIdx.x; blk < blocks; blk += (long long)gridDim.x * blockDim.x) {
    const long long kb = blk % (kSeq / 16), d = (blk / (kSeq / 16)) % kDim, bh = blk / (kSeq / 16) / kDim;
    const __nv_bfloat16 *src = v + ((bh / kHeads) * kKvHeads + (bh % kHeads) / kGroup) * (long long)kSeq * kDim + d;
    float x[16];
#pragma unroll
    for (int j = 0; j < 16; ++j) x[j] = __bfloat162float(src[(kb * 16 + j) * kDim]);
    const block_codes q = quantize16(x, g);
    const double sc = (double)nvfp4::e4m3_value(q.scale) * (double)g.decode;
#pragma unroll
    for (int j = 0; j < 16; ++j) out[16 * blk + j] = (double)nvfp4::kE2M1[q.code[j]] * sc;
  }
}

// One block of 256 threads per score row: the bf16 rounding points, then the exact softmax.
extern "C" __global__ void __launch_bounds__(256) softmax_rows_f64(double *__restrict__ weights, __nv_bfloat16 *__restrict__ weights_bf16,
                                                                  const double *__restrict__ scores, const __nv_bfloat16 *__restrict__ mask) {
  __shared__ double part[8];
  const long long row = blockIdx.x;  // (b * 40 + h) * 256 + i
  const int j = threadIdx.x, i = (int)(row % kSeq);
  const long long b = row / kSeq / kHeads;
  const float s1 = __bfloat162float(__double2bfloat16(scores[row * kSeq + j]));
  const float s2 = __bfloat162float(__float2bfloat16_rn(__fmul_rn(s1, kScaling)));
  const float s3 = __bfloat162float(__float2bfloat16_rn(__fadd_rn(s2, __bfloat162float(mask[(b * kSeq + i) * kSeq + j]))));
  double m = s3;
  for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((j & 31) == 0) part[j >> 5] = m;
  __syncthreads();
  m = part[0];
  for (int w = 1; w < 8; ++w) m = fmax(m, part[w]);
  __syncthreads();
  const double e = exp((double)s3 - m);
  double s = e;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((j & 31) == 0) part[j >> 5] = s;
  __syncthreads();
  s = 0.0;
  for (int w = 0; w < 8; ++w) s += part[w];
  const double p = e / s;
  weights[row * kSeq + j] = p;
  weights_bf16[row * kSeq + j] = __double2bfloat16(p);
}

/* mkb:plan
scratch amax_q fp32[1] zeroed
scratch amax_k fp32[1] zeroed
scratch amax_v fp32[1] zeroed
scratch amax_p fp32[1] zeroed
scratch q64 fp64[batch_size * num_attention_heads * seq_len * head_dim]
scratch k64 fp64[batch_size * num_attention_heads * seq_len * head_dim]
scratch scores fp64[batch_size * num_attention_heads * seq_len * seq_len]
scratch p16 bf16[batch_size * num_attention_heads * seq_len * seq_len]
scratch p64 fp64[batch_size * num_attention_heads * seq_len * seq_len]
launch amax_bf16 grid(1056) block(256) args(amax_q, query_states, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch amax_bf16 grid(1056) block(256) args(amax_k, key_states, i64(batch_size * num_key_value_heads * seq_len * head_dim))
launch amax_bf16 grid(1056) block(256) args(amax_v, value_states, i64(batch_size * num_key_value_heads * seq_len * head_dim))
launch quantize_decode_f64 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim / 16, 256)) block(256)
  args(q64, query_states, amax_q, i64(batch_size * num_attention_heads * seq_len * head_dim / 16))
launch k_repeat_decode_f64 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim / 16, 256)) block(256)
  args(k64, key_states, amax_k, i64(batch_size * num_attention_heads * seq_len * head_dim / 16))
matmul c(scores) a(q64) b(k64) m(seq_len) n(seq_len) k(head_dim) batch(batch_size * num_attention_heads) transpose_b
launch softmax_rows_f64 grid(batch_size * num_attention_heads * seq_len) block(256) args(attn_weights, p16, scores, attention_mask)
launch amax_bf16 grid(1056) block(256) args(amax_p, p16, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch quantize_decode_f64 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len / 16, 256)) block(256)
  args(p64, p16, amax_p, i64(batch_size * num_attention_heads * seq_len * seq_len / 16))
launch vt_repeat_decode_f64 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim / 16, 256)) block(256)
  args(k64, value_states, amax_v, i64(batch_size * num_attention_heads * seq_len * head_dim / 16))
matmul c(attn_output) a(p64) b(k64) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads) transpose_b
*/
