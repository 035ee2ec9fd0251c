// The eager baseline of context_parallel_cache_gather_fp8_upconvert_bf16: the device work of the
// original's reference() as eager PyTorch runs it, one launch per operation, intermediates at eager's
// dtypes. The reference loops over the 3 requests in Python (an .item() sync each); here each operation
// of the loop body is one launch over the concatenated tokens of all requests (token t's request and
// position found from seq_lens on the device), and the final torch.cat is a copy (eager.py keeps the loop).
//   positions = arange(len); logical = div(positions, 64, floor); offsets = remainder(positions, 64)
//   block_table[request, logical] (index kernel, int32) ; .long()
//   entries = cache[physical, offsets]               index kernel, [T, 656] bytes, one byte per element
//   entries[:, :512].contiguous()                    uint8 [T, 512]
//   entries[:, 512:528].contiguous()                 uint8 [T, 16], viewed as fp32 [T, 4]
//   for g in 0..3: fp8[:, 128g:128g+128].float()     fp32 [T, 128]
//                  * scales[:, g:g+1]                fp32 [T, 128]
//                  .to(bfloat16)                     bf16 [T, 128]
//   torch.cat(nope_parts, -1)                        bf16 [T, 512]
//   entries[:, 528:].contiguous()                    uint8 [T, 128], viewed as bf16 [T, 64]
//   torch.cat((nope, rope), -1)                      bf16 [T, 576]
//   torch.cat(outputs, 0)                            bf16 [T, 576] into gathered
// The index kernels keep PyTorch's gpu_index_kernel structure (128 threads, 4 elements per thread a
// block-width apart, one element per step); the other operations are MKB_MAP launches.
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

namespace mkb_ops {
template <> struct store_as<long long> {
  __device__ static long long from(long long v) { return v; }
};
template <> struct store_as<unsigned char> {
  __device__ static unsigned char from(unsigned char v) { return v; }
};
} // namespace mkb_ops

