// Structured inputs of mla_paged_decode_h16_ckv512_kpe64_ps1_bf16.
//   kv_indptr:  the original's fixed KV_INDPTR tuple (64 sequences, 75145 tokens).
//   kv_indices: randperm(NUM_PAGES)[:75145] as the original draws it: element i is the image of i under
//               a seeded bijection of [0, NUM_PAGES) (a Feistel network cycle-walked into range,
//               mkb_random::permute_index), so the pages are distinct and uniformly placed over the pool.
#include "mkb_random.cuh"

namespace {
constexpr unsigned long long kNumPages = 989669;
__constant__ int kKvIndptr[65] = {
    0,     537,   1051,  1689,  2199,  3771,  5311,  6904,  8494,  11155, 13258, 15676, 24873, 25427, 25946, 27825, 28517,
    29331, 30010, 30680, 31220, 31736, 32254, 32866, 33378, 36677, 37310, 37846, 38896, 39415, 39983, 40641, 41155,
    41689, 42417, 43059, 43975, 45419, 47001, 48634, 50171, 51682, 52311, 53407, 54908, 56394, 57906, 58425, 58975,
    59915, 60483, 61003, 64016, 64571, 65094, 66520, 67099, 67743, 68267, 68784, 69317, 70745, 72061, 73455, 75145};
} // namespace

extern "C" __global__ void mla_decode_kv_indptr(void *out, unsigned long long count, unsigned long long seed) {
  int *p = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count && i < 65;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = kKvIndptr[i];
}

extern "C" __global__ void mla_decode_kv_indices(void *out, unsigned long long count, unsigned long long seed) {
  int *p = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = (int)mkb_random::permute_index(i, kNumPages, seed, 0);
}
