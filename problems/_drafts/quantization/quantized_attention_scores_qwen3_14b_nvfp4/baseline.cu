// The eager baseline: the device work of the reference as eager PyTorch runs it, one launch per
// operation at eager's dtypes (reference.md lists them): _repeat_kv of k and v (expand + reshape: a copy
// each), _quantize_nvfp4 of q and of the repeated k (82 launches each), the two _dequantize_nvfp4 (9 each),
// the fp32 bmm (cuBLAS matmul step, no TF32) and .to(bf16); * scaling, + attention_mask (bf16);
// F.softmax(dtype=fp32) (the conversion, one warp-per-row softmax kernel) and .to(bf16): attn_weights;
// _quantize_nvfp4 of attn_weights; v.transpose(1, 2).contiguous() and its _quantize_nvfp4; the two
// _dequantize_nvfp4, the bmm and .to(bf16): attn_output.
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
constexpr long long kHeads = 40, kKvHeads = 8, kGroup = kHeads / kKvHeads, kSeq = 256, kDim = 128;
// element i of _repeat_kv(x): [b, 40, s, d] from [b, 8, s, d]
__device__ __forceinline__ long long repeat_source(long long i) {
  const long long inner = i % (kSeq * kDim), bh = i / (kSeq * kDim);
  return ((bh / kHeads) * kKvHeads + (bh % kHeads) / kGroup) * kSeq * kDim + inner;
}
// element i of x.transpose(1, 2).contiguous() for x [bh, s, d]: [bh, d, s]
__device__ __forceinline__ long long transpose_source(long long i) {
  const long long s = i % kSeq, d = (i / kSeq) % kDim, bh = i / (kSeq * kDim);
  return (bh * kSeq + s) * kDim + d;
}
} // namespace

MKB_MAP(repeat_kv, bf16, (const bf16 *x), x[repeat_source(i)])
MKB_MAP(transpose_sd, bf16, (const bf16 *x), x[transpose_source(i)])
// .to(bf16) of the fp32 bmm results and of the softmax
MKB_MAP(f32_to_bf16, bf16, (const float *x), x[i])
// attn_scores * scaling (a bf16 tensor times a Python float: fp32 arithmetic, one rounding)
MKB_MAP(mul_scalar_bf16, bf16, (const bf16 *x, float s), f32(x[i]) * s)
// attn_scores + attention_mask ([b, 1, s, s] broadcast over the heads)
MKB_MAP(add_mask_bf16, bf16, (const bf16 *x, const bf16 *mask), f32(x[i]) + f32(mask[(i / (kHeads * kSeq * kSeq)) * kSeq * kSeq + i % (kSeq * kSeq)]))

// F.softmax(x, dim=-1) over rows of 256 in fp32, as PyTorch's warp softmax: a warp per row, 8 values a lane;
// out = exp(x - max) / sum(exp(x - max)).
extern "C" __global__ void __launch_bounds__(256) softmax_rows256(float *__restrict__ out, const float *__restrict__ x, long long rows) {
  const long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
  if (row >= rows) return;
  const int lane = threadIdx.x & 31;
  const float *r = x + row * kSeq;
  float v[8], m = -__int_as_float(0x7f800000);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    v[j] = r[lane + 32 * j];
    m = fmaxf(m, v[j]);
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    v[j] = expf(v[j] - m);
    s += v[j];
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
#pragma unroll
  for (int j = 0; j < 8; ++j) out[row * kSeq + lane + 32 * j] = v[j] / s;
}

