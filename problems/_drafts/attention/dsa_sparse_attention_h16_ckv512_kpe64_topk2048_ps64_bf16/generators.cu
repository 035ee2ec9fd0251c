// sparse_indices of dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64_bf16, drawn as the original's
// _draw_sparse_indices draws them:
//   row b selects SELECT_LENS[b] tokens of a context of context_len(b) = LONG_ROW_CONTEXT (2161) for
//   b = LONG_ROW (2), else SELECT_LENS[b] tokens; the row gets ceil(context_len / 64) pages, taken in
//   order from randperm(NUM_PAGES) (rows one after another: row b's pages start at the sum of the
//   earlier rows' page counts);
//   its logical positions are 0 .. SELECT_LENS[b] - 1, except the long row's, which are the
//   concatenation of the LONG_ROW_RUNS (start, length) runs (2048 positions out of 2161);
//   logical position x becomes token pages[x / 64] * 64 + x % 64; the row's tokens are sorted
//   ascending and the rest of the row (up to TOPK = 2048) is -1.
// randperm(NUM_PAGES) is a seeded bijection of [0, NUM_PAGES) (mkb_random::permute_index, a Feistel
// network cycle-walked into range), element i its image of i. One block per row (grid-stride over
// rows), a bitonic sort of 2048 keys in shared memory.
#include "mkb_random.cuh"

namespace {
constexpr int kTopk = 2048, kPageSize = 64, kRows = 62, kLongRow = 2, kLongRowContext = 2161, kRuns = 99;
constexpr unsigned long long kNumPages = 6465;

__constant__ short kSelectLens[kRows] = {
    18, 11, 2048, 20, 25, 45, 135, 7, 8, 10, 22, 17, 11, 30, 130, 9, 600, 255, 1033, 1010, 58, 2, 21, 954, 7, 14, 1015,
    28, 64, 5, 18, 33, 26, 86, 5, 14, 10, 90, 53, 22, 2, 17, 154, 51, 121, 25, 16, 5, 19, 12, 44, 124, 33, 1157, 9, 5,
    1319, 300, 23, 35, 389, 8};
__constant__ short kRunStart[kRuns] = {
    0,    54,   65,   91,   103,  146,  159,  225,  233,  237,  278,  280,  293,  307,  316,  318,  324,  329,  333,  337,
    359,  374,  377,  379,  404,  515,  529,  550,  557,  599,  616,  631,  647,  658,  665,  691,  703,  719,  730,  752,
    774,  801,  830,  838,  850,  852,  865,  884,  890,  892,  894,  904,  916,  927,  940,  946,  970,  978,  985,  1015,
    1021, 1045, 1059, 1097, 1108, 1151, 1153, 1184, 1187, 1219, 1253, 1262, 1366, 1421, 1520, 1540, 1564, 1572, 1604, 1640,
    1662, 1668, 1681, 1688, 1706, 1711, 1725, 1729, 1731, 1736, 1749, 1798, 1869, 1978, 1981, 1992, 1999, 2031, 2056};
__constant__ short kRunLen[kRuns] = {
    53, 10, 25, 11, 42, 12, 65, 7,  3,  40, 1,  12, 13, 8,  1,  5,  4,  3,  3,  21, 14, 1,  1,   24, 110,
    13, 20, 6,  41, 16, 14, 15, 10, 6,  24, 11, 15, 10, 21, 21, 26, 28, 7,  11, 1,  12, 18, 5,   1,  1,
    9,  11, 10, 12, 4,  23, 7,  6,  29, 5,  22, 13, 37, 10, 42, 1,  30, 2,  31, 33, 8,  102, 54, 98,
    19, 23, 7,  31, 35, 21, 4,  10, 4,  15, 4,  13, 3,  1,  3,  12, 47, 70, 108, 2,  9,  6,  31, 24, 105};

__device__ int context_len(int b) { return b == kLongRow ? kLongRowContext : kSelectLens[b]; }
__device__ int pages_of(int b) { return (context_len(b) + kPageSize - 1) / kPageSize; }

// The long row's j-th logical position: the runs concatenated.
__device__ int long_row_position(int j) {
  int acc = 0;
  for (int r = 0; r < kRuns; ++r) {
    if (j < acc + kRunLen[r]) return kRunStart[r] + (j - acc);
    acc += kRunLen[r];
  }
  return -1;  // not reached: the runs hold 2048 positions
}
} // namespace

extern "C" __global__ void __launch_bounds__(256)
dsa_sparse_indices(void *out, unsigned long long count, unsigned long long seed) {
  __shared__ int keys[kTopk];
  int *rows = static_cast<int *>(out);
  const int row_count = (int)(count / kTopk);
  for (int b = blockIdx.x; b < row_count; b += gridDim.x) {
    if (b >= kRows) {  // not reached with the spec's shape; keep every element written
      for (int i = threadIdx.x; i < kTopk; i += blockDim.x) rows[(long long)b * kTopk + i] = -1;
      continue;
    }
    int cursor = 0;
    for (int r = 0; r < b; ++r) cursor += pages_of(r);
    const int n = kSelectLens[b];
    for (int j = threadIdx.x; j < kTopk; j += blockDim.x) {
      int key = 0x7fffffff;
      if (j < n) {
        const int x = b == kLongRow ? long_row_position(j) : j;
        const int page = (int)mkb_random::permute_index((unsigned long long)(cursor + x / kPageSize), kNumPages, seed, 0);
        key = page * kPageSize + x % kPageSize;
      }
      keys[j] = key;
    }
    __syncthreads();
    for (int k = 2; k <= kTopk; k <<= 1)
      for (int j = k >> 1; j > 0; j >>= 1) {
        for (int i = threadIdx.x; i < kTopk; i += blockDim.x) {
          const int p = i ^ j;
          if (p > i) {
            const int a = keys[i], c = keys[p];
            if (((i & k) == 0) == (a > c)) {
              keys[i] = c;
              keys[p] = a;
            }
          }
        }
        __syncthreads();
      }
    for (int j = threadIdx.x; j < kTopk; j += blockDim.x) rows[(long long)b * kTopk + j] = j < n ? keys[j] : -1;
    __syncthreads();
  }
}
