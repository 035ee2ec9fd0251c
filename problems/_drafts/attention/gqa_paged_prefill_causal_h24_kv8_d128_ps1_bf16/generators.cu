// Structured inputs of the paged prefill: the two fixed indptr arrays (the original's QO_INDPTR and
// KV_INDPTR tuples) and the page ids, randperm(NUM_PAGES)[:KV_INDPTR[-1]] in the original: here a
// seeded bijection of [0, num_pages) (mkb_random::permute_index: a Feistel network cycle-walked into
// range) read at 0 .. count-1, so the ids are distinct and change with every draw. Each kernel is a
// pure function of (count, seed), grid-strided.
#include "mkb_random.cuh"

namespace {

constexpr int kBatch = 27;
constexpr unsigned long long kNumPages = 77646;

// QO_INDPTR and KV_INDPTR of the original (equal for this workload).
__constant__ int kIndptr[kBatch + 1] = {0,    145,  311,  484,  886,  1222, 1568,  1908,  2250,  2695,
                                        3049, 3595, 4042, 4555, 5093, 5638, 6413,  6974,  7689,  8514,
                                        9110, 10050, 11131, 12281, 13236, 14199, 15449, 16372};

__device__ void write_fixed(int *out, unsigned long long count, const int *values, unsigned long long n) {
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = i < n ? values[i] : values[n - 1];
}

} // namespace

extern "C" __global__ void gqa_prefill_qo_indptr(void *out, unsigned long long count, unsigned long long seed) {
  write_fixed(static_cast<int *>(out), count, kIndptr, kBatch + 1);
}

extern "C" __global__ void gqa_prefill_kv_indptr(void *out, unsigned long long count, unsigned long long seed) {
  write_fixed(static_cast<int *>(out), count, kIndptr, kBatch + 1);
}

extern "C" __global__ void gqa_prefill_kv_indices(void *out, unsigned long long count, unsigned long long seed) {
  int *ids = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    ids[i] = (int)mkb_random::permute_index(i, kNumPages, seed, 0);
}
