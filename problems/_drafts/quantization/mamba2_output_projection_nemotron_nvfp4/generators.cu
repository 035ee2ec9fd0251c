// Inputs of mamba2_output_projection_nemotron_nvfp4, drawn as the original's make_inputs draws them:
//   x = randn(1, 8192, 1920) in fp32 and weight_fp32 = randn(1, 1920, 1920) / sqrt(1920) (PyTorch on CUDA
//   divides by a Python scalar as a product with the fp32 reciprocal of its fp32 value), each passed
//   through the NVFP4 quantizer of reference.md: packed codes (uint8), e4m3 block scales and the fp32
//   global decode scale, six inputs in the reference's order.
#include <cuda_fp8.h>
#include "mkb_random.cuh"

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

// ---- Drawing a quantized weight (or activation) as the original's make_inputs does:
// w = fp32(z * c) with z ~ N(0, 1) iid, then the NVFP4 quantizer. The packed codes, the block scales
// and the global scale are three inputs with three generators: each redraws the same w from one seed
// (the seed of the codes input, which the other two recompute with mkb_random::draw_seed/input_seed). The global scale needs
// max |w| over the whole tensor, which no generator could reduce: so the maximum is drawn first, from
// its exact law (P(max |z| <= m) = erf(m / sqrt 2)^n), at a uniform position with a random sign, and
// every other element is drawn from N(0, 1) conditioned on |z| < max (Box-Muller, redrawn while
// |z| >= max). That is exactly the joint law of n iid normals, and each generator knows the maximum
// from the seed alone. ----
namespace qgen {
typedef unsigned long long u64;
// The seed of input `index` of the draw in which input `own` got `seed`.
__device__ __forceinline__ u64 sibling_seed(u64 seed, u64 own, u64 index) {
  return mkb_random::input_seed(mkb_random::draw_seed(seed, own), index);
}
constexpr unsigned kStreamMax = 0x6d617821u, kStreamValue = 0x76616c00u;
struct tensor_max {
  u64 position;
  float z;  // the signed standard normal at `position`; every other |z| is below |z|
};
__device__ __forceinline__ tensor_max draw_max(u64 seed, u64 n) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, 0, kStreamMax);
  const double u = ((double)((((u64)w.v[0]) << 21) ^ (w.v[1] >> 11)) + 0.5) * (1.0 / 9007199254740992.0);
  const double tail = -expm1(log(u) / (double)n);  // P(|Z| > max), so that P(max <= m)^n = u
  const float m = (float)(1.4142135623730951 * erfcinv(tail));
  const mkb_random::u32x4 s = mkb_random::random_words(seed, 1, kStreamMax);
  return {mkb_random::bounded(w.v[2], w.v[3], n), (s.v[0] & 1u) ? -m : m};
}
// Element i's standard normal.
__device__ __forceinline__ float element_z(u64 seed, u64 i, const tensor_max &mx) {
  if (i == mx.position) return mx.z;
  const float limit = fabsf(mx.z);
  for (unsigned attempt = 0; attempt < 16; ++attempt) {
    const mkb_random::u32x4 w = mkb_random::random_words(seed, i >> 1, kStreamValue + attempt);
    const unsigned a = (i & 1) ? w.v[2] : w.v[0], b = (i & 1) ? w.v[3] : w.v[1];
    float z0, z1;
    mkb_random::box_muller(mkb_random::uniform_open(a), mkb_random::uniform_open(b), &z0, &z1);
    if (fabsf(z0) < limit) return z0;
  }
  return 0.0f;
}
// One 16-element block (block index blk of a row-major tensor): its fp32 values w = fp32(z * c), its
// scale byte and its 8 packed bytes, with the global scales of the whole tensor.
struct quantized_block {
  unsigned char scale;
  unsigned char bytes[8];
};
__device__ __forceinline__ quantized_block quantize_block(u64 seed, u64 blk, float c, const tensor_max &mx,
                                                          const nvfp4::global_scales &g) {
  float w[16];
  float amax = 0.0f;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    w[j] = __fmul_rn(element_z(seed, blk * 16 + j, mx), c);
    amax = fmaxf(amax, fabsf(w[j]));
  }
  quantized_block q;
  q.scale = nvfp4::block_scale(amax, g.encode);
  const float enc = nvfp4::block_encode(nvfp4::e4m3_value(q.scale), g.decode);
