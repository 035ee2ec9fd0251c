// The anchor of batched_kv_cache_block_copy_remap_uint8. Integer outputs are written to their own
// buffers (not in place), so every block of dst_k_out / dst_v_out is written: one 256-thread CTA per
// (output block, tensor) looks up whether the block is a destination of block_mapping (a scan of the
// 256 rows; the last matching row wins) and pulls either that mapping's source block or the original
// destination block. A pull formulation, independent of the baseline's gather-then-scatter.
#include <cuda/std/cstdint>

constexpr long long kBlockBytes = 32 * 8 * 256;  // block_size * num_heads * head_dim

extern "C" __global__ void __launch_bounds__(256)
anchor_block_copy(const unsigned char *src_k, const unsigned char *src_v, const unsigned char *dst_k,
                  const unsigned char *dst_v, const long long *block_mapping, unsigned char *dst_k_out,
                  unsigned char *dst_v_out, int num_mappings) {
  const long long block = blockIdx.x;
  const bool value = blockIdx.y == 1;
  __shared__ long long source;
  if (threadIdx.x == 0) {
    long long found = -1;
    for (int m = 0; m < num_mappings; ++m)
      if (block_mapping[2 * m + 1] == block) found = block_mapping[2 * m];
    source = found;
  }
  __syncthreads();
  const unsigned char *from = source >= 0 ? (value ? src_v : src_k) + source * kBlockBytes
                                          : (value ? dst_v : dst_k) + block * kBlockBytes;
  unsigned char *to = (value ? dst_v_out : dst_k_out) + block * kBlockBytes;
  for (long long b = threadIdx.x; b < kBlockBytes; b += blockDim.x) to[b] = from[b];
}

/* mkb:plan
launch anchor_block_copy grid(num_blocks, 2) block(256)
  args(src_k, src_v, dst_k, dst_v, block_mapping, dst_k_out, dst_v_out, i32(num_mappings))
*/
