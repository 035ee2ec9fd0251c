// The eager baseline of hybrid_kv_group_block_table_update_slot_mapping_int32_int64: the device work of
// the original's reference() as eager PyTorch runs it, one launch per eager operation, intermediates at
// eager's dtypes. The reference is Python loops (3 groups x 128 writes, then 64 batch entries x 3
// groups) with .item() syncs; eager.py keeps them. Here each operation of a loop body is one launch over
// all iterations of the loop (per group, as the Python loop over groups is unrolled):
//   staged writes of group g (expansion e):
//     staged_ids[g, w, :count].long()                 int64   ids_to_long
//     g = 1: arange(e); ids[:, None] * e; + offsets   int64   arange_map, mul_scalar_i64, add_expansion
//     block_ids.to(int32)                             int32   long_to_int
//     table[r, start:start + n] = block_ids           int32   table_write: one warp per request replays that
//                                                             request's writes in order, the start taken from
//                                                             the running count as the host computed it
//     counts[g, r] = start + n                        int32   counts_fill
//   slot mapping:
//     torch.full((3, 4096), -1)                       int64   fill_i64
//     per group: div(p, k, floor), remainder(p, k)    int64   floor_div, remainder_map
//                table[r, logical]                    int32   index_table (PyTorch's index-kernel structure)
//                .long(), * k, + offsets              int64   int_to_long, mul_scalar_i64, add_i64
//                slot_mappings[g, s:t] = ...          int64   copy_slots (the tokens of every batch entry)
// A token's batch entry is found from query_start_loc on the device. The tables and num_blocks are the
// outputs' buffers (in place).
#include "mkb_ops.cuh"

namespace mkb_ops {
template <> struct store_as<long long> {
  __device__ static long long from(long long v) { return v; }
};
} // namespace mkb_ops

namespace {
constexpr int kRequests = 64, kWrites = 128, kCapacity = 4;
constexpr int kIndexThreads = 128, kIndexPerThread = 4;

// The batch entry of token t: the number of boundaries query_start_loc[1..64] at or below t.
__device__ __forceinline__ int entry_of(const int *query_start_loc, int t) {
  int b = 0;
  for (int k = 1; k <= kRequests; ++k) b += query_start_loc[k] <= t;
  return b;
}
} // namespace

// staged_ids[g].long(): group g's [128, 4] slice starts at element `first`
MKB_MAP(ids_to_long, long long, (const int *ids, long long first), (long long)ids[first + i])
MKB_MAP(arange_map, long long, (int unused), i)
MKB_MAP(mul_scalar_i64, long long, (const long long *x, long long scalar), x[i] * scalar)
// raw_ids[:, None] * e + offsets[None, :], reshaped to [w * capacity * e]
MKB_MAP(add_expansion, long long, (const long long *scaled, const long long *offsets, int expansion),
        scaled[i / expansion] + offsets[i % expansion])
MKB_MAP(long_to_int, int, (const long long *x), x[i])
MKB_MAP(fill_i64, long long, (long long value), value)
MKB_MAP(floor_div, long long, (const long long *x, long long divisor), x[i] / divisor)
MKB_MAP(remainder_map, long long, (const long long *x, long long divisor), x[i] % divisor)
MKB_MAP(int_to_long, long long, (const int *x), (long long)x[i])
MKB_MAP(add_i64, long long, (const long long *a, const long long *b), a[i] + b[i])

// table[r, start:start + n] = block_ids for every write of group g, in write order per request: one warp
// per request row; lane j copies element j of each of the request's writes, the warp synchronized
// between writes (a later write may overwrite an earlier one).
extern "C" __global__ void table_write(int *table, const int *block_ids, const int *num_blocks, const int *write_requests,
                                       const unsigned char *overwrite, const int *staged_counts, int group, int expansion,
                                       int width) {
  const int r = blockIdx.x, lane = threadIdx.x;
  int count = num_blocks[group * kRequests + r];
  for (int w = 0; w < kWrites; ++w) {
    if (write_requests[w] != r) continue;
    const int n = staged_counts[group * kWrites + w] * expansion;
    const int start = overwrite[w] ? 0 : count;
    for (int j = lane; j < n; j += 32)
      if (start + j < width) table[(long long)r * width + start + j] = block_ids[w * kCapacity * expansion + j];
    __syncwarp();
    count = start + n;
  }
}

