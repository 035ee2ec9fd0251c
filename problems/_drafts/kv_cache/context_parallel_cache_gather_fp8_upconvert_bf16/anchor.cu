// The float64 anchor of context_parallel_cache_gather_fp8_upconvert_bf16: one 576-thread CTA per
// output row. Thread 0 walks seq_lens to find the row's request and position; thread c < 512 decodes
// e4m3 byte c and multiplies it by its group's fp32 scale in double (no rounding); threads 512..575 widen
// the bf16 rope values. The scale and rope values are assembled from their little-endian bytes.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr int kBlockSize = 64, kEntryBytes = 656, kNope = 512, kGroup = 128, kRopeOffset = 528, kOut = 576;

extern "C" __global__ void __launch_bounds__(kOut)
anchor_gather_upconvert(const unsigned char *cache, const int *block_table, const int *seq_lens, double *gathered,
                        int num_requests, int table_width) {
  __shared__ long long entry;
  const long long row = blockIdx.x;
  if (threadIdx.x == 0) {
    long long first = 0;
    int r = 0;
    while (r < num_requests && row >= first + seq_lens[r]) first += seq_lens[r++];
    const long long p = row - first;
    entry = (long long)block_table[(long long)r * table_width + p / kBlockSize] * kBlockSize + p % kBlockSize;
  }
  __syncthreads();
  const unsigned char *e = cache + entry * kEntryBytes;
  const int c = threadIdx.x;
  double value;
  if (c < kNope) {
    const int g = c / kGroup;
    unsigned bits = 0;
    for (int j = 0; j < 4; ++j) bits |= (unsigned)e[kNope + 4 * g + j] << (8 * j);
    __nv_fp8_e4m3 v;
    v.__x = e[c];
    value = (double)(float)v * (double)__uint_as_float(bits);
  } else {
    const int k = c - kNope;
    const unsigned short bits = (unsigned short)(e[kRopeOffset + 2 * k] | (e[kRopeOffset + 2 * k + 1] << 8));
    value = (double)__bfloat162float(__ushort_as_bfloat16(bits));
  }
  gathered[row * kOut + c] = value;
}

/* mkb:plan
launch anchor_gather_upconvert grid(total_tokens) block(nope_dim + rope_dim)
  args(cache, block_table, seq_lens, gathered, i32(num_requests), i32(max_blocks))
*/
