// Structured inputs of chunk_gated_delta_rule_qwen3next_bf16.
//   beta: the original draws randn(..., dtype=bfloat16).sigmoid(): a normal value rounded to bf16, then
//         the sigmoid computed in fp32 (as PyTorch computes it for a bf16 tensor) and rounded to bf16. Here
//         element i takes its normal from the Philox words of counter i (Box-Muller), so the values are a
//         pure function of (i, seed) and lie in (0, 1).
#include <cuda_bf16.h>
#include "mkb_random.cuh"

extern "C" __global__ void gdn_beta_sigmoid(void *out, unsigned long long count, unsigned long long seed) {
  __nv_bfloat16 *beta = static_cast<__nv_bfloat16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 0x62657461u);
    float z0, z1;
    mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
    const float z = __bfloat162float(__float2bfloat16_rn(z0));
    beta[i] = __float2bfloat16_rn(1.0f / (1.0f + expf(-z)));
  }
}