// counts[g, r] = start + n, the value of the request's last write.
extern "C" __global__ void counts_fill(int *num_blocks, const int *write_requests, const unsigned char *overwrite,
                                       const int *staged_counts, int group, int expansion) {
  const int r = threadIdx.x;
  if (r >= kRequests) return;
  int count = num_blocks[group * kRequests + r];
  for (int w = 0; w < kWrites; ++w)
    if (write_requests[w] == r) count = (overwrite[w] ? 0 : count) + staged_counts[group * kWrites + w] * expansion;
  num_blocks[group * kRequests + r] = count;
}

// table[request, logical_blocks] for the tokens of every batch entry: index kernel, 4-byte elements.
extern "C" __global__ void __launch_bounds__(kIndexThreads)
index_table(int *out, const int *table, const long long *logical, const int *idx_mapping, const int *query_start_loc,
            int width, int n) {
  int idx = blockIdx.x * (kIndexThreads * kIndexPerThread) + threadIdx.x;
  const int end = query_start_loc[kRequests];
#pragma unroll
  for (int k = 0; k < kIndexPerThread; ++k) {
    if (idx < n && idx < end) out[idx] = table[(long long)idx_mapping[entry_of(query_start_loc, idx)] * width + logical[idx]];
    idx += kIndexThreads;
  }
}

// slot_mappings[g, start:end] = slots for every batch entry: the tokens below query_start_loc[64].
extern "C" __global__ void copy_slots(long long *slot_mappings, const long long *slots, const int *query_start_loc,
                                      int group, int tokens) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens && t < query_start_loc[kRequests]) slot_mappings[(long long)group * tokens + t] = slots[t];
}