/* mkb:plan
scratch qt fp32[batch_size * num_attention_heads * seq_len * head_dim]
scratch qa fp32[batch_size * num_attention_heads * seq_len * head_dim]
scratch qamax fp32[1] zeroed
scratch qb fp32[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch qc fp32[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch qge fp32[1]
scratch qge1 fp32[1]
scratch qeq bool[1]
scratch qgd fp32[1]
scratch qs uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch qm1 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch qm2 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch qm3 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch qcodes uint8[batch_size * num_attention_heads * seq_len * head_dim]
scratch qhi uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 2]
scratch qfp4 uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 2]
scratch kt fp32[batch_size * num_attention_heads * seq_len * head_dim]
scratch ka fp32[batch_size * num_attention_heads * seq_len * head_dim]
scratch kamax fp32[1] zeroed
scratch kb fp32[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch kc fp32[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch kge fp32[1]
scratch kge1 fp32[1]
scratch keq bool[1]
scratch kgd fp32[1]
scratch ks uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch km1 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch km2 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch km3 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch kcodes uint8[batch_size * num_attention_heads * seq_len * head_dim]
scratch khi uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 2]
scratch kfp4 uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 2]
scratch pt fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch pa fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch pamax fp32[1] zeroed
scratch pb fp32[(batch_size * num_attention_heads * seq_len * seq_len) / 16]
scratch pc fp32[(batch_size * num_attention_heads * seq_len * seq_len) / 16]
scratch pge fp32[1]
scratch pge1 fp32[1]
scratch peq bool[1]
scratch pgd fp32[1]
scratch ps uint8[(batch_size * num_attention_heads * seq_len * seq_len) / 16]
scratch pm1 bool[batch_size * num_attention_heads * seq_len * seq_len]
scratch pm2 bool[batch_size * num_attention_heads * seq_len * seq_len]
scratch pm3 bool[batch_size * num_attention_heads * seq_len * seq_len]
scratch pcodes uint8[batch_size * num_attention_heads * seq_len * seq_len]
scratch phi uint8[(batch_size * num_attention_heads * seq_len * seq_len) / 2]
scratch pfp4 uint8[(batch_size * num_attention_heads * seq_len * seq_len) / 2]
scratch vt fp32[batch_size * num_attention_heads * seq_len * head_dim]
scratch va fp32[batch_size * num_attention_heads * seq_len * head_dim]
scratch vamax fp32[1] zeroed
scratch vb fp32[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch vc fp32[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch vge fp32[1]
scratch vge1 fp32[1]
scratch veq bool[1]
scratch vgd fp32[1]
scratch vs uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 16]
scratch vm1 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch vm2 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch vm3 bool[batch_size * num_attention_heads * seq_len * head_dim]
scratch vcodes uint8[batch_size * num_attention_heads * seq_len * head_dim]
scratch vhi uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 2]
scratch vfp4 uint8[(batch_size * num_attention_heads * seq_len * head_dim) / 2]
scratch dc64 int64[(batch_size * num_attention_heads * seq_len * seq_len) / 2]
scratch dnib int64[(batch_size * num_attention_heads * seq_len * seq_len) / 2]
scratch dlo fp32[(batch_size * num_attention_heads * seq_len * seq_len) / 2]
scratch dhi fp32[(batch_size * num_attention_heads * seq_len * seq_len) / 2]
scratch dun fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch ds32 fp32[(batch_size * num_attention_heads * seq_len * seq_len) / 16]
scratch dsc fp32[(batch_size * num_attention_heads * seq_len * seq_len) / 16]
scratch krep bf16[batch_size * num_attention_heads * seq_len * head_dim]
scratch vrep bf16[batch_size * num_attention_heads * seq_len * head_dim]
scratch vtr bf16[batch_size * num_attention_heads * seq_len * head_dim]
scratch adq fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch bdq fp32[batch_size * num_attention_heads * seq_len * head_dim]
scratch mm fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch s1 bf16[batch_size * num_attention_heads * seq_len * seq_len]
scratch s2 bf16[batch_size * num_attention_heads * seq_len * seq_len]
scratch s3 bf16[batch_size * num_attention_heads * seq_len * seq_len]
scratch sf fp32[batch_size * num_attention_heads * seq_len * seq_len]
# key_states = _repeat_kv(key_states, 5); value_states = _repeat_kv(value_states, 5)
launch repeat_kv grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(krep, key_states, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch repeat_kv grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vrep, value_states, i64(batch_size * num_attention_heads * seq_len * head_dim))
# _quantize_nvfp4(q), batch_size * num_attention_heads * seq_len * head_dim elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qt, query_states, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qa, qt, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch max_nonneg grid(1056) block(256) args(qamax, qa, i64(batch_size * num_attention_heads * seq_len * head_dim))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qa, qt, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch amax16 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qb, qa, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch div_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qc, qb, f32(e2m1_max), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch rdiv_scalar grid(1) block(256) args(qge, qamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(qge1, qge, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(qeq, qge1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(qgd, qge1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qb, qc, qge1, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch clamp_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qc, qb, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qs, qc, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qb, qs, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qc, qb, qgd, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qb, qc, f32(1), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch clamp_max grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(qc, qb, f32(3.4028234663852886e38), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qa, qt, qc, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch clamp_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qt, qa, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * num_attention_heads * seq_len * head_dim))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, i32(0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(1), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(2), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(3), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(4), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(6), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm1, i32(7), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(8), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(9), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(10), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(11), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(12), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(13), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm2, qt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm3, i32(14), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qm1, qt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(qcodes, qm1, i32(15), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch odd_times_16 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(qhi, qcodes, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch even_plus grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(qfp4, qcodes, qhi, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
# _quantize_nvfp4(k), batch_size * num_attention_heads * seq_len * head_dim elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kt, krep, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(ka, kt, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch max_nonneg grid(1056) block(256) args(kamax, ka, i64(batch_size * num_attention_heads * seq_len * head_dim))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(ka, kt, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch amax16 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kb, ka, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch div_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kc, kb, f32(e2m1_max), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch rdiv_scalar grid(1) block(256) args(kge, kamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(kge1, kge, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(keq, kge1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(kgd, kge1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kb, kc, kge1, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch clamp_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kc, kb, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(ks, kc, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kb, ks, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kc, kb, kgd, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kb, kc, f32(1), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch clamp_max grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(kc, kb, f32(3.4028234663852886e38), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(ka, kt, kc, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch clamp_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kt, ka, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * num_attention_heads * seq_len * head_dim))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, i32(0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(1), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(2), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(3), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(4), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(6), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km1, i32(7), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(8), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(9), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(10), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(11), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(12), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(13), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km2, kt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km3, km1, km2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km3, i32(14), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(km1, kt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(kcodes, km1, i32(15), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch odd_times_16 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(khi, kcodes, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch even_plus grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(kfp4, kcodes, khi, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
# attn_scores = _scaled_mm_nvfp4(q_fp4, k_fp4, ...).to(bf16)
# _dequantize_nvfp4(q_fp4), batch_size * num_attention_heads * seq_len * head_dim elements
launch u8_to_i64 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dc64, qfp4, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch and_15 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch shr_4 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch stack_pairs grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(ds32, qs, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(dsc, ds32, qgd, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(adq, dun, dsc, i64(batch_size * num_attention_heads * seq_len * head_dim))
# _dequantize_nvfp4(k_fp4), batch_size * num_attention_heads * seq_len * head_dim elements
launch u8_to_i64 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dc64, kfp4, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch and_15 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch shr_4 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch stack_pairs grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(ds32, ks, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(dsc, ds32, kgd, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(bdq, dun, dsc, i64(batch_size * num_attention_heads * seq_len * head_dim))
matmul c(mm) a(adq) b(bdq) m(seq_len) n(seq_len) k(head_dim) batch(batch_size * num_attention_heads) transpose_b
launch f32_to_bf16 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(s1, mm, i64(batch_size * num_attention_heads * seq_len * seq_len))
# * scaling, .view, + attention_mask
launch mul_scalar_bf16 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(s2, s1, f32(0.08838834764831845), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch add_mask_bf16 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(s3, s2, attention_mask, i64(batch_size * num_attention_heads * seq_len * seq_len))
# attn_weights = F.softmax(attn_scores, dim=-1, dtype=fp32).to(bf16)
launch bf16_to_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sf, s3, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch softmax_rows256 grid(batch_size * num_attention_heads * seq_len / 8) block(256) args(mm, sf, i64(batch_size * num_attention_heads * seq_len))
launch f32_to_bf16 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(attn_weights, mm, i64(batch_size * num_attention_heads * seq_len * seq_len))
# _quantize_nvfp4(attn_weights.reshape(b * h, s, s)), batch_size * num_attention_heads * seq_len * seq_len elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pt, attn_weights, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pa, pt, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch max_nonneg grid(1056) block(256) args(pamax, pa, i64(batch_size * num_attention_heads * seq_len * seq_len))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pa, pt, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch amax16 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pb, pa, i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch div_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pc, pb, f32(e2m1_max), i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch rdiv_scalar grid(1) block(256) args(pge, pamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(pge1, pge, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(peq, pge1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(pgd, pge1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pb, pc, pge1, i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch clamp_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pc, pb, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(ps, pc, i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pb, ps, i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pc, pb, pgd, i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pb, pc, f32(1), i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch clamp_max grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(pc, pb, f32(3.4028234663852886e38), i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pa, pt, pc, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch clamp_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pt, pa, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * num_attention_heads * seq_len * seq_len))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, i32(0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(1), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(2), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(3), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(4), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(6), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm1, i32(7), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(8), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(9), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(10), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(11), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(12), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(13), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm2, pt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm3, pm1, pm2, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm3, i32(14), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pm1, pt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(pcodes, pm1, i32(15), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch odd_times_16 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 2, 1024)) block(256) args(phi, pcodes, i64((batch_size * num_attention_heads * seq_len * seq_len) / 2))
launch even_plus grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 2, 1024)) block(256) args(pfp4, pcodes, phi, i64((batch_size * num_attention_heads * seq_len * seq_len) / 2))
# v_t = v.transpose(1, 2).contiguous()
launch transpose_sd grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vtr, vrep, i64(batch_size * num_attention_heads * seq_len * head_dim))
# _quantize_nvfp4(v_t), batch_size * num_attention_heads * seq_len * head_dim elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vt, vtr, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(va, vt, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch max_nonneg grid(1056) block(256) args(vamax, va, i64(batch_size * num_attention_heads * seq_len * head_dim))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(va, vt, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch amax16 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vb, va, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch div_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vc, vb, f32(e2m1_max), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch rdiv_scalar grid(1) block(256) args(vge, vamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(vge1, vge, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(veq, vge1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(vgd, vge1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vb, vc, vge1, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch clamp_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vc, vb, f32(-e4m3_max), f32(e4m3_max), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch f32_to_e4m3 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vs, vc, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vb, vs, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vc, vb, vgd, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch rdiv_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vb, vc, f32(1), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch clamp_max grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(vc, vb, f32(3.4028234663852886e38), i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(va, vt, vc, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch clamp_f32 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vt, va, f32(-e2m1_max), f32(e2m1_max), i64(batch_size * num_attention_heads * seq_len * head_dim))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, i32(0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(1), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(2), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(3), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(4), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(6), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm1, i32(7), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(0.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(8), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-0.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(9), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-0.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(10), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-1.25), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(11), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-1.75), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(12), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-2.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_gt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(13), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_le grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-3.5), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_ge grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm2, vt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch and_bool grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm3, vm1, vm2, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm3, i32(14), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch cmp_lt grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vm1, vt, f32(-5.0), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch masked_fill_u8 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(vcodes, vm1, i32(15), i64(batch_size * num_attention_heads * seq_len * head_dim))
launch odd_times_16 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(vhi, vcodes, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch even_plus grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(vfp4, vcodes, vhi, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
# attn_output = _scaled_mm_nvfp4(attn_fp4, v_fp4_t, ...).to(bf16)
# _dequantize_nvfp4(attn_fp4), batch_size * num_attention_heads * seq_len * seq_len elements
launch u8_to_i64 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 2, 1024)) block(256) args(dc64, pfp4, i64((batch_size * num_attention_heads * seq_len * seq_len) / 2))
launch and_15 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * seq_len) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * num_attention_heads * seq_len * seq_len) / 2))
launch shr_4 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * seq_len) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * num_attention_heads * seq_len * seq_len) / 2))
launch stack_pairs grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(ds32, ps, i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * seq_len) / 16, 1024)) block(256) args(dsc, ds32, pgd, i64((batch_size * num_attention_heads * seq_len * seq_len) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(adq, dun, dsc, i64(batch_size * num_attention_heads * seq_len * seq_len))
# _dequantize_nvfp4(v_fp4_t), batch_size * num_attention_heads * seq_len * head_dim elements
launch u8_to_i64 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dc64, vfp4, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch and_15 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dlo, dnib, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch shr_4 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch e2m1_gather grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 2, 1024)) block(256) args(dhi, dnib, i64((batch_size * num_attention_heads * seq_len * head_dim) / 2))
launch stack_pairs grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(dun, dlo, dhi, i64(batch_size * num_attention_heads * seq_len * head_dim))
launch e4m3_to_f32 grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(ds32, vs, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_by_scalar grid(ceil_div((batch_size * num_attention_heads * seq_len * head_dim) / 16, 1024)) block(256) args(dsc, ds32, vgd, i64((batch_size * num_attention_heads * seq_len * head_dim) / 16))
launch mul_blocks grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(bdq, dun, dsc, i64(batch_size * num_attention_heads * seq_len * head_dim))
matmul c(mm) a(adq) b(bdq) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads) transpose_b
launch f32_to_bf16 grid(ceil_div(batch_size * num_attention_heads * seq_len * head_dim, 1024)) block(256) args(attn_output, mm, i64(batch_size * num_attention_heads * seq_len * head_dim))
*/
