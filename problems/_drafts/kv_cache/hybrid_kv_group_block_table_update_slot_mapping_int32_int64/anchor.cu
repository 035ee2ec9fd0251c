// The anchor of hybrid_kv_group_block_table_update_slot_mapping_int32_int64. Integer outputs go to
// their own buffers, so the anchor writes every element of each:
//   anchor_tables: one CTA per (request row, group): the row is copied from the input table, then one
//     thread replays every staged write of that group addressed to this request, in write order,
//     keeping the running block count (starting from num_blocks), and stores the final count.
//   anchor_slots: one thread per (group, token): the token's batch entry is the last i with
//     query_start_loc[i] <= t (searching all 64 boundaries; none past query_start_loc[64]), and its slot
//     is looked up in the updated output table.
#include <cuda/std/cstdint>

constexpr int kGroups = 3, kRequests = 64, kWrites = 128, kCapacity = 4, kTokens = 4096;
__constant__ int kWidth[kGroups] = {512, 1024, 512};      // MAX_BLOCKS
__constant__ int kBlock[kGroups] = {16, 32, 8};           // BLOCK_SIZES
__constant__ int kKernelBlock[kGroups] = {16, 16, 8};     // KERNEL_BLOCK_SIZES

__device__ __forceinline__ int *pick(int *a, int *b, int *c, int g) { return g == 0 ? a : g == 1 ? b : c; }
__device__ __forceinline__ const int *pick(const int *a, const int *b, const int *c, int g) { return g == 0 ? a : g == 1 ? b : c; }

extern "C" __global__ void __launch_bounds__(256)
anchor_tables(const int *table_0, const int *table_1, const int *table_2, const int *num_blocks,
              const int *write_requests, const unsigned char *overwrite, const int *staged_ids,
              const int *staged_counts, int *out_0, int *out_1, int *out_2, int *num_blocks_out) {
  const int r = blockIdx.x, g = blockIdx.y, width = kWidth[g];
  const int *in = pick(table_0, table_1, table_2, g) + (long long)r * width;
  int *row = pick(out_0, out_1, out_2, g) + (long long)r * width;
  for (int c = threadIdx.x; c < width; c += blockDim.x) row[c] = in[c];
  __syncthreads();
  if (threadIdx.x != 0) return;
  const int expansion = kBlock[g] / kKernelBlock[g];
  long long count = num_blocks[g * kRequests + r];
  for (int w = 0; w < kWrites; ++w) {
    if (write_requests[w] != r) continue;
    const int staged = staged_counts[g * kWrites + w];
    const long long start = overwrite[w] ? 0 : count;
    for (int j = 0; j < staged; ++j)
      for (int k = 0; k < expansion; ++k) {
        const long long column = start + (long long)j * expansion + k;
        if (column < width) row[column] = staged_ids[(g * kWrites + w) * kCapacity + j] * expansion + k;
      }
    count = start + (long long)staged * expansion;
  }
  num_blocks_out[g * kRequests + r] = (int)count;
}

extern "C" __global__ void __launch_bounds__(256)
anchor_slots(const int *out_0, const int *out_1, const int *out_2, const int *idx_mapping,
             const int *query_start_loc, const long long *positions, long long *slot_mappings, long long pad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kGroups * kTokens) return;
  const int g = i / kTokens, t = i % kTokens;
  long long slot = pad;
  if (t < query_start_loc[kRequests]) {
    int entry = 0;
    for (int b = 0; b < kRequests; ++b)
      if (query_start_loc[b] <= t) entry = b;
    const int r = idx_mapping[entry], k = kKernelBlock[g];
    const long long p = positions[t];
    slot = (long long)pick(out_0, out_1, out_2, g)[(long long)r * kWidth[g] + p / k] * k + p % k;
  }
  slot_mappings[i] = slot;
}

/* mkb:plan
launch anchor_tables grid(max_num_reqs, num_kv_groups) block(256)
  args(block_table_0, block_table_1, block_table_2, num_blocks, write_requests, overwrite, staged_ids, staged_counts,
       block_table_0_out, block_table_1_out, block_table_2_out, num_blocks_out)
launch anchor_slots grid(ceil_div(num_kv_groups * max_num_batched_tokens, 256)) block(256)
  args(block_table_0_out, block_table_1_out, block_table_2_out, idx_mapping, query_start_loc, positions,
       slot_mappings, i64(-1))
# i64(-1) is pad_slot_id (a constant is not an integer to the plan)
*/
