// Saved forward activations of #35, drawn with the marginal distributions the original's forward pass gives
// them. The harness draws every input on its own (a generator sees only its count and seed), so they cannot
// be computed from this draw's hidden_states and weights: spec.json's notes say so.
#include "mkb_random.cuh"

namespace {
constexpr unsigned long long kHidden = 512; // hidden_size: the LayerNorm's row length
constexpr float kFc1Std = 0.5f;             // std of fc1_output = hidden_states (std 0.5) @ fc1_weight^T

__device__ __forceinline__ float standard_normal(unsigned long long seed, unsigned long long i, unsigned stream) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, i, stream);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return z0;
}
} // namespace

// gelu_output: gelu_tanh(v), v ~ N(0, 0.5^2), the GELU of a value distributed as fc1_output is.
extern "C" __global__ void gelu_of_fc1_like(void *out, unsigned long long count, unsigned long long seed) {
  float *y = static_cast<float *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float v = kFc1Std * standard_normal(seed, i, 0x67656c75u);
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  }
}

// normalized: rows of 512 standard normal values standardized over the row (mean 0, population variance
// 1, statistics in double), as (z - mean) / sqrt(var) of a LayerNorm. One thread per row; the row is drawn
// twice (counter-based, so both passes see the same values) instead of being held in registers.
extern "C" __global__ void standardized_rows(void *out, unsigned long long count, unsigned long long seed) {
  float *y = static_cast<float *>(out);
  const unsigned long long rows = count / kHidden;
  for (unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
       r += (unsigned long long)gridDim.x * blockDim.x) {
    double sum = 0.0, sq = 0.0;
    for (unsigned long long c = 0; c < kHidden; ++c) {
      const double z = standard_normal(seed, r * kHidden + c, 0x6e6f726du);
      sum += z;
      sq += z * z;
    }
    const double mean = sum / kHidden;
    const double rstd = 1.0 / sqrt(sq / kHidden - mean * mean);
    for (unsigned long long c = 0; c < kHidden; ++c)
      y[r * kHidden + c] = (float)((standard_normal(seed, r * kHidden + c, 0x6e6f726du) - mean) * rstd);
  }
}
