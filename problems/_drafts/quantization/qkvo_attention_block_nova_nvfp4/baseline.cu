// The eager baseline: the device work of the reference as eager PyTorch runs it, one launch per
// operation at eager's dtypes (reference.md lists them). Each of the four NVFP4 projections quantizes its
// input (82 launches; hidden_states is quantized three times, as the reference's helper does per call),
// decodes both operands (9 launches each), multiplies in fp32 (cuBLAS matmul step, no TF32) and casts to
// bf16. RoPE of q and k (q * cos, -x2, cat, * sin, +), the repeats of k and v (expand + reshape copies), the
// copy matmul makes of the rotated q (its layout is not a batched view), the bf16 matmuls (cuBLAS, fp32
// accumulation), * scaling, the causal mask (ones, triu) and masked_fill, softmax(dtype=fp32) (conversion,
// warp softmax, cast back), the transpose copy. Intermediates are contiguous here; eager keeps some in
// the projections' [b, s, h, d] order (the same traffic). The global scales' torch.tensor(...) and the
// E2M1 table are host-to-device copies: no launch (device memory here).
#include "mkb_ops.cuh"
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

// ---- Eager PyTorch's kernels for the NVFP4 helpers, one per operation (reference.md lists them). ----
namespace mkb_ops {  // the integer and bool types these kernels store
template <> struct store_as<long long> {
  __device__ static long long from(int v) { return v; }
  __device__ static long long from(long long v) { return v; }
};
template <> struct store_as<unsigned char> {
  __device__ static unsigned char from(int v) { return (unsigned char)v; }
};
template <> struct store_as<bool> {
  __device__ static bool from(bool v) { return v; }
};
} // namespace mkb_ops
// x.to(float32)
MKB_MAP(bf16_to_f32, float, (const bf16 *x), f32(x[i]))
// t.abs()
MKB_MAP(abs_f32, float, (const float *x), fabsf(x[i]))
// the 16-element blocks' largest magnitude: t.reshape(..., 16).abs().amax(dim=-1) (one thread per block)
__device__ __forceinline__ float max16(const float *p) {
  float m = p[0];
#pragma unroll
  for (int j = 1; j < 16; ++j) m = fmaxf(m, p[j]);
  return m;
}
MKB_MAP(amax16, float, (const float *x), max16(x + 16 * i))
// x / python_scalar on CUDA: x * fp32(1 / fp32(scalar))
MKB_MAP(div_by_scalar, float, (const float *x, float d), x[i] * __fdiv_rn(1.0f, d))
// torch.div(python_scalar, t): a true fp32 division
MKB_MAP(rdiv_scalar, float, (const float *x, float numerator), __fdiv_rn(numerator, x[i]))
// torch.clamp(t, max=FLT_MAX)
MKB_MAP(clamp_max, float, (const float *x, float hi), fminf(x[i], hi))
// (t == 0.0) for `if t == 0.0:` (its host sync has no device work)
MKB_MAP(eq_scalar, bool, (const float *x, float v), x[i] == v)
// t * s with s a 0-dim tensor
MKB_MAP(mul_by_scalar, float, (const float *x, const float *scalar), x[i] * scalar[0])
// torch.clamp(t, lo, hi)
MKB_MAP(clamp_f32, float, (const float *x, float lo, float hi), fminf(fmaxf(x[i], lo), hi))
// t.to(float8_e4m3fn): nearest even (the values are already within [-448, 448])
__device__ __forceinline__ unsigned char to_e4m3(float v) { return (unsigned char)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3); }
MKB_MAP(f32_to_e4m3, unsigned char, (const float *x), (int)to_e4m3(x[i]))
// scale_fp8.to(float32)
MKB_MAP(e4m3_to_f32, float, (const unsigned char *s), nvfp4::e4m3_value(s[i]))
// tensor.reshape(..., 16) * per_block.unsqueeze(-1)
MKB_MAP(mul_blocks, float, (const float *x, const float *per_block), x[i] * per_block[i >> 4])
// torch.zeros_like(x, dtype=uint8)
MKB_MAP(zeros_u8, unsigned char, (int unused), 0)
// x >= v, x > v, x <= v, x < v (v a Python float, exact in fp32)
MKB_MAP(cmp_ge, bool, (const float *x, float v), x[i] >= v)
MKB_MAP(cmp_gt, bool, (const float *x, float v), x[i] > v)
MKB_MAP(cmp_le, bool, (const float *x, float v), x[i] <= v)
MKB_MAP(cmp_lt, bool, (const float *x, float v), x[i] < v)
// a & b on bool tensors
MKB_MAP(and_bool, bool, (const bool *a, const bool *b), a[i] && b[i])
// codes[..., 1::2] * 16 and codes[..., ::2] + that
MKB_MAP(odd_times_16, unsigned char, (const unsigned char *codes), (int)codes[2 * i + 1] * 16)
MKB_MAP(even_plus, unsigned char, (const unsigned char *codes, const unsigned char *high), (int)codes[2 * i] + (int)high[i])
// fp4.view(uint8).to(int64), codes & 15, codes >> 4
MKB_MAP(u8_to_i64, long long, (const unsigned char *x), (int)x[i])
MKB_MAP(and_15, long long, (const long long *x), x[i] & 15ll)
MKB_MAP(shr_4, long long, (const long long *x), x[i] >> 4)
// values[index]: the e2m1 table gathered (aten::index)
MKB_MAP(e2m1_gather, float, (const long long *index), nvfp4::kE2M1[index[i]])
// torch.stack((low, high), dim=-1)
MKB_MAP(stack_pairs, float, (const float *low, const float *high), (i & 1) ? high[i >> 1] : low[i >> 1])

