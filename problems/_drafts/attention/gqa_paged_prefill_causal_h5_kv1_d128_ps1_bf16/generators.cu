// Structured inputs of the paged prefill: the two fixed indptr arrays (the original's QO_INDPTR and
// KV_INDPTR tuples: every request has 1 to 5 more KV tokens than queries, a cached prefix) and the page
// ids, randperm(NUM_PAGES)[:KV_INDPTR[-1]] in the original: here a seeded bijection of [0, num_pages)
// (mkb_random::permute_index: a Feistel network cycle-walked into range) read at 0 .. count-1, so the
// ids are distinct and change with every draw. Each kernel is a pure function of (count, seed),
// grid-strided.
#include "mkb_random.cuh"

namespace {

constexpr int kBatch = 54;
constexpr unsigned long long kNumPages = 44264;

__constant__ int kQoIndptr[kBatch + 1] = {
    0,    5,    73,   74,   94,   113,  124,  153,  156,  162,  182,  216,  229,  338,  347,  353,  380,  389,  412,
    432,  735,  1002, 1250, 1325, 1373, 1394, 1402, 1406, 1840, 1855, 2171, 2191, 2205, 2222, 2270, 2274, 2286, 2292,
    2441, 2448, 2454, 2462, 3211, 5262, 5269, 5364, 5383, 5531, 5537, 5563, 5636, 5645, 5656, 5708, 10847};
__constant__ int kKvIndptr[kBatch + 1] = {
    0,    7,    76,   79,   100,  122,  134,  166,  170,  178,  200,  235,  250,  364,  376,  383,  414,  424,  448,
    469,  774,  1043, 1293, 1369, 1418, 1440, 1450, 1455, 1890, 1906, 2225, 2246, 2261, 2279, 2328, 2335, 2349, 2357,
    2510, 2519, 2526, 2536, 3289, 5341, 5350, 5449, 5469, 5619, 5626, 5653, 5727, 5737, 5752, 5805, 10945};

__device__ void write_fixed(int *out, unsigned long long count, const int *values, unsigned long long n) {
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = i < n ? values[i] : values[n - 1];
}

} // namespace

extern "C" __global__ void gqa_prefill_qo_indptr(void *out, unsigned long long count, unsigned long long seed) {
  write_fixed(static_cast<int *>(out), count, kQoIndptr, kBatch + 1);
}

extern "C" __global__ void gqa_prefill_kv_indptr(void *out, unsigned long long count, unsigned long long seed) {
  write_fixed(static_cast<int *>(out), count, kKvIndptr, kBatch + 1);
}

extern "C" __global__ void gqa_prefill_kv_indices(void *out, unsigned long long count, unsigned long long seed) {
  int *ids = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    ids[i] = (int)mkb_random::permute_index(i, kNumPages, seed, 0);
}
