// The eager baseline of mla_cache_gather_dequantize_fp8: the device work of the original's reference()
// as eager PyTorch runs it, one launch per operation, intermediates at eager's dtypes. The reference
// loops over the 8 requests in Python (an .item() sync each); here each operation of the loop body is
// one launch over the concatenated tokens of all requests (token t's request and position found from
// seq_lens on the device), and the final torch.cat is a copy (eager.py keeps the loop).
//   positions = arange(len)                        int64      MKB_MAP
//   logical = div(positions, 16, floor)            int64      MKB_MAP
//   offsets = remainder(positions, 16)             int64      MKB_MAP
//   block_table[request, logical]                  int32      index kernel (4-byte elements)
//   .long()                                        int64      MKB_MAP
//   fp8_cache[physical, offsets]                   e4m3 bytes index kernel (two indices, 1-byte elements)
//   .float()                                       fp32       MKB_MAP
//   * scale                                        fp32       MKB_MAP (scale as 0.1f)
//   torch.cat(pieces)                              fp32       MKB_MAP copy into gathered
// The index kernels keep PyTorch's gpu_index_kernel structure: 128 threads, 4 elements per thread a
// block-width apart, one element per step with its offsets computed from the linear index.
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

namespace mkb_ops {
template <> struct store_as<long long> {
  __device__ static long long from(long long v) { return v; }
  __device__ static long long from(int v) { return v; }
};
} // namespace mkb_ops

namespace {
constexpr int kNumRequests = 8, kBlockSize = 16, kEntry = 576, kTableWidth = 1024;
constexpr int kIndexThreads = 128, kIndexPerThread = 4;

// Request of concatenated token t and the first token of that request.
__device__ __forceinline__ int request_of(const int *seq_lens, long long t, long long *first) {
  long long start = 0;
  int r = 0;
  while (r < kNumRequests - 1 && t >= start + seq_lens[r]) start += seq_lens[r++];
  *first = start;
  return r;
}
__device__ __forceinline__ long long position_of(const int *seq_lens, long long t) {
  long long first;
  request_of(seq_lens, t, &first);
  return t - first;
}
__device__ __forceinline__ float e4m3_to_float(unsigned char byte) {
  __nv_fp8_e4m3 v;
  v.__x = byte;
  return float(v);
}
} // namespace

// positions = torch.arange(length) per request
MKB_MAP(arange_positions, long long, (const int *seq_lens), position_of(seq_lens, i))
// torch.div(positions, BLOCK_SIZE, rounding_mode="floor") (positions >= 0)
MKB_MAP(floor_div, long long, (const long long *x, long long divisor), x[i] / divisor)
// torch.remainder(positions, BLOCK_SIZE)
MKB_MAP(remainder_map, long long, (const long long *x, long long divisor), x[i] % divisor)
// .long()
MKB_MAP(int_to_long, long long, (const int *x), (long long)x[i])
// .float() of the e4m3 bytes
MKB_MAP(e4m3_to_f32, float, (const unsigned char *x), e4m3_to_float(x[i]))
// * scale: fp32 product with the scalar as fp32
MKB_MAP(mul_scalar, float, (const float *x, float scalar), x[i] * scalar)
// torch.cat(pieces, dim=0)
MKB_MAP(copy_f32, float, (const float *x), x[i])

// block_table[request, logical]: index kernel over the tokens, 4-byte elements.
extern "C" __global__ void __launch_bounds__(kIndexThreads)
index_block_table(int *out, const int *block_table, const long long *logical, const int *seq_lens, int n) {
  int idx = blockIdx.x * (kIndexThreads * kIndexPerThread) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kIndexPerThread; ++k) {
    if (idx < n) {
      long long first;
      const int r = request_of(seq_lens, idx, &first);
      out[idx] = block_table[(long long)r * kTableWidth + logical[idx]];
    }
    idx += kIndexThreads;
  }
}

// fp8_cache[physical, offsets]: index kernel over [tokens, 576] one byte at a time.
extern "C" __global__ void __launch_bounds__(kIndexThreads)
index_cache_entries(unsigned char *out, const unsigned char *cache, const long long *physical,
                    const long long *offsets, int n) {
  int idx = blockIdx.x * (kIndexThreads * kIndexPerThread) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kIndexPerThread; ++k) {
    if (idx < n) {
      const int t = idx / kEntry, e = idx - t * kEntry;
      const long long offset = physical[t] * (kBlockSize * kEntry) + offsets[t] * kEntry;
      out[idx] = cache[offset + e];
    }
    idx += kIndexThreads;
  }
}

/* mkb:plan
scratch positions int64[total_tokens]
scratch logical int64[total_tokens]
scratch slot_offsets int64[total_tokens]
scratch physical32 int32[total_tokens]
scratch physical int64[total_tokens]
scratch entries uint8[total_tokens * entry_size]
scratch widened fp32[total_tokens * entry_size]
scratch scaled fp32[total_tokens * entry_size]
launch arange_positions grid(ceil_div(total_tokens, 1024)) block(256) args(positions, seq_lens, i64(total_tokens))
launch floor_div grid(ceil_div(total_tokens, 1024)) block(256) args(logical, positions, i64(block_size), i64(total_tokens))
launch remainder_map grid(ceil_div(total_tokens, 1024)) block(256) args(slot_offsets, positions, i64(block_size), i64(total_tokens))
launch index_block_table grid(ceil_div(total_tokens, 512)) block(128) args(physical32, block_table, logical, seq_lens, i32(total_tokens))
launch int_to_long grid(ceil_div(total_tokens, 1024)) block(256) args(physical, physical32, i64(total_tokens))
launch index_cache_entries grid(ceil_div(total_tokens * entry_size, 512)) block(128)
  args(entries, src_cache, physical, slot_offsets, i32(total_tokens * entry_size))
launch e4m3_to_f32 grid(ceil_div(total_tokens * entry_size, 1024)) block(256) args(widened, entries, i64(total_tokens * entry_size))
launch mul_scalar grid(ceil_div(total_tokens * entry_size, 1024)) block(256) args(scaled, widened, f32(scale), i64(total_tokens * entry_size))
launch copy_f32 grid(ceil_div(total_tokens * entry_size, 1024)) block(256) args(gathered, scaled, i64(total_tokens * entry_size))
*/