// codes[mask] = value: masked_fill_ in place (index_put_ with a bool mask and a scalar dispatches to it)
extern "C" __global__ void masked_fill_u8(unsigned char *codes, const bool *__restrict__ mask, int value, long long n) {
  for (long long base = (long long)blockIdx.x * blockDim.x * 4; base < n; base += (long long)gridDim.x * blockDim.x * 4) {
    bool m[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      m[k] = i < n && mask[i];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      if (m[k]) codes[i] = (unsigned char)value;
    }
  }
}

// t.abs().max(): a full reduction into out[0], which starts at 0 (a zeroed scratch); every value is >= 0,
// so the float order is the order of the bits as unsigned integers.
extern "C" __global__ void __launch_bounds__(256) max_nonneg(float *out, const float *__restrict__ x, long long n) {
  float m = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) m = fmaxf(m, x[i]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  if (threadIdx.x == 0) atomicMax(reinterpret_cast<unsigned *>(out), __float_as_uint(m));
}

namespace {
constexpr long long kSeq = 128, kDim = 128, kHeads = 64, kKvHeads = 8;
// [b, heads, s, d] element i of a projection stored [b, s, heads * d]
__device__ __forceinline__ long long proj_index(long long i, long long heads) {
  const long long d = i % kDim, s = (i / kDim) % kSeq, h = (i / kDim / kSeq) % heads, b = i / kDim / kSeq / heads;
  return ((b * kSeq + s) * heads + h) * kDim + d;
}
__device__ __forceinline__ long long cos_index(long long i, long long heads) {  // cos[b, s, d] of element i
  const long long d = i % kDim, s = (i / kDim) % kSeq, b = i / kDim / kSeq / heads;
  return (b * kSeq + s) * kDim + d;
}
} // namespace

// .squeeze(0).to(dtype)
MKB_MAP(f32_to_bf16, bf16, (const float *x), x[i])
MKB_MAP(copy_bf16, bf16, (const bf16 *x), x[i])
// RoPE on [b, heads, s, d] views of a projection: q * cos, -q[..., 64:], cat((-x2, x1), -1), * sin, +
MKB_MAP(rope_mul_cos, bf16, (const bf16 *x, const bf16 *c, long long heads), f32(x[proj_index(i, heads)]) * f32(c[cos_index(i, heads)]))
MKB_MAP(rope_neg_half, bf16, (const bf16 *x, long long heads), -f32(x[proj_index((i / (kDim / 2)) * kDim + kDim / 2 + i % (kDim / 2), heads)]))
MKB_MAP(rope_cat, bf16, (const bf16 *neg, const bf16 *x, long long heads),
        (i % kDim) < kDim / 2 ? f32(neg[(i / kDim) * (kDim / 2) + i % kDim]) : f32(x[proj_index(i - kDim / 2, heads)]))
MKB_MAP(rope_mul_sin, bf16, (const bf16 *r, const bf16 *s, long long heads), f32(r[i]) * f32(s[cos_index(i, heads)]))
MKB_MAP(add_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) + f32(b[i]))
// k[:, :, None].expand(b, 8, 8, s, d).reshape(b, 64, s, d): from the rotated k [b, 8, s, d]
MKB_MAP(repeat_k, bf16, (const bf16 *rot), rot[((i / (kSeq * kDim)) / kHeads * kKvHeads + (i / (kSeq * kDim)) % kHeads / (kHeads / kKvHeads)) * kSeq * kDim + i % (kSeq * kDim)])
// the same for v, read from its projection [b, s, 8 * d]
MKB_MAP(repeat_v, bf16, (const bf16 *v),
        v[(((i / (kSeq * kDim)) / kHeads * kSeq + (i / kDim) % kSeq) * kKvHeads + (i / (kSeq * kDim)) % kHeads / (kHeads / kKvHeads)) * kDim + i % kDim])
// * scaling (bf16 times a Python float, in fp32)
MKB_MAP(mul_scalar_bf16, bf16, (const bf16 *x, float s), f32(x[i]) * s)
// torch.ones(s, s, dtype=bool), torch.triu(., diagonal=1)
MKB_MAP(fill_true, bool, (int unused), true)
MKB_MAP(triu_1, bool, (const bool *x), (i % kSeq) > (i / kSeq) ? x[i] : false)
// attn.masked_fill(mask, -inf)
MKB_MAP(masked_fill_neg_inf, bf16, (const bf16 *x, const bool *mask), mask[i % (kSeq * kSeq)] ? -__int_as_float(0x7f800000) : f32(x[i]))
// attn_output.transpose(1, 2).contiguous(): [b, 64, s, d] -> [b, s, 64, d]
MKB_MAP(transpose_hs, bf16, (const bf16 *x),
        x[(((i / (kHeads * kDim)) / kSeq * kHeads + (i / kDim) % kHeads) * kSeq + (i / (kHeads * kDim)) % kSeq) * kDim + i % kDim])

