// Structured inputs of gdn_mtp_qwen3next_bf16. Pure functions of (count, seed); 256-thread blocks over a
// grid-stride loop.
//   initial_state_indices: the original draws randperm(POOL_SIZE)[:BATCH_SIZE]: distinct pool slots. Here
//     element i is the image of i under a seeded bijection of [0, 49) (a Feistel network with cycle
//     walking, mkb_random::permute_index), so the 32 values are distinct and change with every draw.
//   A_log, dt_bias: the original's fixed per-head tuples A_LOG and DT_BIAS (the same in every draw).
#include "mkb_random.cuh"

namespace {
constexpr unsigned long long kPoolSize = 49;  // POOL_SIZE
constexpr int kHeads = 16;
__device__ const float kALog[kHeads] = {-1.046875f, -0.5234375f, -1.828125f, -1.15625f, -0.0244140625f, 0.28515625f,
                                        -1.9921875f, -2.0f, 0.11962890625f, 0.3671875f, -1.59375f, -1.34375f,
                                        0.333984375f, -1.640625f, -0.5234375f, -0.2890625f};
__device__ const float kDtBias[kHeads] = {-5.25f, -5.75f, -2.015625f, -3.3125f, -6.25f, -6.65625f, -0.88671875f,
                                          -0.6328125f, -4.8125f, -5.28125f, -1.7578125f, -3.484375f, 2.3125f,
                                          -6.40625f, -6.34375f, -6.75f};

__device__ void write_table(float *out, unsigned long long count, const float *table) {
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = table[i % kHeads];
}
} // namespace

extern "C" __global__ void gdn_mtp_state_indices(void *out, unsigned long long count, unsigned long long seed) {
  int *indices = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    indices[i] = (int)mkb_random::permute_index(i % kPoolSize, kPoolSize, seed, 0);
}

extern "C" __global__ void gdn_mtp_a_log(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  write_table(static_cast<float *>(out), count, kALog);
}

extern "C" __global__ void gdn_mtp_dt_bias(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  write_table(static_cast<float *>(out), count, kDtBias);
}
