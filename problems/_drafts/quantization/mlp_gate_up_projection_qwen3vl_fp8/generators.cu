// The six inputs of mlp_gate_up_projection_qwen3vl_fp8, pure functions of (count, seed). The original's
// make_inputs quantizes three fp32 tensors that are not themselves inputs:
//   x_fp32           = randn(M, HIDDEN_SIZE)                                             fp32
//   gate_weight_fp32 = randn(INTERMEDIATE_SIZE, HIDDEN_SIZE) * HIDDEN_SIZE ** -0.5
//                      * (rand(INTERMEDIATE_SIZE // 128, HIDDEN_SIZE // 128) * 1.5 + 0.5) repeated over
//                      each 128 x 128 block                                              fp32 after each op
//   up_weight_fp32   = the same construction, its own draw
// x in 1 x 128 blocks, the transposed weights in 128 x 128 blocks, each block: amax = max |v|,
// scale = amax * fp32(1/448) (the GPU's division by a Python float), code = e4m3(clamp(v / scale,
// -448, 448)) (IEEE division, nearest even). The inputs are x's codes [M, HIDDEN_SIZE] and scales
// [M, HIDDEN_SIZE / 128]; each weight's codes in the transposed layout [HIDDEN_SIZE, INTERMEDIATE_SIZE]
// and its scales [INTERMEDIATE_SIZE / 128, HIDDEN_SIZE / 128] (the 128 x 128 block scales of the
// transposed weight, transposed back: scale[n / 128, k / 128] scales weight[k, n]).
// A generator gets only its own seed, derive_seed(draw, index); mkb_random::draw_seed recovers the
// draw's seed, so the codes and the scales of one tensor are computed from the same fp32 values. The
// normal values come from Box-Muller on Philox words (four per group of four consecutive elements of
// the fp32 tensor, row-major), a block's gain from its own counter (24 random bits, as torch.rand
// draws fp32).
#include <cuda_fp8.h>
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {

constexpr long long kM = 8704, kHidden = 3584, kInter = 18944;
constexpr int kKBlocks = kHidden / 128;  // 28
// The inputs' positions in the spec (derive_seed's index).
constexpr unsigned long long kIndexX = 0, kIndexScaleX = 1, kIndexGate = 2, kIndexScaleGate = 3, kIndexUp = 4,
                             kIndexScaleUp = 5;
// The virtual fp32 tensors' streams under the draw's seed.
constexpr unsigned kStreamX = 41, kStreamGate = 42, kStreamUp = 43, kStreamGateGain = 44, kStreamUpGain = 45;

__device__ unsigned char e4m3_code(float v, float scale) {
  const float q = fminf(fmaxf(__fdiv_rn(v, scale), -448.0f), 448.0f);
  return (unsigned char)__nv_cvt_float_to_fp8(q, __NV_SATFINITE, __NV_E4M3);
}

// x_fp32 block (m, kb), lane l's four values (columns 128 kb + 4 l ..), the block's scale in *scale.
__device__ void x_block(unsigned long long draw, long long m, int kb, int lane, float (&v)[4], float *scale) {
  const unsigned long long group = ((unsigned long long)m * kHidden + 128ull * kb) / 4 + lane;
  const mkb_random::u32x4 r = mkb_random::random_words(draw, group, kStreamX);
  mkb_random::box_muller(mkb_random::uniform_open(r.v[0]), mkb_random::uniform_open(r.v[1]), &v[0], &v[1]);
  mkb_random::box_muller(mkb_random::uniform_open(r.v[2]), mkb_random::uniform_open(r.v[3]), &v[2], &v[3]);
  float a = fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3])));
  for (int o = 16; o > 0; o >>= 1) a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, o));
  *scale = __fmul_rn(a, 1.0f / 448.0f);
}

// A warp per block of x; the grid-stride loop runs over warps (all 32 lanes of a warp stay together).
template <bool kScales> __device__ void gen_x_impl(void *out, unsigned long long seed, unsigned long long index) {
  const unsigned long long draw = mkb_random::draw_seed(seed, index);
  const int lane = threadIdx.x & 31;
  const long long blocks = kM * kKBlocks;
  for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < blocks;
       w += ((long long)gridDim.x * blockDim.x) >> 5) {
    const long long m = w / kKBlocks;
    const int kb = (int)(w % kKBlocks);
    float v[4], scale;
    x_block(draw, m, kb, lane, v, &scale);
    if (kScales) {
      if (lane == 0) static_cast<float *>(out)[w] = scale;
    } else {
      unsigned char *q = static_cast<unsigned char *>(out) + m * kHidden + 128 * kb + 4 * lane;
      for (int j = 0; j < 4; ++j) q[j] = e4m3_code(v[j], scale);
    }
  }
}

