// rstd as the original's make_inputs draws it: variance = rand(B, S, 1) * 1.5 + 0.5 (fp32, uniform in
// [0.5, 2)), rstd = rsqrt(variance + 1e-6) (fp32), so rstd lies in (0.707, 1.414]. The affine's two
// literals are masked in the original; 1.5 and 0.5 are the per-token factor the same benchmark uses in
// problem #38 (spec.json notes).
#include "mkb_random.cuh"

extern "C" __global__ void rstd_from_uniform_variance(void *out, unsigned long long count, unsigned long long seed) {
  float *rstd = static_cast<float *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 0x72737464u);
    const float u = (float)(w.v[0] >> 8) * 0x1p-24f;  // rand: [0, 1)
    rstd[i] = rsqrtf(u * 1.5f + 0.5f + 1e-6f);
  }
}
