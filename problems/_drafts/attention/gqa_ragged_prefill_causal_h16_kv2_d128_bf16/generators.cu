// The two index arrays of the workload, fixed as in the original's make_inputs: the request lengths
// are the original's Q_LENS (query tokens per request, from the captured workload) and PREFIX_LENS
// (cached-prefix tokens per request, authored). Every draw gets the same values; the seed is unused.
//   qo_indptr[b] = Q_LENS[0] + ... + Q_LENS[b-1]
//   kv_indptr[b] = (Q_LENS[0] + PREFIX_LENS[0]) + ... + (Q_LENS[b-1] + PREFIX_LENS[b-1])
namespace {

constexpr int kRequests = 71;

__device__ const int kQLens[kRequests] = {
    133, 181, 9, 8, 14, 43, 24, 29, 2383, 2678, 314, 14, 420, 134, 4, 15, 43, 2024, 23, 1618, 1086, 300, 49, 7,
    340, 422, 1, 68, 18, 7, 74, 3, 20, 21, 12, 31, 3, 7, 21, 40, 14, 107, 11, 6, 30, 9, 26, 24, 301, 266, 247, 75,
    49, 23, 9, 4, 441, 15, 349, 27, 14, 17, 54, 6, 13, 8, 147, 8, 7, 9, 730};

__device__ const int kPrefixLens[kRequests] = {
    0, 64, 17, 39, 5, 58, 26, 44, 11, 0, 33, 61, 8, 22, 49, 0, 14, 55, 30, 3, 41, 64, 19, 7, 36, 0, 52, 24,
    60, 13, 28, 46, 1, 0, 57, 20, 35, 9, 63, 42, 16, 0, 50, 27, 4, 38, 59, 23, 12, 45, 0, 31, 54, 18, 6, 40,
    62, 29, 15, 48, 0, 34, 21, 51, 10, 56, 2, 43, 25, 37, 0};

// Entry i of the prefix sum of the lengths (with the prefixes when with_prefix); entries past the
// last request repeat the total, so that any count is filled.
__device__ int indptr_at(unsigned long long i, bool with_prefix) {
  int sum = 0;
  for (int b = 0; b < kRequests && (unsigned long long)b < i; ++b) sum += kQLens[b] + (with_prefix ? kPrefixLens[b] : 0);
  return sum;
}

} // namespace

extern "C" __global__ void gqa_ragged_h16_qo_indptr(void *out, unsigned long long count, unsigned long long seed) {
  int *p = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = indptr_at(i, false);
}

extern "C" __global__ void gqa_ragged_h16_kv_indptr(void *out, unsigned long long count, unsigned long long seed) {
  int *p = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    p[i] = indptr_at(i, true);
}
