// Structured inputs of multimodal_embedding_projection_qwen3vl_nvfp4, pure functions of (count, seed).
//
// The vision projection weight is an input only in its NVFP4 form. The original draws
//   weight = randn(1, HIDDEN_SIZE, VISION_HIDDEN_SIZE, bf16) / sqrt(VISION_HIDDEN_SIZE)   (bf16 after each op)
// and quantizes it with _quantize_nvfp4 (reference.md): fp32 values; the tensor's amax; the global
// encode scale 2688 / amax (fp32) and the decode scale 1 / encode (fp32); per 16 consecutive elements of a
// row the e4m3 block scale s8 = e4m3(clamp(fp32(block_amax * fp32(1/6)) * encode, +-448)); the e2m1
// codes of clamp(x / fp32(s8 * decode), +-6), round to nearest even, packed two per byte, element 2i in
// the low nibble. Three inputs come from it: the packed codes [1, 8192, 1792] (uint8), the block scales
// [1, 8192, 224] (e4m3) and the decode scale [] (fp32). A generator gets only its own seed,
// derive_seed(draw, index); mkb_random::draw_seed recovers the draw's seed, so the three are computed
// from the same weight. The normal values come from Box-Muller on Philox words (four per group of four
// consecutive elements); dividing by sqrt(K) is a multiply by the fp32 reciprocal, as eager PyTorch does
// on the GPU for a Python scalar divisor.
//
// The weight's amax needs the whole tensor, and a generator has no grid-wide barrier: every block of a
// generator finds it on its own, cheaply. |weight| is a non-decreasing function of |z| and |z| <= r, the
// Box-Muller radius, which is large exactly when the first uniform is small. A block scans the Philox
// words of all pairs and evaluates only the pairs whose first word puts r at 4.995 or more; when the
// largest |z| among them is at least 5 it is the largest of all (every other pair has r <= 4.993). With
// 14.7 M pairs a radius above 5 is missed with probability below 1e-23; then the block evaluates every
// pair (the same answer, slowly).
//
// vision_token_mask [32, 1024] bool: per row, 384 distinct positions uniformly (the original draws
// randperm(SEQ_LEN)[:n] per row with n = min(NUM_VISION_TOKENS, SEQ_LEN) = 384): position p is set when a
// keyed bijection of [0, 1024) (mkb_random::permute_index) maps it below 384.
#include <cuda_fp8.h>
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {

constexpr long long kRows = 8192, kCols = 3584;  // HIDDEN_SIZE, VISION_HIDDEN_SIZE
constexpr long long kGroups = kRows * kCols / 4;  // Philox groups of four elements
constexpr int kSfVec = 16;
constexpr unsigned long long kIndexFp4 = 3, kIndexScale = 4, kIndexDecode = 5;  // spec positions
constexpr unsigned kStreamWeight = 51;
constexpr int kSeq = 1024, kVisionTokens = 384;

// bf16(bf16(z) * fp32(1/sqrt(K))): the weight value of a normal draw z.
__device__ float weight_value(float z) {
  const float inv_sqrt = 1.0f / sqrtf((float)kCols);
  return mkb_ops::round_to<bf16>(mkb_ops::round_to<bf16>(z) * inv_sqrt);
}

__device__ void group_normals(unsigned long long draw, unsigned long long group, float (&z)[4]) {
  const mkb_random::u32x4 r = mkb_random::random_words(draw, group, kStreamWeight);
  mkb_random::box_muller(mkb_random::uniform_open(r.v[0]), mkb_random::uniform_open(r.v[1]), &z[0], &z[1]);
  mkb_random::box_muller(mkb_random::uniform_open(r.v[2]), mkb_random::uniform_open(r.v[3]), &z[2], &z[3]);
}

// The weight's amax (fp32), by the whole block; every thread gets it.
__device__ float weight_amax(unsigned long long draw) {
  __shared__ float warp_max[8];
  __shared__ int found;
  float best = 0.0f;
  for (long long g = threadIdx.x; g < kGroups; g += blockDim.x) {
    const mkb_random::u32x4 r = mkb_random::random_words(draw, (unsigned long long)g, kStreamWeight);
    for (int p = 0; p < 2; ++p) {
      if ((r.v[2 * p] >> 8) < 64u) {  // u1 <= 64 / 2^24: r >= 4.995
        float z0, z1;
        mkb_random::box_muller(mkb_random::uniform_open(r.v[2 * p]), mkb_random::uniform_open(r.v[2 * p + 1]), &z0, &z1);
        best = fmaxf(best, fmaxf(fabsf(z0), fabsf(z1)));
      }
    }
  }
  for (int o = 16; o > 0; o >>= 1) best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, o));
  if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = best;
  __syncthreads();
  best = 0.0f;
  for (int i = 0; i < (int)(blockDim.x >> 5); ++i) best = fmaxf(best, warp_max[i]);
  if (threadIdx.x == 0) found = best >= 5.0f;
  __syncthreads();
  if (!found) {  // never in practice: evaluate every pair
    best = 0.0f;
    for (long long g = threadIdx.x; g < kGroups; g += blockDim.x) {
      float z[4];
      group_normals(draw, (unsigned long long)g, z);
      for (int j = 0; j < 4; ++j) best = fmaxf(best, fabsf(z[j]));
    }
    for (int o = 16; o > 0; o >>= 1) best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, o));
    __syncthreads();
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = best;
    __syncthreads();
    best = 0.0f;
    for (int i = 0; i < (int)(blockDim.x >> 5); ++i) best = fmaxf(best, warp_max[i]);
  }
  return weight_value(best);
}

