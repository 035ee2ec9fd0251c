// Structured inputs of gqa_paged_decode_h5_kv1_d128_ps1_bf16.
//   kv_indptr:  the original's fixed KV_INDPTR tuple (the same in every draw).
//   kv_indices: the original draws randperm(NUM_PAGES)[:KV_INDPTR[-1]], distinct page ids; here element i
//               is the image of i under a seeded bijection of [0, NUM_PAGES) (a Feistel network with
//               cycle walking, mkb_random::permute_index), so the first `count` values are distinct.
// Both are pure functions of (count, seed); 256-thread blocks over a grid-stride loop.
#include "mkb_random.cuh"

namespace {

constexpr unsigned long long kNumPages = 53173;  // NUM_PAGES
constexpr int kIndptrLength = 64;                // len(KV_INDPTR)

__device__ const int kKvIndptr[kIndptrLength] = {
    0, 20, 28, 98, 102, 124, 147, 160, 193, 198, 207, 230, 266,
    282, 397, 410, 418, 450, 461, 486, 508, 814, 1084, 1335, 1412, 1462,
    1485, 1496, 1502, 1938, 1955, 2275, 2297, 2313, 2332, 2382, 2390, 2405, 2414,
    2568, 2578, 2586, 2597, 4650, 4660, 4760, 4781, 4932, 4940, 4968, 5043, 5054,
    5070, 5124, 10265, 15933, 15946, 16069, 16081, 17894, 19017, 19040, 19118, 19134};

} // namespace

extern "C" __global__ void gqa_decode_kv_indptr(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  int *indptr = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    indptr[i] = i < kIndptrLength ? kKvIndptr[i] : kKvIndptr[kIndptrLength - 1];
}

extern "C" __global__ void gqa_decode_kv_indices(void *out, unsigned long long count, unsigned long long seed) {
  int *indices = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    indices[i] = (int)mkb_random::permute_index(i, kNumPages, seed, 0);
}