/* mkb:plan
scratch ids0 int64[num_staged_writes * stage_capacity]
scratch ids0_i32 int32[num_staged_writes * stage_capacity]
scratch ids1 int64[num_staged_writes * stage_capacity]
scratch expansion_offsets int64[2]
scratch ids1_scaled int64[num_staged_writes * stage_capacity]
scratch ids1_expanded int64[num_staged_writes * stage_capacity * 2]
scratch ids1_i32 int32[num_staged_writes * stage_capacity * 2]
scratch ids2 int64[num_staged_writes * stage_capacity]
scratch ids2_i32 int32[num_staged_writes * stage_capacity]
scratch logical int64[max_num_batched_tokens]
scratch slot_offsets int64[max_num_batched_tokens]
scratch physical32 int32[max_num_batched_tokens]
scratch physical int64[max_num_batched_tokens]
scratch scaled int64[max_num_batched_tokens]
scratch slots int64[max_num_batched_tokens]
# group 0 (expansion 1)
launch ids_to_long grid(1) block(256) args(ids0, staged_ids, i64(0), i64(num_staged_writes * stage_capacity))
launch long_to_int grid(1) block(256) args(ids0_i32, ids0, i64(num_staged_writes * stage_capacity))
launch table_write grid(max_num_reqs) block(32)
  args(block_table_0_out, ids0_i32, num_blocks_out, write_requests, overwrite, staged_counts, i32(0), i32(1), i32(max_blocks_0))
launch counts_fill grid(1) block(64) args(num_blocks_out, write_requests, overwrite, staged_counts, i32(0), i32(1))
# group 1 (expansion block_sizes_1 / kernel_block_sizes_1 = 2)
launch ids_to_long grid(1) block(256) args(ids1, staged_ids, i64(num_staged_writes * stage_capacity), i64(num_staged_writes * stage_capacity))
launch arange_map grid(1) block(256) args(expansion_offsets, i32(0), i64(2))
launch mul_scalar_i64 grid(1) block(256) args(ids1_scaled, ids1, i64(2), i64(num_staged_writes * stage_capacity))
launch add_expansion grid(1) block(256) args(ids1_expanded, ids1_scaled, expansion_offsets, i32(2), i64(num_staged_writes * stage_capacity * 2))
launch long_to_int grid(1) block(256) args(ids1_i32, ids1_expanded, i64(num_staged_writes * stage_capacity * 2))
launch table_write grid(max_num_reqs) block(32)
  args(block_table_1_out, ids1_i32, num_blocks_out, write_requests, overwrite, staged_counts, i32(1), i32(2), i32(max_blocks_1))
launch counts_fill grid(1) block(64) args(num_blocks_out, write_requests, overwrite, staged_counts, i32(1), i32(2))
# group 2 (expansion 1)
launch ids_to_long grid(1) block(256) args(ids2, staged_ids, i64(2 * num_staged_writes * stage_capacity), i64(num_staged_writes * stage_capacity))
launch long_to_int grid(1) block(256) args(ids2_i32, ids2, i64(num_staged_writes * stage_capacity))
launch table_write grid(max_num_reqs) block(32)
  args(block_table_2_out, ids2_i32, num_blocks_out, write_requests, overwrite, staged_counts, i32(2), i32(1), i32(max_blocks_2))
launch counts_fill grid(1) block(64) args(num_blocks_out, write_requests, overwrite, staged_counts, i32(2), i32(1))
# slot mapping (i64(-1): pad_slot_id, a constant the plan cannot pass to an integer parameter)
launch fill_i64 grid(ceil_div(num_kv_groups * max_num_batched_tokens, 1024)) block(256) args(slot_mappings, i64(-1), i64(num_kv_groups * max_num_batched_tokens))
# group 0: k = kernel_block_sizes_0
launch floor_div grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(logical, positions, i64(kernel_block_sizes_0), i64(max_num_batched_tokens))
launch remainder_map grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(slot_offsets, positions, i64(kernel_block_sizes_0), i64(max_num_batched_tokens))
launch index_table grid(ceil_div(max_num_batched_tokens, 512)) block(128) args(physical32, block_table_0_out, logical, idx_mapping, query_start_loc, i32(max_blocks_0), i32(max_num_batched_tokens))
launch int_to_long grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(physical, physical32, i64(max_num_batched_tokens))
launch mul_scalar_i64 grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(scaled, physical, i64(kernel_block_sizes_0), i64(max_num_batched_tokens))
launch add_i64 grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(slots, scaled, slot_offsets, i64(max_num_batched_tokens))
launch copy_slots grid(ceil_div(max_num_batched_tokens, 256)) block(256) args(slot_mappings, slots, query_start_loc, i32(0), i32(max_num_batched_tokens))
# group 1: k = kernel_block_sizes_1
launch floor_div grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(logical, positions, i64(kernel_block_sizes_1), i64(max_num_batched_tokens))
launch remainder_map grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(slot_offsets, positions, i64(kernel_block_sizes_1), i64(max_num_batched_tokens))
launch index_table grid(ceil_div(max_num_batched_tokens, 512)) block(128) args(physical32, block_table_1_out, logical, idx_mapping, query_start_loc, i32(max_blocks_1), i32(max_num_batched_tokens))
launch int_to_long grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(physical, physical32, i64(max_num_batched_tokens))
launch mul_scalar_i64 grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(scaled, physical, i64(kernel_block_sizes_1), i64(max_num_batched_tokens))
launch add_i64 grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(slots, scaled, slot_offsets, i64(max_num_batched_tokens))
launch copy_slots grid(ceil_div(max_num_batched_tokens, 256)) block(256) args(slot_mappings, slots, query_start_loc, i32(1), i32(max_num_batched_tokens))
# group 2: k = kernel_block_sizes_2
launch floor_div grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(logical, positions, i64(kernel_block_sizes_2), i64(max_num_batched_tokens))
launch remainder_map grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(slot_offsets, positions, i64(kernel_block_sizes_2), i64(max_num_batched_tokens))
launch index_table grid(ceil_div(max_num_batched_tokens, 512)) block(128) args(physical32, block_table_2_out, logical, idx_mapping, query_start_loc, i32(max_blocks_2), i32(max_num_batched_tokens))
launch int_to_long grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(physical, physical32, i64(max_num_batched_tokens))
launch mul_scalar_i64 grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(scaled, physical, i64(kernel_block_sizes_2), i64(max_num_batched_tokens))
launch add_i64 grid(ceil_div(max_num_batched_tokens, 1024)) block(256) args(slots, scaled, slot_offsets, i64(max_num_batched_tokens))
launch copy_slots grid(ceil_div(max_num_batched_tokens, 256)) block(256) args(slot_mappings, slots, query_start_loc, i32(2), i32(max_num_batched_tokens))
*/
