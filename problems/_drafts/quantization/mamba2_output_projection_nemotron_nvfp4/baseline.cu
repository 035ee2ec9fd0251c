// The eager baseline: the device work of the reference as eager PyTorch runs it, one launch per
// operation, intermediates at eager's dtypes (int64 codes, fp32 values), the product through cuBLAS.
// _dequantize_nvfp4 per operand: codes = fp4.view(uint8).to(int64); values = torch.tensor(E2M1 table)
// (a host-to-device copy: the table is in device memory here, no launch); torch.stack((values[codes & 15],
// values[codes >> 4]), -1); scales = scale_fp8.to(fp32) * global_decode; blocked = unpacked * scales.
// Then torch.bmm(dequant_a, dequant_b.transpose(1, 2)) in fp32 without TF32.
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


// codes = fp4.view(torch.uint8).to(torch.int64)
MKB_MAP(codes_to_i64, long long, (const unsigned char *fp4), (int)fp4[i])
// codes & 15, codes >> 4
MKB_MAP(low_nibble, long long, (const long long *codes), codes[i] & 15ll)
MKB_MAP(high_nibble, long long, (const long long *codes), codes[i] >> 4)
// values[index]: the e2m1 table gathered (aten::index)
MKB_MAP(e2m1_lookup, float, (const long long *index), nvfp4::kE2M1[index[i]])
// torch.stack((low, high), dim=-1)
MKB_MAP(stack_pairs, float, (const float *low, const float *high), (i & 1) ? high[i >> 1] : low[i >> 1])
// scale_fp8.to(float32)
MKB_MAP(e4m3_to_f32, float, (const unsigned char *scale), nvfp4::e4m3_value(scale[i]))
// scales * global_decode (a 0-dim tensor)
MKB_MAP(mul_by_scalar, float, (const float *x, const float *scalar), x[i] * scalar[0])
// unpacked.reshape(..., 16) * scales.unsqueeze(-1)
MKB_MAP(mul_blocks, float, (const float *x, const float *scales), x[i] * scales[i >> 4])

/* mkb:plan
# dequant_a: hidden_states [1, 8192, 960] -> [1, 8192, 1920]
scratch codes int64[batch * m * intermediate_size / 2]
scratch nibble int64[batch * m * intermediate_size / 2]
scratch low fp32[batch * m * intermediate_size / 2]
scratch high fp32[batch * m * intermediate_size / 2]
scratch unpacked fp32[batch * m * intermediate_size]
scratch scale32 fp32[batch * m * intermediate_size / 16]
scratch scales fp32[batch * m * intermediate_size / 16]
scratch dequant_a fp32[batch * m * intermediate_size]
scratch dequant_b fp32[batch * hidden_size * intermediate_size]
launch codes_to_i64 grid(ceil_div(batch * m * intermediate_size / 2, 1024)) block(256) args(codes, hidden_states, i64(batch * m * intermediate_size / 2))
launch low_nibble grid(ceil_div(batch * m * intermediate_size / 2, 1024)) block(256) args(nibble, codes, i64(batch * m * intermediate_size / 2))
launch e2m1_lookup grid(ceil_div(batch * m * intermediate_size / 2, 1024)) block(256) args(low, nibble, i64(batch * m * intermediate_size / 2))
launch high_nibble grid(ceil_div(batch * m * intermediate_size / 2, 1024)) block(256) args(nibble, codes, i64(batch * m * intermediate_size / 2))
launch e2m1_lookup grid(ceil_div(batch * m * intermediate_size / 2, 1024)) block(256) args(high, nibble, i64(batch * m * intermediate_size / 2))
launch stack_pairs grid(ceil_div(batch * m * intermediate_size, 1024)) block(256) args(unpacked, low, high, i64(batch * m * intermediate_size))
launch e4m3_to_f32 grid(ceil_div(batch * m * intermediate_size / 16, 1024)) block(256) args(scale32, hidden_states_scale, i64(batch * m * intermediate_size / 16))
launch mul_by_scalar grid(ceil_div(batch * m * intermediate_size / 16, 1024)) block(256) args(scales, scale32, global_decode_scale_input, i64(batch * m * intermediate_size / 16))
launch mul_blocks grid(ceil_div(batch * m * intermediate_size, 1024)) block(256) args(dequant_a, unpacked, scales, i64(batch * m * intermediate_size))
# dequant_b: weight [1, 1920, 960] -> [1, 1920, 1920] (the scratch above is large enough)
launch codes_to_i64 grid(ceil_div(batch * hidden_size * intermediate_size / 2, 1024)) block(256) args(codes, weight, i64(batch * hidden_size * intermediate_size / 2))
launch low_nibble grid(ceil_div(batch * hidden_size * intermediate_size / 2, 1024)) block(256) args(nibble, codes, i64(batch * hidden_size * intermediate_size / 2))
launch e2m1_lookup grid(ceil_div(batch * hidden_size * intermediate_size / 2, 1024)) block(256) args(low, nibble, i64(batch * hidden_size * intermediate_size / 2))
launch high_nibble grid(ceil_div(batch * hidden_size * intermediate_size / 2, 1024)) block(256) args(nibble, codes, i64(batch * hidden_size * intermediate_size / 2))
launch e2m1_lookup grid(ceil_div(batch * hidden_size * intermediate_size / 2, 1024)) block(256) args(high, nibble, i64(batch * hidden_size * intermediate_size / 2))
launch stack_pairs grid(ceil_div(batch * hidden_size * intermediate_size, 1024)) block(256) args(unpacked, low, high, i64(batch * hidden_size * intermediate_size))
launch e4m3_to_f32 grid(ceil_div(batch * hidden_size * intermediate_size / 16, 1024)) block(256) args(scale32, weight_scale, i64(batch * hidden_size * intermediate_size / 16))
launch mul_by_scalar grid(ceil_div(batch * hidden_size * intermediate_size / 16, 1024)) block(256) args(scales, scale32, global_decode_scale_weight, i64(batch * hidden_size * intermediate_size / 16))
launch mul_blocks grid(ceil_div(batch * hidden_size * intermediate_size, 1024)) block(256) args(dequant_b, unpacked, scales, i64(batch * hidden_size * intermediate_size))
matmul c(out) a(dequant_a) b(dequant_b) m(m) n(hidden_size) k(intermediate_size) batch(batch) transpose_b
*/
