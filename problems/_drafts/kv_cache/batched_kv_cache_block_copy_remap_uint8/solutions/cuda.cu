// Batched K/V block copy: one launch for both caches. CTA (m, t, q) copies quarter q (16 KiB) of
// mapping m's 64 KiB block of tensor t (0: K, 1: V): 256 threads, four 16-byte vectors each, all four
// loads issued before any store (streaming cache hints: each byte is touched once). Sources and
// destinations are disjoint (invariant), so no CTA reads what another writes. 32 MiB read, 32 MiB
// written, against the eager program's four byte-per-element index kernels.
#include <cuda/std/cstdint>

constexpr int kBlockBytes = 32 * 8 * 256;                      // one cache block: 65536 bytes
constexpr int kQuarters = 4;
constexpr int kThreads = 256;
constexpr int kVectors = kBlockBytes / 16 / kQuarters / kThreads;  // 4 uint4 per thread

extern "C" __global__ void __launch_bounds__(kThreads)
copy_blocks(const uint4 *__restrict__ src_k, const uint4 *__restrict__ src_v, uint4 *__restrict__ dst_k,
            uint4 *__restrict__ dst_v, const long long *__restrict__ block_mapping) {
  const int m = blockIdx.x, tensor = blockIdx.y, quarter = blockIdx.z;
  const long long source = __ldg(block_mapping + 2 * m), destination = __ldg(block_mapping + 2 * m + 1);
  constexpr int block_vectors = kBlockBytes / 16, quarter_vectors = block_vectors / kQuarters;
  const uint4 *from = (tensor ? src_v : src_k) + source * block_vectors + quarter * quarter_vectors;
  uint4 *to = (tensor ? dst_v : dst_k) + destination * block_vectors + quarter * quarter_vectors;
  uint4 v[kVectors];
#pragma unroll
  for (int k = 0; k < kVectors; ++k) v[k] = __ldcs(from + threadIdx.x + k * kThreads);
#pragma unroll
  for (int k = 0; k < kVectors; ++k) __stcs(to + threadIdx.x + k * kThreads, v[k]);
}

/* mkb:plan
launch copy_blocks grid(num_mappings, 2, 4) block(256) args(src_k, src_v, dst_k_out, dst_v_out, block_mapping)
*/