#pragma unroll
  for (int j = 0; j < 8; ++j)
    q.bytes[j] = (unsigned char)(nvfp4::fp4_code(__fmul_rn(w[2 * j], enc)) | (nvfp4::fp4_code(__fmul_rn(w[2 * j + 1], enc)) << 4));
  return q;
}
__device__ __forceinline__ nvfp4::global_scales tensor_scales(const tensor_max &mx, float c) {
  return nvfp4::global_from_amax(__fmul_rn(fabsf(mx.z), c));
}
__device__ __forceinline__ u64 grid_start() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 grid_step() { return (u64)gridDim.x * blockDim.x; }
// The three generators of one quantized tensor of n elements (count: n / 2 bytes, n / 16 scales, 1).
__device__ __forceinline__ void fill_codes(unsigned char *out, u64 count, u64 seed, float c) {
  const u64 n = count * 2;
  const tensor_max mx = draw_max(seed, n);
  const nvfp4::global_scales g = tensor_scales(mx, c);
  for (u64 blk = grid_start(); blk < n / 16; blk += grid_step()) {
    const quantized_block q = quantize_block(seed, blk, c, mx, g);
#pragma unroll
    for (int j = 0; j < 8; ++j) out[blk * 8 + j] = q.bytes[j];
  }
}
__device__ __forceinline__ void fill_scales(unsigned char *out, u64 count, u64 seed, float c) {
  const u64 n = count * 16;
  const tensor_max mx = draw_max(seed, n);
  const nvfp4::global_scales g = tensor_scales(mx, c);
  for (u64 blk = grid_start(); blk < count; blk += grid_step()) out[blk] = quantize_block(seed, blk, c, mx, g).scale;
}
__device__ __forceinline__ void fill_global(float *out, u64 n, u64 seed, float c) {
  if (grid_start() == 0) out[0] = tensor_scales(draw_max(seed, n), c).decode;
}
} // namespace qgen

namespace {
constexpr unsigned long long kRows = 8192, kOut = 1920, kIn = 1920;
// Input positions in spec.json: the codes of x and of the weight carry the seeds their scales share.
constexpr unsigned long long kX = 0, kW = 1;
__device__ __forceinline__ float weight_factor() { return __fdiv_rn(1.0f, (float)sqrt((double)kIn)); }
} // namespace

extern "C" __global__ void gen_hidden_states(void *out, unsigned long long count, unsigned long long seed) {
  qgen::fill_codes(static_cast<unsigned char *>(out), count, seed, 1.0f);
}
extern "C" __global__ void gen_weight(void *out, unsigned long long count, unsigned long long seed) {
  qgen::fill_codes(static_cast<unsigned char *>(out), count, seed, weight_factor());
}
extern "C" __global__ void gen_hidden_states_scale(void *out, unsigned long long count, unsigned long long seed) {
  qgen::fill_scales(static_cast<unsigned char *>(out), count, qgen::sibling_seed(seed, 2, kX), 1.0f);
}
extern "C" __global__ void gen_global_decode_scale_input(void *out, unsigned long long count, unsigned long long seed) {
  qgen::fill_global(static_cast<float *>(out), kRows * kIn, qgen::sibling_seed(seed, 3, kX), 1.0f);
}
extern "C" __global__ void gen_weight_scale(void *out, unsigned long long count, unsigned long long seed) {
  qgen::fill_scales(static_cast<unsigned char *>(out), count, qgen::sibling_seed(seed, 4, kW), weight_factor());
}
extern "C" __global__ void gen_global_decode_scale_weight(void *out, unsigned long long count, unsigned long long seed) {
  qgen::fill_global(static_cast<float *>(out), kOut * kIn, qgen::sibling_seed(seed, 5, kW), weight_factor());
}
