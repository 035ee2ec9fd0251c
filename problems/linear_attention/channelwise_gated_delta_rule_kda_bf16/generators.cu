// Structured inputs of channelwise_gated_delta_rule_kda_bf16 (pure functions of (count, seed);
// 256-thread blocks over a grid-stride loop).
//   g:    the original draws (logsigmoid(randn fp32) / GATE_LOGIT_NORMALIZER).to(bf16): a standard normal
//         in fp32, logsigmoid(x) = min(x, 0) - log1p(exp(-|x|)) in fp32, divided by 16 (exact), rounded
//         to bf16 once. Always negative: the per-channel log-decay.
//   beta: randn(..., dtype=bf16).sigmoid(): a normal rounded to bf16, then the bf16 sigmoid (fp32
//         1 / (1 + exp(-x)), rounded to bf16 once).
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {
constexpr float kGateLogitNormalizer = 16.0f;  // GATE_LOGIT_NORMALIZER

__device__ float standard_normal(unsigned long long seed, unsigned long long i) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 1);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return z0;
}
} // namespace

extern "C" __global__ void kda_log_decay(void *out, unsigned long long count, unsigned long long seed) {
  bf16 *g = static_cast<bf16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float x = standard_normal(seed, i);
    const float log_sigmoid = fminf(x, 0.0f) - log1pf(expf(-fabsf(x)));
    g[i] = mkb_ops::store<bf16>(log_sigmoid / kGateLogitNormalizer);
  }
}

extern "C" __global__ void kda_beta(void *out, unsigned long long count, unsigned long long seed) {
  bf16 *beta = static_cast<bf16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float x = mkb_ops::round_to<bf16>(standard_normal(seed, i));
    beta[i] = mkb_ops::store<bf16>(1.0f / (1.0f + expf(-x)));
  }
}
