// Structured inputs of gdn_varlen_prefill_qwen3next_bf16. Pure functions of (count, seed); 256-thread
// blocks over a grid-stride loop.
//   q, k: the original draws F.normalize(randn(T, 8, 128) fp32, dim=-1).to(bf16): each 128-element row is
//         a standard normal vector divided by its L2 norm in fp32, rounded to bf16 once (unit rows).
//   A_log, dt_bias: the original's fixed per-head tuples A_LOG and DT_BIAS (the same in every draw).
//   cu_seqlens: the original's fixed CU_SEQLENS = (0, 19, 50, 940, 959), int64.
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {
constexpr int kDim = 128, kHeads = 16, kBounds = 5;
__device__ const float kALog[kHeads] = {1.3984375f, 1.203125f, 2.203125f, 0.1474609375f, 1.46875f, -0.6171875f,
                                        1.8125f, -1.359375f, 0.50390625f, 1.03125f, 2.953125f, 1.2890625f,
                                        1.3203125f, 2.109375f, 3.34375f, 1.78125f};
__device__ const float kDtBias[kHeads] = {-2.34375f, -3.421875f, -4.03125f, -1.65625f, -3.25f, 2.046875f, -5.625f,
                                          -2.65625f, -2.375f, -2.984375f, -2.328125f, -4.09375f, -4.25f, -3.71875f,
                                          -4.96875f, -3.578125f};
__device__ const long long kCuSeqlens[kBounds] = {0, 19, 50, 940, 959};

__device__ float standard_normal(unsigned long long seed, unsigned long long i) {
  const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 1);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return z0;
}

__device__ void write_table(float *out, unsigned long long count, const float *table) {
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = table[i % kHeads];
}
} // namespace

// One thread per 128-element row (rows grid-strided): the sum of squares, then the rounded quotients.
extern "C" __global__ void gdn_prefill_unit_rows(void *out, unsigned long long count, unsigned long long seed) {
  bf16 *x = static_cast<bf16 *>(out);
  const unsigned long long rows = count / kDim;
  for (unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
       r += (unsigned long long)gridDim.x * blockDim.x) {
    float sum = 0.0f;
    for (int c = 0; c < kDim; ++c) {
      const float z = standard_normal(seed, r * kDim + c);
      sum += z * z;
    }
    const float denom = fmaxf(sqrtf(sum), 1e-12f);
    for (int c = 0; c < kDim; ++c) x[r * kDim + c] = mkb_ops::store<bf16>(standard_normal(seed, r * kDim + c) / denom);
  }
}

extern "C" __global__ void gdn_prefill_a_log(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  write_table(static_cast<float *>(out), count, kALog);
}

extern "C" __global__ void gdn_prefill_dt_bias(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  write_table(static_cast<float *>(out), count, kDtBias);
}

extern "C" __global__ void gdn_prefill_cu_seqlens(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  long long *bounds = static_cast<long long *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    bounds[i] = i < kBounds ? kCuSeqlens[i] : kCuSeqlens[kBounds - 1];
}
