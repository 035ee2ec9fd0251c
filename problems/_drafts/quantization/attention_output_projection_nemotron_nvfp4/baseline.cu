// The eager baseline: the device work of the reference as eager PyTorch runs it, one launch per
// operation at eager's dtypes (reference.md lists them): _quantize_nvfp4(hidden_states.unsqueeze(0))
// (conversion, max, the scales, encode, scaled and clipped values, then _cast_to_fp4x2's zeros, 16 bands of
// comparisons, & and masked fills, and the packing), the two _dequantize_nvfp4 (int64 codes, table
// gathers, stack, scales), torch.tensor(global) (a host-to-device copy, no launch: the input is on the
// device already), and torch.bmm in fp32 as a cuBLAS matmul step (no TF32).
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

/* mkb:plan
scratch qt fp32[m * input_dim]
scratch qa fp32[m * input_dim]
scratch qamax fp32[1] zeroed
scratch qb fp32[(m * input_dim) / 16]
scratch qc fp32[(m * input_dim) / 16]
scratch qge fp32[1]
scratch qge1 fp32[1]
scratch qeq bool[1]
scratch qgd fp32[1]
scratch qs uint8[(m * input_dim) / 16]
scratch qm1 bool[m * input_dim]
scratch qm2 bool[m * input_dim]
scratch qm3 bool[m * input_dim]
scratch qcodes uint8[m * input_dim]
scratch qhi uint8[(m * input_dim) / 2]
scratch qfp4 uint8[(m * input_dim) / 2]
scratch dc64 int64[(m * input_dim) / 2]
scratch dnib int64[(m * input_dim) / 2]
scratch dlo fp32[(m * input_dim) / 2]
scratch dhi fp32[(m * input_dim) / 2]
scratch dun fp32[m * input_dim]
scratch ds32 fp32[(m * input_dim) / 16]
scratch dsc fp32[(m * input_dim) / 16]
scratch adq fp32[m * input_dim]
scratch wdq fp32[hidden_size_padded * input_dim]
# _quantize_nvfp4(hidden_states.unsqueeze(0)), m * input_dim elements: tensor = x.to(fp32); amax = tensor.abs().max()
launch bf16_to_f32 grid(ceil_div(m * input_dim, 1024)) block(256) args(qt, hidden_states, i64(m * input_dim))
launch abs_f32 grid(ceil_div(m * input_dim, 1024)) block(256) args(qa, qt, i64(m * input_dim))
launch max_nonneg grid(1056) block(256) args(qamax, qa, i64(m * input_dim))
# _nvfp4_scales: decode = blocks.abs().amax(-1) / 6.0; encode = clamp(div(2688, amax), max); if encode == 0;
#   global_decode = div(1.0, encode); scale = clamp(decode * encode, -448, 448).to(e4m3)
launch abs_f32 grid(ceil_div(m * input_dim, 1024)) block(256) args(qa, qt, i64(m * input_dim))
launch amax16 grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qb, qa, i64((m * input_dim) / 16))
launch div_by_scalar grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qc, qb, f32(e2m1_max), i64((m * input_dim) / 16))
launch rdiv_scalar grid(1) block(256) args(qge, qamax, f32(e4m3_max * e2m1_max), i64(1))
launch clamp_max grid(1) block(256) args(qge1, qge, f32(3.4028234663852886e38), i64(1))
launch eq_scalar grid(1) block(256) args(qeq, qge1, f32(0), i64(1))
launch rdiv_scalar grid(1) block(256) args(qgd, qge1, f32(1), i64(1))
launch mul_by_scalar grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qb, qc, qge1, i64((m * input_dim) / 16))
launch clamp_f32 grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qc, qb, f32(-e4m3_max), f32(e4m3_max), i64((m * input_dim) / 16))
launch f32_to_e4m3 grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qs, qc, i64((m * input_dim) / 16))
# encode = clamp(div(1.0, scale.to(fp32) * global_decode), max); scaled = tensor * encode; clipped
launch e4m3_to_f32 grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qb, qs, i64((m * input_dim) / 16))
launch mul_by_scalar grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qc, qb, qgd, i64((m * input_dim) / 16))
launch rdiv_scalar grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qb, qc, f32(1), i64((m * input_dim) / 16))
launch clamp_max grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(qc, qb, f32(3.4028234663852886e38), i64((m * input_dim) / 16))
launch mul_blocks grid(ceil_div(m * input_dim, 1024)) block(256) args(qa, qt, qc, i64(m * input_dim))
launch clamp_f32 grid(ceil_div(m * input_dim, 1024)) block(256) args(qt, qa, f32(-e2m1_max), f32(e2m1_max), i64(m * input_dim))
# _cast_to_fp4x2: zeros_like, then per band the comparisons, & and codes[mask] = code; then the packing
launch zeros_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, i32(0), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(0.0), i64(m * input_dim))
launch cmp_le grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(0.25), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(0), i64(m * input_dim))
launch cmp_gt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(0.25), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(0.75), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(1), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(0.75), i64(m * input_dim))
launch cmp_le grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(1.25), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(2), i64(m * input_dim))
launch cmp_gt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(1.25), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(1.75), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(3), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(1.75), i64(m * input_dim))
launch cmp_le grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(2.5), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(4), i64(m * input_dim))
launch cmp_gt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(2.5), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(3.5), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(5), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(3.5), i64(m * input_dim))
launch cmp_le grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(5.0), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(6), i64(m * input_dim))
launch cmp_gt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(5.0), i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm1, i32(7), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-0.25), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(0.0), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(8), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-0.25), i64(m * input_dim))
launch cmp_gt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(-0.75), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(9), i64(m * input_dim))
launch cmp_le grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-0.75), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(-1.25), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(10), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-1.25), i64(m * input_dim))
launch cmp_gt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(-1.75), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(11), i64(m * input_dim))
launch cmp_le grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-1.75), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(-2.5), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(12), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-2.5), i64(m * input_dim))
launch cmp_gt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(-3.5), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(13), i64(m * input_dim))
launch cmp_le grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-3.5), i64(m * input_dim))
launch cmp_ge grid(ceil_div(m * input_dim, 1024)) block(256) args(qm2, qt, f32(-5.0), i64(m * input_dim))
launch and_bool grid(ceil_div(m * input_dim, 1024)) block(256) args(qm3, qm1, qm2, i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm3, i32(14), i64(m * input_dim))
launch cmp_lt grid(ceil_div(m * input_dim, 1024)) block(256) args(qm1, qt, f32(-5.0), i64(m * input_dim))
launch masked_fill_u8 grid(ceil_div(m * input_dim, 1024)) block(256) args(qcodes, qm1, i32(15), i64(m * input_dim))
launch odd_times_16 grid(ceil_div((m * input_dim) / 2, 1024)) block(256) args(qhi, qcodes, i64((m * input_dim) / 2))
launch even_plus grid(ceil_div((m * input_dim) / 2, 1024)) block(256) args(qfp4, qcodes, qhi, i64((m * input_dim) / 2))
# _dequantize_nvfp4(act_fp4), m * input_dim elements
launch u8_to_i64 grid(ceil_div((m * input_dim) / 2, 1024)) block(256) args(dc64, qfp4, i64((m * input_dim) / 2))
launch and_15 grid(ceil_div((m * input_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((m * input_dim) / 2))
launch e2m1_gather grid(ceil_div((m * input_dim) / 2, 1024)) block(256) args(dlo, dnib, i64((m * input_dim) / 2))
launch shr_4 grid(ceil_div((m * input_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((m * input_dim) / 2))
launch e2m1_gather grid(ceil_div((m * input_dim) / 2, 1024)) block(256) args(dhi, dnib, i64((m * input_dim) / 2))
launch stack_pairs grid(ceil_div(m * input_dim, 1024)) block(256) args(dun, dlo, dhi, i64(m * input_dim))
launch e4m3_to_f32 grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(ds32, qs, i64((m * input_dim) / 16))
launch mul_by_scalar grid(ceil_div((m * input_dim) / 16, 1024)) block(256) args(dsc, ds32, qgd, i64((m * input_dim) / 16))
launch mul_blocks grid(ceil_div(m * input_dim, 1024)) block(256) args(adq, dun, dsc, i64(m * input_dim))
# _dequantize_nvfp4(weight_fp4.unsqueeze(0)), hidden_size_padded * input_dim elements
launch u8_to_i64 grid(ceil_div((hidden_size_padded * input_dim) / 2, 1024)) block(256) args(dc64, weight_fp4, i64((hidden_size_padded * input_dim) / 2))
launch and_15 grid(ceil_div((hidden_size_padded * input_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((hidden_size_padded * input_dim) / 2))
launch e2m1_gather grid(ceil_div((hidden_size_padded * input_dim) / 2, 1024)) block(256) args(dlo, dnib, i64((hidden_size_padded * input_dim) / 2))
launch shr_4 grid(ceil_div((hidden_size_padded * input_dim) / 2, 1024)) block(256) args(dnib, dc64, i64((hidden_size_padded * input_dim) / 2))
launch e2m1_gather grid(ceil_div((hidden_size_padded * input_dim) / 2, 1024)) block(256) args(dhi, dnib, i64((hidden_size_padded * input_dim) / 2))
launch stack_pairs grid(ceil_div(hidden_size_padded * input_dim, 1024)) block(256) args(dun, dlo, dhi, i64(hidden_size_padded * input_dim))
launch e4m3_to_f32 grid(ceil_div((hidden_size_padded * input_dim) / 16, 1024)) block(256) args(ds32, weight_scale, i64((hidden_size_padded * input_dim) / 16))
launch mul_by_scalar grid(ceil_div((hidden_size_padded * input_dim) / 16, 1024)) block(256) args(dsc, ds32, weight_global_decode_scale, i64((hidden_size_padded * input_dim) / 16))
launch mul_blocks grid(ceil_div(hidden_size_padded * input_dim, 1024)) block(256) args(wdq, dun, dsc, i64(hidden_size_padded * input_dim))
matmul c(output) a(adq) b(wdq) m(m) n(hidden_size_padded) k(input_dim) transpose_b
*/
