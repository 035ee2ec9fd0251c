// The float64 anchor of mla_cache_gather_dequantize_fp8: one 576-thread CTA per output row. Thread 0
// walks seq_lens to find the row's request and position, then every thread decodes one e4m3 byte of
// the entry to double (an exact conversion) and multiplies by scale in double.
#include <cuda_fp8.h>

constexpr int kBlockSize = 16, kEntry = 576;

extern "C" __global__ void __launch_bounds__(kEntry)
anchor_gather(const unsigned char *src_cache, const int *block_table, const int *seq_lens, double *gathered,
              int num_requests, int table_width, double scale) {
  __shared__ long long entry;
  const long long row = blockIdx.x;
  if (threadIdx.x == 0) {
    long long first = 0;
    int r = 0;
    while (r < num_requests && row >= first + seq_lens[r]) first += seq_lens[r++];
    const long long p = row - first;  // position inside request r
    const long long block = block_table[(long long)r * table_width + p / kBlockSize];
    entry = block * kBlockSize + p % kBlockSize;
  }
  __syncthreads();
  __nv_fp8_e4m3 v;
  v.__x = src_cache[entry * kEntry + threadIdx.x];
  gathered[row * kEntry + threadIdx.x] = (double)(float)v * scale;
}

/* mkb:plan
launch anchor_gather grid(total_tokens) block(entry_size)
  args(src_cache, block_table, seq_lens, gathered, i32(num_requests), i32(num_blocks), f64(scale))
*/