// F.softmax(x, dim=-1) over rows of 128 in fp32, as PyTorch's warp softmax: exp(x - max) / sum.
extern "C" __global__ void __launch_bounds__(256) softmax_rows128(float *__restrict__ out, const float *__restrict__ x, long long rows) {
  const long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
  if (row >= rows) return;
  const int lane = threadIdx.x & 31;
  float v[4], m = -__int_as_float(0x7f800000);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    v[j] = x[row * kSeq + lane + 32 * j];
    m = fmaxf(m, v[j]);
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    v[j] = expf(v[j] - m);
    s += v[j];
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
#pragma unroll
  for (int j = 0; j < 4; ++j) out[row * kSeq + lane + 32 * j] = v[j] / s;
}

/* mkb:plan
scratch at fp32[batch_size * seq_len * hidden_size]
scratch aa fp32[batch_size * seq_len * hidden_size]
scratch aamax fp32[1] zeroed
scratch ab fp32[(batch_size * seq_len * hidden_size) / 16]
scratch ac fp32[(batch_size * seq_len * hidden_size) / 16]
scratch age fp32[1]
scratch age1 fp32[1]
scratch aeq bool[1]
scratch agd fp32[1]
scratch as uint8[(batch_size * seq_len * hidden_size) / 16]
scratch am1 bool[batch_size * seq_len * hidden_size]
scratch am2 bool[batch_size * seq_len * hidden_size]
scratch am3 bool[batch_size * seq_len * hidden_size]
scratch acodes uint8[batch_size * seq_len * hidden_size]
scratch ahi uint8[(batch_size * seq_len * hidden_size) / 2]
scratch afp4 uint8[(batch_size * seq_len * hidden_size) / 2]
scratch bt fp32[batch_size * seq_len * hidden_size]
scratch ba fp32[batch_size * seq_len * hidden_size]
scratch bamax fp32[1] zeroed
scratch bb fp32[(batch_size * seq_len * hidden_size) / 16]
scratch bc fp32[(batch_size * seq_len * hidden_size) / 16]
scratch bge fp32[1]
scratch bge1 fp32[1]
scratch beq bool[1]
scratch bgd fp32[1]
scratch bs uint8[(batch_size * seq_len * hidden_size) / 16]
scratch bm1 bool[batch_size * seq_len * hidden_size]
scratch bm2 bool[batch_size * seq_len * hidden_size]
scratch bm3 bool[batch_size * seq_len * hidden_size]
scratch bcodes uint8[batch_size * seq_len * hidden_size]
scratch bhi uint8[(batch_size * seq_len * hidden_size) / 2]
scratch bfp4 uint8[(batch_size * seq_len * hidden_size) / 2]
scratch ct fp32[batch_size * seq_len * hidden_size]
scratch ca fp32[batch_size * seq_len * hidden_size]
scratch camax fp32[1] zeroed
scratch cb fp32[(batch_size * seq_len * hidden_size) / 16]
scratch cc fp32[(batch_size * seq_len * hidden_size) / 16]
scratch cge fp32[1]
scratch cge1 fp32[1]
scratch ceq bool[1]
scratch cgd fp32[1]
scratch cs uint8[(batch_size * seq_len * hidden_size) / 16]
scratch cm1 bool[batch_size * seq_len * hidden_size]
scratch cm2 bool[batch_size * seq_len * hidden_size]
scratch cm3 bool[batch_size * seq_len * hidden_size]
scratch ccodes uint8[batch_size * seq_len * hidden_size]
scratch chi uint8[(batch_size * seq_len * hidden_size) / 2]
scratch cfp4 uint8[(batch_size * seq_len * hidden_size) / 2]
scratch et fp32[batch_size * seq_len * q_out_features]
scratch ea fp32[batch_size * seq_len * q_out_features]
scratch eamax fp32[1] zeroed
scratch eb fp32[(batch_size * seq_len * q_out_features) / 16]
scratch ec fp32[(batch_size * seq_len * q_out_features) / 16]
scratch ege fp32[1]
scratch ege1 fp32[1]
scratch eeq bool[1]
scratch egd fp32[1]
scratch es uint8[(batch_size * seq_len * q_out_features) / 16]
scratch em1 bool[batch_size * seq_len * q_out_features]
scratch em2 bool[batch_size * seq_len * q_out_features]
scratch em3 bool[batch_size * seq_len * q_out_features]
scratch ecodes uint8[batch_size * seq_len * q_out_features]
scratch ehi uint8[(batch_size * seq_len * q_out_features) / 2]
scratch efp4 uint8[(batch_size * seq_len * q_out_features) / 2]
scratch dc64 int64[(batch_size * seq_len * hidden_size) / 2]
scratch dnib int64[(batch_size * seq_len * hidden_size) / 2]
scratch dlo fp32[(batch_size * seq_len * hidden_size) / 2]
scratch dhi fp32[(batch_size * seq_len * hidden_size) / 2]
scratch dun fp32[batch_size * seq_len * hidden_size]
scratch ds32 fp32[(batch_size * seq_len * hidden_size) / 16]
scratch dsc fp32[(batch_size * seq_len * hidden_size) / 16]
scratch xdq fp32[batch_size * seq_len * hidden_size]
scratch wdq fp32[q_out_features * hidden_size]
scratch mm fp32[batch_size * seq_len * q_out_features]
scratch q16 bf16[batch_size * seq_len * q_out_features]
scratch k16 bf16[batch_size * seq_len * kv_out_features]
scratch v16 bf16[batch_size * seq_len * kv_out_features]
scratch r1 bf16[batch_size * seq_len * q_out_features]
scratch r2 bf16[batch_size * seq_len * q_out_features / 2]
scratch r3 bf16[batch_size * seq_len * q_out_features]
scratch r4 bf16[batch_size * seq_len * q_out_features]
scratch qr bf16[batch_size * seq_len * q_out_features]
scratch qc bf16[batch_size * seq_len * q_out_features]
scratch kr bf16[batch_size * seq_len * kv_out_features]
scratch krep bf16[batch_size * seq_len * q_out_features]
scratch vrep bf16[batch_size * seq_len * q_out_features]
scratch sc bf16[batch_size * num_heads * seq_len * seq_len]
scratch sc2 bf16[batch_size * num_heads * seq_len * seq_len]
scratch ones bool[seq_len * seq_len]
scratch causal bool[seq_len * seq_len]
scratch sf fp32[batch_size * num_heads * seq_len * seq_len]
scratch pf fp32[batch_size * num_heads * seq_len * seq_len]
scratch p16 bf16[batch_size * num_heads * seq_len * seq_len]
scratch ao bf16[batch_size * seq_len * q_out_features]
scratch atr bf16[batch_size * seq_len * q_out_features]
# q = proj(hidden_states, q_weight_fp4, q_scale, q_global_decode_scale, Q_OUT_FEATURES)
# _quantize_nvfp4(hidden_states (q)), batch_size * seq_len * hidden_size elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(at, hidden_states, i64(batch_size * seq_len * hidden_size))
launch abs_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(aa, at, i64(batch_size * seq_len * hidden_size))
launch max_nonneg grid(1056) block(256) args(aamax, aa, i64(batch_size * seq_len * hidden_size))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(aa, at, i64(batch_size * seq_len * hidden_size))
launch amax16 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ab, aa, i64((batch_size * seq_len * hidden_size) / 16))
launch div_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ac, ab, f32(e2m1_max), i64((batch_size * seq_len * hidden_size) / 16))
launch rdiv_scalar grid(1) block(256) args(age, aamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(age1, age, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(aeq, age1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(agd, age1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ab, ac, age1, i64((batch_size * seq_len * hidden_size) / 16))
launch clamp_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ac, ab, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * seq_len * hidden_size) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(as, ac, i64((batch_size * seq_len * hidden_size) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ab, as, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ac, ab, agd, i64((batch_size * seq_len * hidden_size) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ab, ac, f32(1), i64((batch_size * seq_len * hidden_size) / 16))
launch clamp_max grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ac, ab, f32(3.4028234663852886e38), i64((batch_size * seq_len * hidden_size) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(aa, at, ac, i64(batch_size * seq_len * hidden_size))
launch clamp_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(at, aa, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * seq_len * hidden_size))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, i32(0), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(0.0), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(0.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(0), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(0.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(1), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(0.75), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(1.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(2), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(1.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(1.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(3), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(1.75), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(2.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(4), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(2.5), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(3.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(5), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(3.5), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(5.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(6), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(5.0), i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am1, i32(7), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(0.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(8), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(-0.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(9), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-0.75), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(-1.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(10), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-1.25), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(-1.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(11), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-1.75), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(-2.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(12), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-2.5), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(-3.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(13), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-3.5), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am2, at, f32(-5.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am3, am1, am2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am3, i32(14), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(am1, at, f32(-5.0), i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(acodes, am1, i32(15), i64(batch_size * seq_len * hidden_size))
launch odd_times_16 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(ahi, acodes, i64((batch_size * seq_len * hidden_size) / 2))
launch even_plus grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(afp4, acodes, ahi, i64((batch_size * seq_len * hidden_size) / 2))
# _dequantize_nvfp4(x_fp4), batch_size * seq_len * hidden_size elements
launch u8_to_i64 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dc64, afp4, i64((batch_size * seq_len * hidden_size) / 2))
launch and_15 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * seq_len * hidden_size) / 2))
launch shr_4 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * seq_len * hidden_size) / 2))
launch stack_pairs grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * seq_len * hidden_size))
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ds32, as, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(dsc, ds32, agd, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xdq, dun, dsc, i64(batch_size * seq_len * hidden_size))
# _dequantize_nvfp4(q_weight_fp4), q_out_features * hidden_size elements
launch u8_to_i64 grid(ceil_div((q_out_features * hidden_size) / 2, 1024)) block(256) args(dc64, q_weight_fp4, i64((q_out_features * hidden_size) / 2))
launch and_15 grid(ceil_div((q_out_features * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((q_out_features * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((q_out_features * hidden_size) / 2, 1024)) block(256) args(dlo, dnib, i64((q_out_features * hidden_size) / 2))
launch shr_4 grid(ceil_div((q_out_features * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((q_out_features * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((q_out_features * hidden_size) / 2, 1024)) block(256) args(dhi, dnib, i64((q_out_features * hidden_size) / 2))
launch stack_pairs grid(ceil_div(q_out_features * hidden_size, 1024)) block(256) args(dun, dlo, dhi, i64(q_out_features * hidden_size))
launch e4m3_to_f32 grid(ceil_div((q_out_features * hidden_size) / 16, 1024)) block(256) args(ds32, q_scale, i64((q_out_features * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((q_out_features * hidden_size) / 16, 1024)) block(256) args(dsc, ds32, q_global_decode_scale, i64((q_out_features * hidden_size) / 16))
launch mul_blocks grid(ceil_div(q_out_features * hidden_size, 1024)) block(256) args(wdq, dun, dsc, i64(q_out_features * hidden_size))
matmul c(mm) a(xdq) b(wdq) m(batch_size * seq_len) n(q_out_features) k(hidden_size) transpose_b
launch f32_to_bf16 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(q16, mm, i64(batch_size * seq_len * q_out_features))
# k = proj(hidden_states, k_weight_fp4, ...)
# _quantize_nvfp4(hidden_states (k)), batch_size * seq_len * hidden_size elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bt, hidden_states, i64(batch_size * seq_len * hidden_size))
launch abs_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ba, bt, i64(batch_size * seq_len * hidden_size))
launch max_nonneg grid(1056) block(256) args(bamax, ba, i64(batch_size * seq_len * hidden_size))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ba, bt, i64(batch_size * seq_len * hidden_size))
launch amax16 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bb, ba, i64((batch_size * seq_len * hidden_size) / 16))
launch div_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bc, bb, f32(e2m1_max), i64((batch_size * seq_len * hidden_size) / 16))
launch rdiv_scalar grid(1) block(256) args(bge, bamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(bge1, bge, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(beq, bge1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(bgd, bge1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bb, bc, bge1, i64((batch_size * seq_len * hidden_size) / 16))
launch clamp_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bc, bb, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * seq_len * hidden_size) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bs, bc, i64((batch_size * seq_len * hidden_size) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bb, bs, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bc, bb, bgd, i64((batch_size * seq_len * hidden_size) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bb, bc, f32(1), i64((batch_size * seq_len * hidden_size) / 16))
launch clamp_max grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(bc, bb, f32(3.4028234663852886e38), i64((batch_size * seq_len * hidden_size) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ba, bt, bc, i64(batch_size * seq_len * hidden_size))
launch clamp_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bt, ba, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * seq_len * hidden_size))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, i32(0), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(0.0), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(0.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(0), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(0.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(1), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(0.75), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(1.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(2), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(1.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(1.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(3), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(1.75), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(2.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(4), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(2.5), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(3.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(5), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(3.5), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(5.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(6), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(5.0), i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm1, i32(7), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(0.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(8), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(-0.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(9), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-0.75), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(-1.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(10), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-1.25), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(-1.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(11), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-1.75), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(-2.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(12), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-2.5), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(-3.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(13), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-3.5), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm2, bt, f32(-5.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm3, bm1, bm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm3, i32(14), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bm1, bt, f32(-5.0), i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(bcodes, bm1, i32(15), i64(batch_size * seq_len * hidden_size))
launch odd_times_16 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(bhi, bcodes, i64((batch_size * seq_len * hidden_size) / 2))
launch even_plus grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(bfp4, bcodes, bhi, i64((batch_size * seq_len * hidden_size) / 2))
# _dequantize_nvfp4(x_fp4), batch_size * seq_len * hidden_size elements
launch u8_to_i64 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dc64, bfp4, i64((batch_size * seq_len * hidden_size) / 2))
launch and_15 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * seq_len * hidden_size) / 2))
launch shr_4 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * seq_len * hidden_size) / 2))
launch stack_pairs grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * seq_len * hidden_size))
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ds32, bs, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(dsc, ds32, bgd, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xdq, dun, dsc, i64(batch_size * seq_len * hidden_size))
# _dequantize_nvfp4(k_weight_fp4), kv_out_features * hidden_size elements
launch u8_to_i64 grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dc64, k_weight_fp4, i64((kv_out_features * hidden_size) / 2))
launch and_15 grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((kv_out_features * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dlo, dnib, i64((kv_out_features * hidden_size) / 2))
launch shr_4 grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((kv_out_features * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dhi, dnib, i64((kv_out_features * hidden_size) / 2))
launch stack_pairs grid(ceil_div(kv_out_features * hidden_size, 1024)) block(256) args(dun, dlo, dhi, i64(kv_out_features * hidden_size))
launch e4m3_to_f32 grid(ceil_div((kv_out_features * hidden_size) / 16, 1024)) block(256) args(ds32, k_scale, i64((kv_out_features * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((kv_out_features * hidden_size) / 16, 1024)) block(256) args(dsc, ds32, k_global_decode_scale, i64((kv_out_features * hidden_size) / 16))
launch mul_blocks grid(ceil_div(kv_out_features * hidden_size, 1024)) block(256) args(wdq, dun, dsc, i64(kv_out_features * hidden_size))
matmul c(mm) a(xdq) b(wdq) m(batch_size * seq_len) n(kv_out_features) k(hidden_size) transpose_b
launch f32_to_bf16 grid(ceil_div(batch_size * seq_len * kv_out_features, 1024)) block(256) args(k16, mm, i64(batch_size * seq_len * kv_out_features))
# v = proj(hidden_states, v_weight_fp4, ...)
# _quantize_nvfp4(hidden_states (v)), batch_size * seq_len * hidden_size elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ct, hidden_states, i64(batch_size * seq_len * hidden_size))
launch abs_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ca, ct, i64(batch_size * seq_len * hidden_size))
launch max_nonneg grid(1056) block(256) args(camax, ca, i64(batch_size * seq_len * hidden_size))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ca, ct, i64(batch_size * seq_len * hidden_size))
launch amax16 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cb, ca, i64((batch_size * seq_len * hidden_size) / 16))
launch div_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cc, cb, f32(e2m1_max), i64((batch_size * seq_len * hidden_size) / 16))
launch rdiv_scalar grid(1) block(256) args(cge, camax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(cge1, cge, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(ceq, cge1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(cgd, cge1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cb, cc, cge1, i64((batch_size * seq_len * hidden_size) / 16))
launch clamp_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cc, cb, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * seq_len * hidden_size) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cs, cc, i64((batch_size * seq_len * hidden_size) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cb, cs, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cc, cb, cgd, i64((batch_size * seq_len * hidden_size) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cb, cc, f32(1), i64((batch_size * seq_len * hidden_size) / 16))
launch clamp_max grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(cc, cb, f32(3.4028234663852886e38), i64((batch_size * seq_len * hidden_size) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ca, ct, cc, i64(batch_size * seq_len * hidden_size))
launch clamp_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ct, ca, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * seq_len * hidden_size))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, i32(0), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(0.0), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(0.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(0), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(0.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(1), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(0.75), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(1.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(2), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(1.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(1.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(3), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(1.75), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(2.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(4), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(2.5), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(3.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(5), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(3.5), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(5.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(6), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(5.0), i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm1, i32(7), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(0.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(8), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-0.25), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(-0.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(9), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-0.75), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(-1.25), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(10), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-1.25), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(-1.75), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(11), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-1.75), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(-2.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(12), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-2.5), i64(batch_size * seq_len * hidden_size))
launch cmp_gt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(-3.5), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(13), i64(batch_size * seq_len * hidden_size))
launch cmp_le grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-3.5), i64(batch_size * seq_len * hidden_size))
launch cmp_ge grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm2, ct, f32(-5.0), i64(batch_size * seq_len * hidden_size))
launch and_bool grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm3, cm1, cm2, i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm3, i32(14), i64(batch_size * seq_len * hidden_size))
launch cmp_lt grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(cm1, ct, f32(-5.0), i64(batch_size * seq_len * hidden_size))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ccodes, cm1, i32(15), i64(batch_size * seq_len * hidden_size))
launch odd_times_16 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(chi, ccodes, i64((batch_size * seq_len * hidden_size) / 2))
launch even_plus grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(cfp4, ccodes, chi, i64((batch_size * seq_len * hidden_size) / 2))
# _dequantize_nvfp4(x_fp4), batch_size * seq_len * hidden_size elements
launch u8_to_i64 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dc64, cfp4, i64((batch_size * seq_len * hidden_size) / 2))
launch and_15 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * seq_len * hidden_size) / 2))
launch shr_4 grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * hidden_size) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * seq_len * hidden_size) / 2))
launch stack_pairs grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * seq_len * hidden_size))
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(ds32, cs, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * hidden_size) / 16, 1024)) block(256) args(dsc, ds32, cgd, i64((batch_size * seq_len * hidden_size) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xdq, dun, dsc, i64(batch_size * seq_len * hidden_size))
# _dequantize_nvfp4(v_weight_fp4), kv_out_features * hidden_size elements
launch u8_to_i64 grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dc64, v_weight_fp4, i64((kv_out_features * hidden_size) / 2))
launch and_15 grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((kv_out_features * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dlo, dnib, i64((kv_out_features * hidden_size) / 2))
launch shr_4 grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dnib, dc64, i64((kv_out_features * hidden_size) / 2))
launch e2m1_gather grid(ceil_div((kv_out_features * hidden_size) / 2, 1024)) block(256) args(dhi, dnib, i64((kv_out_features * hidden_size) / 2))
launch stack_pairs grid(ceil_div(kv_out_features * hidden_size, 1024)) block(256) args(dun, dlo, dhi, i64(kv_out_features * hidden_size))
launch e4m3_to_f32 grid(ceil_div((kv_out_features * hidden_size) / 16, 1024)) block(256) args(ds32, v_scale, i64((kv_out_features * hidden_size) / 16))
launch mul_by_scalar grid(ceil_div((kv_out_features * hidden_size) / 16, 1024)) block(256) args(dsc, ds32, v_global_decode_scale, i64((kv_out_features * hidden_size) / 16))
launch mul_blocks grid(ceil_div(kv_out_features * hidden_size, 1024)) block(256) args(wdq, dun, dsc, i64(kv_out_features * hidden_size))
matmul c(mm) a(xdq) b(wdq) m(batch_size * seq_len) n(kv_out_features) k(hidden_size) transpose_b
launch f32_to_bf16 grid(ceil_div(batch_size * seq_len * kv_out_features, 1024)) block(256) args(v16, mm, i64(batch_size * seq_len * kv_out_features))
# RoPE: q_rot = cat(-q2, q1); q = q * cos + q_rot * sin; then the same for k
launch rope_neg_half grid(ceil_div(batch_size * seq_len * q_out_features / 2, 1024)) block(256) args(r2, q16, i64(num_heads), i64(batch_size * seq_len * q_out_features / 2))
launch rope_cat grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(r3, r2, q16, i64(num_heads), i64(batch_size * seq_len * q_out_features))
launch rope_mul_cos grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(r1, q16, cos, i64(num_heads), i64(batch_size * seq_len * q_out_features))
launch rope_mul_sin grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(r4, r3, sin, i64(num_heads), i64(batch_size * seq_len * q_out_features))
launch add_bf16 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(qr, r1, r4, i64(batch_size * seq_len * q_out_features))
launch rope_neg_half grid(ceil_div(batch_size * seq_len * kv_out_features / 2, 1024)) block(256) args(r2, k16, i64(num_kv_heads), i64(batch_size * seq_len * kv_out_features / 2))
launch rope_cat grid(ceil_div(batch_size * seq_len * kv_out_features, 1024)) block(256) args(r3, r2, k16, i64(num_kv_heads), i64(batch_size * seq_len * kv_out_features))
launch rope_mul_cos grid(ceil_div(batch_size * seq_len * kv_out_features, 1024)) block(256) args(r1, k16, cos, i64(num_kv_heads), i64(batch_size * seq_len * kv_out_features))
launch rope_mul_sin grid(ceil_div(batch_size * seq_len * kv_out_features, 1024)) block(256) args(r4, r3, sin, i64(num_kv_heads), i64(batch_size * seq_len * kv_out_features))
launch add_bf16 grid(ceil_div(batch_size * seq_len * kv_out_features, 1024)) block(256) args(kr, r1, r4, i64(batch_size * seq_len * kv_out_features))
# repeat k and v over the 8 query heads of a group; matmul's copy of the rotated q
launch repeat_k grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(krep, kr, i64(batch_size * seq_len * q_out_features))
launch repeat_v grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(vrep, v16, i64(batch_size * seq_len * q_out_features))
launch copy_bf16 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(qc, qr, i64(batch_size * seq_len * q_out_features))
# attn = torch.matmul(q, k.transpose(2, 3)) * scaling; masked_fill(triu(ones, 1), -inf); softmax(fp32).to(bf16)
matmul c(sc) a(qc) b(krep) m(seq_len) n(seq_len) k(head_dim) batch(batch_size * num_heads) transpose_b
launch mul_scalar_bf16 grid(ceil_div(batch_size * num_heads * seq_len * seq_len, 1024)) block(256) args(sc2, sc, f32(0.08838834764831845), i64(batch_size * num_heads * seq_len * seq_len))
launch fill_true grid(ceil_div(seq_len * seq_len, 1024)) block(256) args(ones, i32(0), i64(seq_len * seq_len))
launch triu_1 grid(ceil_div(seq_len * seq_len, 1024)) block(256) args(causal, ones, i64(seq_len * seq_len))
launch masked_fill_neg_inf grid(ceil_div(batch_size * num_heads * seq_len * seq_len, 1024)) block(256) args(sc, sc2, causal, i64(batch_size * num_heads * seq_len * seq_len))
launch bf16_to_f32 grid(ceil_div(batch_size * num_heads * seq_len * seq_len, 1024)) block(256) args(sf, sc, i64(batch_size * num_heads * seq_len * seq_len))
launch softmax_rows128 grid(batch_size * num_heads * seq_len / 8) block(256) args(pf, sf, i64(batch_size * num_heads * seq_len))
launch f32_to_bf16 grid(ceil_div(batch_size * num_heads * seq_len * seq_len, 1024)) block(256) args(p16, pf, i64(batch_size * num_heads * seq_len * seq_len))
# attn_output = torch.matmul(attn, v).transpose(1, 2).contiguous()
matmul c(ao) a(p16) b(vrep) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_heads)
launch transpose_hs grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(atr, ao, i64(batch_size * seq_len * q_out_features))
# out = proj(attn_output, o_weight_fp4, o_scale, o_global_decode_scale, HIDDEN_SIZE)
# _quantize_nvfp4(attn_output), batch_size * seq_len * q_out_features elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(et, atr, i64(batch_size * seq_len * q_out_features))
launch abs_f32 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ea, et, i64(batch_size * seq_len * q_out_features))
launch max_nonneg grid(1056) block(256) args(eamax, ea, i64(batch_size * seq_len * q_out_features))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ea, et, i64(batch_size * seq_len * q_out_features))
launch amax16 grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(eb, ea, i64((batch_size * seq_len * q_out_features) / 16))
launch div_by_scalar grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(ec, eb, f32(e2m1_max), i64((batch_size * seq_len * q_out_features) / 16))
launch rdiv_scalar grid(1) block(256) args(ege, eamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(ege1, ege, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(eeq, ege1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(egd, ege1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(eb, ec, ege1, i64((batch_size * seq_len * q_out_features) / 16))
launch clamp_f32 grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(ec, eb, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * seq_len * q_out_features) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(es, ec, i64((batch_size * seq_len * q_out_features) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(eb, es, i64((batch_size * seq_len * q_out_features) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(ec, eb, egd, i64((batch_size * seq_len * q_out_features) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(eb, ec, f32(1), i64((batch_size * seq_len * q_out_features) / 16))
launch clamp_max grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(ec, eb, f32(3.4028234663852886e38), i64((batch_size * seq_len * q_out_features) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ea, et, ec, i64(batch_size * seq_len * q_out_features))
launch clamp_f32 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(et, ea, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * seq_len * q_out_features))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, i32(0), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(0.0), i64(batch_size * seq_len * q_out_features))
launch cmp_le grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(0.25), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(0), i64(batch_size * seq_len * q_out_features))
launch cmp_gt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(0.25), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(0.75), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(1), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(0.75), i64(batch_size * seq_len * q_out_features))
launch cmp_le grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(1.25), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(2), i64(batch_size * seq_len * q_out_features))
launch cmp_gt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(1.25), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(1.75), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(3), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(1.75), i64(batch_size * seq_len * q_out_features))
launch cmp_le grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(2.5), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(4), i64(batch_size * seq_len * q_out_features))
launch cmp_gt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(2.5), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(3.5), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(5), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(3.5), i64(batch_size * seq_len * q_out_features))
launch cmp_le grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(5.0), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(6), i64(batch_size * seq_len * q_out_features))
launch cmp_gt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(5.0), i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em1, i32(7), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-0.25), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(0.0), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(8), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-0.25), i64(batch_size * seq_len * q_out_features))
launch cmp_gt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(-0.75), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(9), i64(batch_size * seq_len * q_out_features))
launch cmp_le grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-0.75), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(-1.25), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(10), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-1.25), i64(batch_size * seq_len * q_out_features))
launch cmp_gt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(-1.75), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(11), i64(batch_size * seq_len * q_out_features))
launch cmp_le grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-1.75), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(-2.5), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(12), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-2.5), i64(batch_size * seq_len * q_out_features))
launch cmp_gt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(-3.5), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(13), i64(batch_size * seq_len * q_out_features))
launch cmp_le grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-3.5), i64(batch_size * seq_len * q_out_features))
launch cmp_ge grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em2, et, f32(-5.0), i64(batch_size * seq_len * q_out_features))
launch and_bool grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em3, em1, em2, i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em3, i32(14), i64(batch_size * seq_len * q_out_features))
launch cmp_lt grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(em1, et, f32(-5.0), i64(batch_size * seq_len * q_out_features))
launch masked_fill_u8 grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(ecodes, em1, i32(15), i64(batch_size * seq_len * q_out_features))
launch odd_times_16 grid(ceil_div((batch_size * seq_len * q_out_features) / 2, 1024)) block(256) args(ehi, ecodes, i64((batch_size * seq_len * q_out_features) / 2))
launch even_plus grid(ceil_div((batch_size * seq_len * q_out_features) / 2, 1024)) block(256) args(efp4, ecodes, ehi, i64((batch_size * seq_len * q_out_features) / 2))
# _dequantize_nvfp4(x_fp4), batch_size * seq_len * q_out_features elements
launch u8_to_i64 grid(ceil_div((batch_size * seq_len * q_out_features) / 2, 1024)) block(256) args(dc64, efp4, i64((batch_size * seq_len * q_out_features) / 2))
launch and_15 grid(ceil_div((batch_size * seq_len * q_out_features) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * q_out_features) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * q_out_features) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * seq_len * q_out_features) / 2))
launch shr_4 grid(ceil_div((batch_size * seq_len * q_out_features) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * seq_len * q_out_features) / 2))
launch e2m1_gather grid(ceil_div((batch_size * seq_len * q_out_features) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * seq_len * q_out_features) / 2))
launch stack_pairs grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * seq_len * q_out_features))
launch e4m3_to_f32 grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(ds32, es, i64((batch_size * seq_len * q_out_features) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * seq_len * q_out_features) / 16, 1024)) block(256) args(dsc, ds32, egd, i64((batch_size * seq_len * q_out_features) / 16))
launch mul_blocks grid(ceil_div(batch_size * seq_len * q_out_features, 1024)) block(256) args(xdq, dun, dsc, i64(batch_size * seq_len * q_out_features))
# _dequantize_nvfp4(o_weight_fp4), hidden_size * q_out_features elements
launch u8_to_i64 grid(ceil_div((hidden_size * q_out_features) / 2, 1024)) block(256) args(dc64, o_weight_fp4, i64((hidden_size * q_out_features) / 2))
launch and_15 grid(ceil_div((hidden_size * q_out_features) / 2, 1024)) block(256) args(dnib, dc64, i64((hidden_size * q_out_features) / 2))
launch e2m1_gather grid(ceil_div((hidden_size * q_out_features) / 2, 1024)) block(256) args(dlo, dnib, i64((hidden_size * q_out_features) / 2))
launch shr_4 grid(ceil_div((hidden_size * q_out_features) / 2, 1024)) block(256) args(dnib, dc64, i64((hidden_size * q_out_features) / 2))
launch e2m1_gather grid(ceil_div((hidden_size * q_out_features) / 2, 1024)) block(256) args(dhi, dnib, i64((hidden_size * q_out_features) / 2))
launch stack_pairs grid(ceil_div(hidden_size * q_out_features, 1024)) block(256) args(dun, dlo, dhi, i64(hidden_size * q_out_features))
launch e4m3_to_f32 grid(ceil_div((hidden_size * q_out_features) / 16, 1024)) block(256) args(ds32, o_scale, i64((hidden_size * q_out_features) / 16))
launch mul_by_scalar grid(ceil_div((hidden_size * q_out_features) / 16, 1024)) block(256) args(dsc, ds32, o_global_decode_scale, i64((hidden_size * q_out_features) / 16))
launch mul_blocks grid(ceil_div(hidden_size * q_out_features, 1024)) block(256) args(wdq, dun, dsc, i64(hidden_size * q_out_features))
matmul c(mm) a(xdq) b(wdq) m(batch_size * seq_len) n(hidden_size) k(q_out_features) transpose_b
launch f32_to_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(out, mm, i64(batch_size * seq_len * hidden_size))
*/
