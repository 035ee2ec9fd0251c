// Structured inputs of varlen_vision_attention_qwen_image_edit_bf16, the same for every draw (the
// original builds them from its fixed SEQ_SPLITS):
//   cu_seqlens  int64 [28]: cumulative ends of SEQ_SPLITS (lengths.cumsum(0), no leading 0);
//   cos, sin    bf16 [7168, 16, 72]: position p of its sequence (fp32), inv_freq[i] = 1 / 10000^(i / 36)
//               in fp32, angle = p * inv_freq[j % 36] in fp32, cos/sin in fp32, rounded to bf16.
#include <cuda_bf16.h>

namespace {
constexpr int kSequences = 28, kHeads = 16, kHeadDim = 72, kHalf = 36;
__device__ const int kSplits[kSequences] = {255, 85, 425, 170, 680, 85, 170, 340, 85, 510, 170, 255, 85, 340,
                                            170, 425, 85, 255, 170, 85, 170, 510, 340, 170, 255, 170, 85, 623};

__device__ unsigned long long grid_start() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned long long grid_step() { return (unsigned long long)gridDim.x * blockDim.x; }

// The rotary angle of element i of the [tokens, 16, 72] table.
__device__ float rope_angle(unsigned long long i) {
  const int j = (int)(i % kHeadDim);
  long long token = (long long)(i / ((unsigned long long)kHeads * kHeadDim));
  for (int s = 0; s < kSequences && token >= kSplits[s]; ++s) token -= kSplits[s];
  const float position = (float)token;
  const float exponent = (float)(j % kHalf) / (float)kHalf;
  const float inv_freq = 1.0f / powf(10000.0f, exponent);
  return position * inv_freq;
}
} // namespace

extern "C" __global__ void gen_cu_seqlens(void *out, unsigned long long count, unsigned long long seed) {
  long long *cu = static_cast<long long *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    long long end = 0;
    for (unsigned long long s = 0; s <= i % kSequences; ++s) end += kSplits[s];
    cu[i] = end;
  }
}

extern "C" __global__ void gen_rope_cos(void *out, unsigned long long count, unsigned long long seed) {
  __nv_bfloat16 *table = static_cast<__nv_bfloat16 *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) table[i] = __float2bfloat16_rn(cosf(rope_angle(i)));
}

extern "C" __global__ void gen_rope_sin(void *out, unsigned long long count, unsigned long long seed) {
  __nv_bfloat16 *table = static_cast<__nv_bfloat16 *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) table[i] = __float2bfloat16_rn(sinf(rope_angle(i)));
}