// Weight block (nb, kb) of the [INTER, HIDDEN] fp32 weight, by a 256-thread block: thread t holds
// row 128 nb + t / 2, columns 128 kb + 64 (t & 1) .. + 63. Returns the block's scale (every thread).
__device__ float weight_block(unsigned long long draw, unsigned stream, unsigned gain_stream, int nb, int kb, float (&v)[64]) {
  __shared__ float warp_max[8];
  const int t = threadIdx.x;
  const long long n = 128ll * nb + (t >> 1), k0 = 128ll * kb + 64 * (t & 1);
  const mkb_random::u32x4 gw = mkb_random::random_words(draw, (unsigned long long)nb * kKBlocks + kb, gain_stream);
  const float u = (float)(gw.v[0] >> 8) * (1.0f / 16777216.0f);
  const float gain = __fadd_rn(__fmul_rn(u, 1.5f), 0.5f);
  const float std_ = (float)0.016703827619526525;  // HIDDEN_SIZE ** -0.5 = 3584 ** -0.5, as an fp32 scalar
  float a = 0.0f;
  for (int i = 0; i < 16; ++i) {
    const unsigned long long group = ((unsigned long long)n * kHidden + k0) / 4 + i;
    const mkb_random::u32x4 r = mkb_random::random_words(draw, group, stream);
    float z[4];
    mkb_random::box_muller(mkb_random::uniform_open(r.v[0]), mkb_random::uniform_open(r.v[1]), &z[0], &z[1]);
    mkb_random::box_muller(mkb_random::uniform_open(r.v[2]), mkb_random::uniform_open(r.v[3]), &z[2], &z[3]);
    for (int j = 0; j < 4; ++j) {
      v[4 * i + j] = __fmul_rn(__fmul_rn(z[j], std_), gain);
      a = fmaxf(a, fabsf(v[4 * i + j]));
    }
  }
  for (int o = 16; o > 0; o >>= 1) a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, o));
  if ((t & 31) == 0) warp_max[t >> 5] = a;
  __syncthreads();
  for (int i = 0; i < 8; ++i) a = fmaxf(a, warp_max[i]);
  __syncthreads();  // warp_max is reused by the next block of the loop
  return __fmul_rn(a, 1.0f / 448.0f);
}

// A 256-thread block per weight block; the grid-stride loop runs over blocks (every thread of a block
// takes part in each iteration: the loop bound is the same for all of them).
template <bool kScales>
__device__ void gen_weight_impl(void *out, unsigned long long seed, unsigned long long index, unsigned stream, unsigned gain_stream) {
  const unsigned long long draw = mkb_random::draw_seed(seed, index);
  const int blocks = (int)(kInter / 128) * kKBlocks;
  for (int b = blockIdx.x; b < blocks; b += gridDim.x) {
    const int nb = b / kKBlocks, kb = b % kKBlocks;
    float v[64];
    const float scale = weight_block(draw, stream, gain_stream, nb, kb, v);
    if (kScales) {
      if (threadIdx.x == 0) static_cast<float *>(out)[b] = scale;  // [INTER / 128, HIDDEN / 128]
    } else {
      const int t = threadIdx.x;
      const long long n = 128ll * nb + (t >> 1), k0 = 128ll * kb + 64 * (t & 1);
      unsigned char *q = static_cast<unsigned char *>(out);  // transposed: [HIDDEN, INTER]
      for (int i = 0; i < 64; ++i) q[(k0 + i) * kInter + n] = e4m3_code(v[i], scale);
    }
  }
}

} // namespace

extern "C" __global__ void gen_x(void *out, unsigned long long count, unsigned long long seed) {
  gen_x_impl<false>(out, seed, kIndexX);
}
extern "C" __global__ void gen_scale_x(void *out, unsigned long long count, unsigned long long seed) {
  gen_x_impl<true>(out, seed, kIndexScaleX);
}
extern "C" __global__ void gen_gate_proj_weight(void *out, unsigned long long count, unsigned long long seed) {
  gen_weight_impl<false>(out, seed, kIndexGate, kStreamGate, kStreamGateGain);
}
extern "C" __global__ void gen_scale_gate(void *out, unsigned long long count, unsigned long long seed) {
  gen_weight_impl<true>(out, seed, kIndexScaleGate, kStreamGate, kStreamGateGain);
}
extern "C" __global__ void gen_up_proj_weight(void *out, unsigned long long count, unsigned long long seed) {
  gen_weight_impl<false>(out, seed, kIndexUp, kStreamUp, kStreamUpGain);
}
extern "C" __global__ void gen_scale_up(void *out, unsigned long long count, unsigned long long seed) {
  gen_weight_impl<true>(out, seed, kIndexScaleUp, kStreamUp, kStreamUpGain);
}
