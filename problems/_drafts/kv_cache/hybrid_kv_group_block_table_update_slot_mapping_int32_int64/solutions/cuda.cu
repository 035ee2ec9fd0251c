// Staged block-table writes and slot mapping in one launch: one 128-thread CTA per request r.
//   1. The 128 write requests and overwrite flags are staged in shared memory. Warp g (g < 3) replays
//      group g's writes addressed to r in write order: lane j writes element j of a write's expanded ids
//      (id * e + j % e, from staged id j / e), __syncwarp between writes, the running count in a
//      register; lane 0 stores the final count. Only block r touches row r of the tables, so the rows
//      need no cross-CTA ordering.
//   2. After __syncthreads (the row writes are visible to the CTA), the CTA maps the tokens of every
//      batch entry whose request is r, for the three groups, from its freshly written rows.
//   3. The tokens past query_start_loc[64] get -1 in every group, spread over all CTAs.
#include <cuda/std/cstdint>

constexpr int kGroups = 3, kRequests = 64, kWrites = 128, kCapacity = 4, kTokens = 4096, kThreads = 128;

extern "C" __global__ void __launch_bounds__(kThreads)
update_and_map(int *__restrict__ table_0, int *__restrict__ table_1, int *__restrict__ table_2, int *__restrict__ num_blocks,
               const int *__restrict__ write_requests, const unsigned char *__restrict__ overwrite,
               const int *__restrict__ staged_ids, const int *__restrict__ staged_counts, const int *__restrict__ idx_mapping,
               const int *__restrict__ query_start_loc, const long long *__restrict__ positions,
               long long *__restrict__ slot_mappings) {
  __shared__ int s_request[kWrites];
  __shared__ unsigned char s_overwrite[kWrites];
  __shared__ int s_loc[kRequests + 1];
  __shared__ int s_entry[kRequests];
  const int r = blockIdx.x, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  s_request[tid] = __ldg(write_requests + tid);
  s_overwrite[tid] = __ldg(overwrite + tid);
  if (tid <= kRequests) s_loc[tid] = __ldg(query_start_loc + tid);
  if (tid < kRequests) s_entry[tid] = __ldg(idx_mapping + tid);
  __syncthreads();

  if (warp < kGroups) {
    const int g = warp, expansion = g == 1 ? 2 : 1, width = g == 1 ? 1024 : 512;
    int *row = (g == 0 ? table_0 : g == 1 ? table_1 : table_2) + r * width;
    int count = num_blocks[g * kRequests + r];
    for (int w = 0; w < kWrites; ++w) {
      if (s_request[w] != r) continue;  // uniform over the warp
      const int n = __ldg(staged_counts + g * kWrites + w) * expansion;
      const int start = s_overwrite[w] ? 0 : count;
      for (int j = lane; j < n; j += 32)
        row[start + j] = __ldg(staged_ids + (g * kWrites + w) * kCapacity + j / expansion) * expansion + j % expansion;
      __syncwarp();
      count = start + n;
    }
    if (lane == 0) num_blocks[g * kRequests + r] = count;
  }
  __syncthreads();

  for (int b = 0; b < kRequests; ++b) {
    if (s_entry[b] != r) continue;  // uniform over the CTA
    const int first = s_loc[b], items = (s_loc[b + 1] - first) * kGroups;
    for (int item = tid; item < items; item += kThreads) {
      const int t = first + item / kGroups, g = item % kGroups;
      const long long p = __ldg(positions + t);
      const int k = g == 2 ? 8 : 16, width = g == 1 ? 1024 : 512;
      const int *row = (g == 0 ? table_0 : g == 1 ? table_1 : table_2) + r * width;
      slot_mappings[g * kTokens + t] = (long long)row[p / k] * k + p % k;
    }
  }

  for (int t = s_loc[kRequests] + r * kThreads + tid; t < kTokens; t += kRequests * kThreads)
    for (int g = 0; g < kGroups; ++g) slot_mappings[g * kTokens + t] = -1;
}

/* mkb:plan
launch update_and_map grid(max_num_reqs) block(128)
  args(block_table_0_out, block_table_1_out, block_table_2_out, num_blocks_out, write_requests, overwrite, staged_ids,
       staged_counts, idx_mapping, query_start_loc, positions, slot_mappings)
*/
