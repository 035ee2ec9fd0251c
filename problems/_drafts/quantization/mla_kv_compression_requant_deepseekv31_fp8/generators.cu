// Structured inputs of mla_kv_compression_requant_deepseekv31_fp8, pure functions of (count, seed):
//   kv_a_proj_weight [640, 7168] and kv_b_proj_weight [32768, 512] bf16, drawn as the original's
//   make_inputs draws them:
//     w     = randn(ROWS, COLS, bf16) / sqrt(COLS)                        (bf16 after each op)
//     gain  = rand(ROWS // 128, COLS // 128, bf16) * 1.5 + 0.5           (bf16 after each op)
//     w     = w * gain.repeat_interleave(128, 0).repeat_interleave(128, 1)   (bf16)
//   so every 128 x 128 block has its own magnitude in [0.5, 2). The normal values come from Box-Muller
//   on Philox words (four per group of four elements), the block's uniform from its own counter: 8
//   random bits, k / 256 (the values torch.rand draws in bf16). Dividing by sqrt(COLS) is a multiply
//   by the fp32 reciprocal, as eager PyTorch divides a tensor by a Python scalar on the GPU.
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {

constexpr long long kBlock = 128;
constexpr unsigned kStreamNormal = 31, kStreamGain = 32;

__device__ float block_gain(unsigned long long seed, long long block) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, (unsigned long long)block, kStreamGain);
  const float u = (float)(w.v[0] >> 24) * (1.0f / 256.0f);
  return mkb_ops::round_to<bf16>(mkb_ops::round_to<bf16>(u * 1.5f) + 0.5f);
}

template <long long kCols> __device__ void block_gain_weight(bf16 *w, unsigned long long count, unsigned long long seed) {
  const float inv_sqrt = 1.0f / sqrtf((float)kCols);
  const long long groups = (long long)(count / 4);
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    const mkb_random::u32x4 r = mkb_random::random_words(seed, (unsigned long long)g, kStreamNormal);
    float z[4];
    mkb_random::box_muller(mkb_random::uniform_open(r.v[0]), mkb_random::uniform_open(r.v[1]), &z[0], &z[1]);
    mkb_random::box_muller(mkb_random::uniform_open(r.v[2]), mkb_random::uniform_open(r.v[3]), &z[2], &z[3]);
    for (int j = 0; j < 4; ++j) {
      const long long i = 4 * g + j;
      const long long row = i / kCols, col = i % kCols;
      const float gain = block_gain(seed, (row / kBlock) * (kCols / kBlock) + col / kBlock);
      const float scaled = mkb_ops::round_to<bf16>(mkb_ops::round_to<bf16>(z[j]) * inv_sqrt);
      w[i] = mkb_ops::store<bf16>(scaled * gain);
    }
  }
}

} // namespace

// kv_a_proj_weight [KV_A_OUTPUT_DIM_PADDED, HIDDEN_SIZE]
extern "C" __global__ void gen_kv_a_proj_weight(void *out, unsigned long long count, unsigned long long seed) {
  block_gain_weight<7168>(static_cast<bf16 *>(out), count, seed);
}

// kv_b_proj_weight [KV_B_OUTPUT_DIM, KV_LORA_RANK]
extern "C" __global__ void gen_kv_b_proj_weight(void *out, unsigned long long count, unsigned long long seed) {
  block_gain_weight<512>(static_cast<bf16 *>(out), count, seed);
}
