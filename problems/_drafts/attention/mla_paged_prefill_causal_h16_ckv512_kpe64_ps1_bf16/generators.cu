// Structured inputs of mla_paged_prefill_causal_h16_ckv512_kpe64_ps1_bf16.
//   qo_indptr:  the original's fixed QO_INDPTR tuple (28 sequences, 1954 query tokens).
//   kv_indptr:  the original's fixed KV_INDPTR tuple (2044 cached tokens; each sequence's KV is its
//               query tokens plus a prefix of 1 to 8 tokens).
//   kv_indices: randperm(NUM_PAGES)[:2044] as the original draws it: element i is the image of i under
//               a seeded bijection of [0, NUM_PAGES) (a Feistel network cycle-walked into range,
//               mkb_random::permute_index): distinct pages spread over the whole pool.
#include "mkb_random.cuh"

namespace {
constexpr unsigned long long kNumPages = 989669;
__constant__ int kQoIndptr[29] = {0,   20,  31,  114, 128, 164, 173,  190,  327,  423,  456,  460,  499,  520, 602,
                                  603, 613, 1033, 1061, 1081, 1142, 1532, 1581, 1757, 1823, 1832, 1864, 1943, 1954};
__constant__ int kKvIndptr[29] = {0,   23,  38,   123,  141,  180,  191,  212,  353,  452,  488,  494,  538,  561, 651,
                                  655, 669, 1092, 1122, 1145, 1209, 1602, 1655, 1835, 1905, 1917, 1951, 2032, 2044};
} // namespace

extern "C" __global__ void mla_prefill_qo_indptr(void *out, unsigned long long count, unsigned long long seed) {
  int *p = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count && i < 29;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = kQoIndptr[i];
}

extern "C" __global__ void mla_prefill_kv_indptr(void *out, unsigned long long count, unsigned long long seed) {
  int *p = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count && i < 29;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = kKvIndptr[i];
}

extern "C" __global__ void mla_prefill_kv_indices(void *out, unsigned long long count, unsigned long long seed) {
  int *p = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = (int)mkb_random::permute_index(i, kNumPages, seed, 0);
}
