// The eager baseline of batched_kv_cache_block_copy_remap_uint8: the device work of the original's
// reference() as eager PyTorch runs it. block_mapping[:, c].long() is a no-op on an int64 tensor (a
// strided view, no kernel), so the program is four launches:
//   k_rows = src_k[src_blocks]         index kernel (gather into a new [256, 32, 8, 256] tensor)
//   dst_k[dst_blocks] = k_rows         index_put_ kernel (accumulate=False)
//   v_rows = src_v[src_blocks]; dst_v[dst_blocks] = v_rows
// Both are PyTorch's TensorIterator index kernel (gpu_index_kernel), reproduced here in its structure:
// one byte per element, 128 threads per block and 4 elements per thread a block-width apart, a 2-D
// offset calculation per element (row of the mapping, byte within the 64 KiB block), the int64 index
// read per element through a strided view (column c of block_mapping), and plain (aliasing) char
// pointers, so that each element's loads are issued after the previous element's store as in PyTorch.
// That makes the kernel latency-bound (one byte per thread in flight), which is what the eager graph
// measures (273.7 us on the H200 for the four launches).

constexpr int kThreads = 128, kPerThread = 4;  // PyTorch's launch_size_nd and launch_bound2

// out[i] = src[index[row] * inner + col] with (row, col) = divmod(i, inner), index = column of block_mapping
extern "C" __global__ void __launch_bounds__(kThreads)
index_gather_bytes(unsigned char *out, const unsigned char *src, const long long *block_mapping, int column,
                   int inner, int n) {
  int idx = blockIdx.x * (kThreads * kPerThread) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    if (idx < n) {
      const int row = idx / inner, col = idx - row * inner;
      const long long block = block_mapping[2 * row + column];
      out[idx] = src[block * inner + col];
    }
    idx += kThreads;
  }
}

// dst[index[row] * inner + col] = values[i]: index_put_ with accumulate=False
extern "C" __global__ void __launch_bounds__(kThreads)
index_put_bytes(unsigned char *dst, const unsigned char *values, const long long *block_mapping, int column,
                int inner, int n) {
  int idx = blockIdx.x * (kThreads * kPerThread) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    if (idx < n) {
      const int row = idx / inner, col = idx - row * inner;
      const long long block = block_mapping[2 * row + column];
      dst[block * inner + col] = values[idx];
    }
    idx += kThreads;
  }
}

/* mkb:plan
scratch k_rows uint8[num_mappings * block_size * num_heads * head_dim]
scratch v_rows uint8[num_mappings * block_size * num_heads * head_dim]
launch index_gather_bytes grid(ceil_div(num_mappings * block_size * num_heads * head_dim, 512)) block(128)
  args(k_rows, src_k, block_mapping, i32(0), i32(block_size * num_heads * head_dim), i32(num_mappings * block_size * num_heads * head_dim))
launch index_put_bytes grid(ceil_div(num_mappings * block_size * num_heads * head_dim, 512)) block(128)
  args(dst_k_out, k_rows, block_mapping, i32(1), i32(block_size * num_heads * head_dim), i32(num_mappings * block_size * num_heads * head_dim))
launch index_gather_bytes grid(ceil_div(num_mappings * block_size * num_heads * head_dim, 512)) block(128)
  args(v_rows, src_v, block_mapping, i32(0), i32(block_size * num_heads * head_dim), i32(num_mappings * block_size * num_heads * head_dim))
launch index_put_bytes grid(ceil_div(num_mappings * block_size * num_heads * head_dim, 512)) block(128)
  args(dst_v_out, v_rows, block_mapping, i32(1), i32(block_size * num_heads * head_dim), i32(num_mappings * block_size * num_heads * head_dim))
*/