namespace {
constexpr int kNumRequests = 3, kBlockSize = 64, kEntryBytes = 656, kTableWidth = 10;
constexpr int kNope = 512, kGroup = 128, kScaleBytes = 16, kRopeOffset = 528, kRopeBytes = 128, kRope = 64;
constexpr int kOut = kNope + kRope;
constexpr int kIndexThreads = 128, kIndexPerThread = 4;

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

MKB_MAP(arange_positions, long long, (const int *seq_lens), position_of(seq_lens, i))
MKB_MAP(floor_div, long long, (const long long *x, long long divisor), x[i] / divisor)
MKB_MAP(remainder_map, long long, (const long long *x, long long divisor), x[i] % divisor)
MKB_MAP(int_to_long, long long, (const int *x), (long long)x[i])
// entries[:, first:first+width].contiguous(): a strided byte copy out of the [T, 656] entries
MKB_MAP(copy_columns, unsigned char, (const unsigned char *entries, int first, int width),
        entries[(i / width) * kEntryBytes + first + i % width])
// fp8[:, 128g:128g+128].float(): column slice of the [T, 512] e4m3 bytes
MKB_MAP(group_to_f32, float, (const unsigned char *fp8, int group),
        e4m3_to_float(fp8[(i / kGroup) * kNope + group * kGroup + i % kGroup]))
// * scales[:, g:g+1]: the [T, 4] fp32 view of the scale bytes, broadcast over the group
MKB_MAP(mul_group_scale, float, (const float *x, const float *scales, int group), x[i] * scales[(i / kGroup) * 4 + group])
MKB_MAP(f32_to_bf16, bf16, (const float *x), x[i])
// torch.cat of the four [T, 128] groups along the last dim (one batched-copy launch)
MKB_MAP(cat_groups, bf16, (const bf16 *g0, const bf16 *g1, const bf16 *g2, const bf16 *g3),
        f32(((i % kNope) / kGroup == 0 ? g0 : (i % kNope) / kGroup == 1 ? g1 : (i % kNope) / kGroup == 2 ? g2 : g3)
                [(i / kNope) * kGroup + i % kGroup]))
// torch.cat((nope [T, 512], rope [T, 64]), -1)
MKB_MAP(cat_nope_rope, bf16, (const bf16 *nope, const bf16 *rope),
        f32(i % kOut < kNope ? nope[(i / kOut) * kNope + i % kOut] : rope[(i / kOut) * kRope + i % kOut - kNope]))
// torch.cat(outputs, dim=0)
MKB_MAP(copy_bf16, bf16, (const bf16 *x), f32(x[i]))

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

// cache[physical, offsets]: index kernel over [T, 656] bytes, one byte per element.
extern "C" __global__ void __launch_bounds__(kIndexThreads)
index_cache_entries(unsigned char *out, const unsigned char *cache, const long long *physical,
                    const long long *offsets, int n) {
  int idx = blockIdx.x * (kIndexThreads * kIndexPerThread) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kIndexPerThread; ++k) {
    if (idx < n) {
      const int t = idx / kEntryBytes, e = idx - t * kEntryBytes;
      const long long offset = physical[t] * (kBlockSize * kEntryBytes) + offsets[t] * kEntryBytes;
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
scratch entries uint8[total_tokens * entry_bytes]
scratch fp8_bytes uint8[total_tokens * nope_dim]
scratch scale_bytes uint8[total_tokens * num_groups * 4]
scratch widened fp32[total_tokens * group_size]
scratch scaled fp32[total_tokens * group_size]
scratch widened1 fp32[total_tokens * group_size]
scratch scaled1 fp32[total_tokens * group_size]
scratch widened2 fp32[total_tokens * group_size]
scratch scaled2 fp32[total_tokens * group_size]
scratch widened3 fp32[total_tokens * group_size]
scratch scaled3 fp32[total_tokens * group_size]
scratch part0 bf16[total_tokens * group_size]
scratch part1 bf16[total_tokens * group_size]
scratch part2 bf16[total_tokens * group_size]
scratch part3 bf16[total_tokens * group_size]
scratch nope bf16[total_tokens * nope_dim]
scratch rope_bytes uint8[total_tokens * rope_dim * 2]
scratch joined bf16[total_tokens * (nope_dim + rope_dim)]
launch arange_positions grid(ceil_div(total_tokens, 1024)) block(256) args(positions, seq_lens, i64(total_tokens))
launch floor_div grid(ceil_div(total_tokens, 1024)) block(256) args(logical, positions, i64(block_size), i64(total_tokens))
launch remainder_map grid(ceil_div(total_tokens, 1024)) block(256) args(slot_offsets, positions, i64(block_size), i64(total_tokens))
launch index_block_table grid(ceil_div(total_tokens, 512)) block(128) args(physical32, block_table, logical, seq_lens, i32(total_tokens))
launch int_to_long grid(ceil_div(total_tokens, 1024)) block(256) args(physical, physical32, i64(total_tokens))
launch index_cache_entries grid(ceil_div(total_tokens * entry_bytes, 512)) block(128)
  args(entries, cache, physical, slot_offsets, i32(total_tokens * entry_bytes))
launch copy_columns grid(ceil_div(total_tokens * nope_dim, 1024)) block(256)
  args(fp8_bytes, entries, i32(0), i32(nope_dim), i64(total_tokens * nope_dim))
launch copy_columns grid(ceil_div(total_tokens * num_groups * 4, 1024)) block(256)
  args(scale_bytes, entries, i32(nope_dim), i32(num_groups * 4), i64(total_tokens * num_groups * 4))
launch group_to_f32 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(widened, fp8_bytes, i32(0), i64(total_tokens * group_size))
launch mul_group_scale grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(scaled, widened, scale_bytes, i32(0), i64(total_tokens * group_size))
launch f32_to_bf16 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(part0, scaled, i64(total_tokens * group_size))
launch group_to_f32 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(widened1, fp8_bytes, i32(1), i64(total_tokens * group_size))
launch mul_group_scale grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(scaled1, widened1, scale_bytes, i32(1), i64(total_tokens * group_size))
launch f32_to_bf16 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(part1, scaled1, i64(total_tokens * group_size))
launch group_to_f32 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(widened2, fp8_bytes, i32(2), i64(total_tokens * group_size))
launch mul_group_scale grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(scaled2, widened2, scale_bytes, i32(2), i64(total_tokens * group_size))
launch f32_to_bf16 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(part2, scaled2, i64(total_tokens * group_size))
launch group_to_f32 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(widened3, fp8_bytes, i32(3), i64(total_tokens * group_size))
launch mul_group_scale grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(scaled3, widened3, scale_bytes, i32(3), i64(total_tokens * group_size))
launch f32_to_bf16 grid(ceil_div(total_tokens * group_size, 1024)) block(256) args(part3, scaled3, i64(total_tokens * group_size))
launch cat_groups grid(ceil_div(total_tokens * nope_dim, 1024)) block(256) args(nope, part0, part1, part2, part3, i64(total_tokens * nope_dim))
launch copy_columns grid(ceil_div(total_tokens * rope_dim * 2, 1024)) block(256)
  args(rope_bytes, entries, i32(nope_dim + num_groups * 4), i32(rope_dim * 2), i64(total_tokens * rope_dim * 2))
launch cat_nope_rope grid(ceil_div(total_tokens * (nope_dim + rope_dim), 1024)) block(256)
  args(joined, nope, rope_bytes, i64(total_tokens * (nope_dim + rope_dim)))
launch copy_bf16 grid(ceil_div(total_tokens * (nope_dim + rope_dim), 1024)) block(256)
  args(gathered, joined, i64(total_tokens * (nope_dim + rope_dim)))
*/
