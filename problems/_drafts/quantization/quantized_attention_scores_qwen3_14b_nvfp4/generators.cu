// attention_mask of quantized_attention_scores_qwen3_14b_nvfp4, as the original's make_inputs builds it:
// zeros [64, 1, 256, 256] in bf16 with torch.finfo(bfloat16).min where the key is after the query
// (triu(ones(256, 256), diagonal=1)). The same every draw.
#include <cuda_bf16.h>

extern "C" __global__ void gen_attention_mask(void *out, unsigned long long count, unsigned long long seed) {
  unsigned short *mask = static_cast<unsigned short *>(out);  // bf16 bits: 0xff7f is the lowest finite bf16
  for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; e < count;
       e += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long key = e % 256, query = (e / 256) % 256;
    mask[e] = key > query ? (unsigned short)0xff7fu : (unsigned short)0u;
  }
}