__device__ float encode_of(float amax) { return amax > 0.0f ? __fdiv_rn(2688.0f, amax) : 1.0f; }

// Block scale and codes of 16-element block b (row b / 224, columns 16 (b % 224) ..).
__device__ unsigned char block_quant(unsigned long long draw, long long b, float encode, float decode, unsigned char (&code)[16]) {
  float v[16], amax = 0.0f;
  const unsigned long long g0 = (unsigned long long)b * 4;  // 16 elements = 4 groups
  for (int i = 0; i < 4; ++i) {
    float z[4];
    group_normals(draw, g0 + i, z);
    for (int j = 0; j < 4; ++j) {
      v[4 * i + j] = weight_value(z[j]);
      amax = fmaxf(amax, fabsf(v[4 * i + j]));
    }
  }
  const float s = fminf(fmaxf(__fmul_rn(__fmul_rn(amax, 1.0f / 6.0f), encode), -448.0f), 448.0f);
  const unsigned char s8 = (unsigned char)__nv_cvt_float_to_fp8(s, __NV_SATFINITE, __NV_E4M3);
  __nv_fp8_e4m3 s8v;
  s8v.__x = s8;
  const float dscale = __fmul_rn(float(s8v), decode);
  for (int j = 0; j < 16; ++j) {
    const float x = fminf(fmaxf(__fdiv_rn(v[j], dscale), -6.0f), 6.0f);
    // round to nearest even on the e2m1 grid (0, 0.5, 1, 1.5, 2, 3, 4, 6), sign in bit 3, -0 for [-0.25, 0)
    const float a = fabsf(x);
    unsigned m = a <= 0.25f ? 0u : a < 0.75f ? 1u : a <= 1.25f ? 2u : a < 1.75f ? 3u : a <= 2.5f ? 4u : a < 3.5f ? 5u : a <= 5.0f ? 6u : 7u;
    code[j] = (unsigned char)(m | (x < 0.0f ? 8u : 0u));
  }
  return s8;
}

} // namespace

// vision_proj_weight_fp4 [1, 8192, 1792] uint8
extern "C" __global__ void gen_weight_fp4(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = mkb_random::draw_seed(seed, kIndexFp4);
  const float encode = encode_of(weight_amax(draw)), decode = __frcp_rn(encode);
  unsigned char *packed = static_cast<unsigned char *>(out);
  const long long blocks = kRows * kCols / kSfVec;
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += (long long)gridDim.x * blockDim.x) {
    unsigned char code[16];
    block_quant(draw, b, encode, decode, code);
    unsigned w[2] = {0u, 0u};
    for (int j = 0; j < 8; ++j) w[j >> 2] |= (unsigned)(code[2 * j] | (code[2 * j + 1] << 4)) << (8 * (j & 3));
    *reinterpret_cast<uint2 *>(packed + b * 8) = make_uint2(w[0], w[1]);
  }
}

// vision_proj_weight_scale [1, 8192, 224] e4m3
extern "C" __global__ void gen_weight_scale(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = mkb_random::draw_seed(seed, kIndexScale);
  const float encode = encode_of(weight_amax(draw)), decode = __frcp_rn(encode);
  unsigned char *scale = static_cast<unsigned char *>(out);
  const long long blocks = kRows * kCols / kSfVec;
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += (long long)gridDim.x * blockDim.x) {
    unsigned char code[16];
    scale[b] = block_quant(draw, b, encode, decode, code);
  }
}

// vision_proj_global_decode [] fp32
extern "C" __global__ void gen_weight_global_decode(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = mkb_random::draw_seed(seed, kIndexDecode);
  const float encode = encode_of(weight_amax(draw));
  if (blockIdx.x == 0 && threadIdx.x == 0) *static_cast<float *>(out) = __frcp_rn(encode);
}

// vision_token_mask [32, 1024] bool
extern "C" __global__ void gen_vision_token_mask(void *out, unsigned long long count, unsigned long long seed) {
  bool *mask = static_cast<bool *>(out);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)count; i += (long long)gridDim.x * blockDim.x)
    mask[i] = mkb_random::permute_index((unsigned long long)(i % kSeq), kSeq, seed, (unsigned long long)(i / kSeq)) < kVisionTokens;
}
