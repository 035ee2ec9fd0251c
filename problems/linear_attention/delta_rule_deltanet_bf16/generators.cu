// Structured input of delta_rule_deltanet_bf16.
//   beta: the original draws randn(..., dtype=bf16).sigmoid(): a standard normal rounded to bf16, then
//         the bf16 sigmoid (computed in fp32 as 1 / (1 + exp(-x)), rounded to bf16 once).
// A pure function of (count, seed); 256-thread blocks over a grid-stride loop.
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

extern "C" __global__ void deltanet_beta(void *out, unsigned long long count, unsigned long long seed) {
  bf16 *beta = static_cast<bf16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 1);
    float z0, z1;
    mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
    const float x = mkb_ops::round_to<bf16>(z0);
    beta[i] = mkb_ops::store<bf16>(1.0f / (1.0f + expf(-x)));
  }
}
