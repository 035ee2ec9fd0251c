// Structured inputs of gqa_paged_decode_h32_kv8_d128_ps64_bf16.
//   kv_indptr:        the original's fixed KV_INDPTR tuple, in pages (the same in every draw).
//   kv_indices:       the original draws randperm(NUM_PAGES)[:KV_INDPTR[-1]], distinct page ids; here element i
//                     is the image of i under a seeded bijection of [0, NUM_PAGES) (a Feistel network with
//                     cycle walking, mkb_random::permute_index), so the first `count` values are distinct.
//   kv_last_page_len: the original's fixed KV_LAST_PAGE_LEN tuple: 1 for every request.
// All are pure functions of (count, seed); 256-thread blocks over a grid-stride loop.
#include "mkb_random.cuh"

namespace {

constexpr unsigned long long kNumPages = 29441;  // NUM_PAGES
constexpr int kIndptrLength = 65;                // len(KV_INDPTR)

__device__ const int kKvIndptr[kIndptrLength] = {
    0, 46, 75, 149, 252, 534, 562, 591, 608, 670, 692, 712, 771,
    786, 810, 841, 1193, 1275, 3349, 5940, 6987, 8811, 10637, 11618, 12695, 13716,
    13747, 13956, 13981, 14014, 14041, 14083, 14103, 14131, 14167, 14189, 14613, 14758, 14951,
    14972, 14992, 15018, 15073, 15109, 15150, 17537, 20213, 20539, 20565, 20969, 21115, 21131,
    21158, 21213, 23212, 23247, 24874, 25967, 26278, 26339, 26358, 26710, 27130, 27143, 27222};

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

// KV_LAST_PAGE_LEN = (1,) * 64.
extern "C" __global__ void gqa_decode_kv_last_page_len(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  int *last = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    last[i] = 1;
}
