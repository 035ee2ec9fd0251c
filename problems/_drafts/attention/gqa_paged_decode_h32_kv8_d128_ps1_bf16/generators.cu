// Structured inputs of gqa_paged_decode_h32_kv8_d128_ps1_bf16.
//   kv_indptr:  the original's fixed KV_INDPTR tuple (the same in every draw).
//   kv_indices: the original draws randperm(NUM_PAGES)[:KV_INDPTR[-1]], distinct page ids; here element i
//               is the image of i under a seeded bijection of [0, NUM_PAGES) (a Feistel network with
//               cycle walking, mkb_random::permute_index), so the first `count` values are distinct.
// Both are pure functions of (count, seed); 256-thread blocks over a grid-stride loop.
#include "mkb_random.cuh"

namespace {

constexpr unsigned long long kNumPages = 68237;  // NUM_PAGES
constexpr int kIndptrLength = 65;                // len(KV_INDPTR)

__device__ const int kKvIndptr[kIndptrLength] = {
    0,     542,   1067,  1637,  2236,  3014,  3538,  4063,  4576,  5134,  5652,  6168,  6723,
    7234,  7754,  8281,  9129,  9707,  12277, 15364, 16907, 19227, 21549, 23026, 24599, 26116,
    26643, 27348, 27869, 28398, 28921, 29459, 29975, 30499, 31031, 31549, 32469, 33110, 33799,
    34316, 34832, 35354, 35905, 36437, 36974, 39857, 43029, 43851, 44373, 45273, 45915, 46427,
    46950, 47501, 49996, 50527, 52650, 54239, 55046, 55603, 56118, 56966, 57882, 58391, 58966};

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
