// The float64 anchor: both operands dequantized exactly (an e2m1 value times an e4m3 scale times the fp32
// global decode scale is exact in fp64), then one fp64 matmul (cuBLAS DGEMM).
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

// out[i] = e2m1(code i) * scale[i / 16] * global_decode, element 2j of a row in the low nibble of byte j.
extern "C" __global__ void dequantize_f64(double *__restrict__ out, const unsigned char *__restrict__ codes,
                                          const unsigned char *__restrict__ scales, const float *__restrict__ global_decode,
                                          long long n) {
  const double g = global_decode[0];
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const unsigned byte = codes[i >> 1], code = (i & 1) ? byte >> 4 : byte & 15u;
    out[i] = (double)nvfp4::kE2M1[code] * (double)nvfp4::e4m3_value(scales[i >> 4]) * g;
  }
}

/* mkb:plan
scratch a fp64[batch * m * intermediate_size]
scratch b fp64[batch * hidden_size * intermediate_size]
launch dequantize_f64 grid(ceil_div(batch * m * intermediate_size, 256)) block(256)
  args(a, hidden_states, hidden_states_scale, global_decode_scale_input, i64(batch * m * intermediate_size))
launch dequantize_f64 grid(ceil_div(batch * hidden_size * intermediate_size, 256)) block(256)
  args(b, weight, weight_scale, global_decode_scale_weight, i64(batch * hidden_size * intermediate_size))
matmul c(out) a(a) b(b) m(m) n(hidden_size) k(intermediate_size) batch(batch) transpose_b
*/
