// The float64 anchor: both caches are widened into their outputs, then one block per (head slot, token),
// one thread per head dim. The 29 head slots follow qkv's column order: 0..15 q, 16..19 k, 20..23 v,
// 24..27 indexer q, 28 indexer k. (1 + w) RMSNorm and the rotation in double with no intermediate
// rounding (the original's float64 re-run of its reference); v is copied unchanged.
#include "mkb_ops.cuh"

extern "C" __global__ void widen_bf16(double *out, const bf16 *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = f64(in[i]);
}

extern "C" __global__ void __launch_bounds__(128)
anchor_dual_insert(const bf16 *qkv, const bf16 *q_norm_weight, const bf16 *k_norm_weight, const bf16 *index_q_norm_weight,
                   const bf16 *index_k_norm_weight, const long long *positions, const bf16 *cos_sin_cache,
                   const long long *slot_mapping, const long long *index_slot_mapping, double *q, double *iq,
                   double *kv_cache_out, double *index_cache_out, int num_q_heads, int num_kv_heads, int num_index_q_heads,
                   int rotary_dim, int block_size, double eps) {
  __shared__ double normed[128];
  const int head_dim = blockDim.x, d = threadIdx.x;
  const int slot_index = blockIdx.x, t = blockIdx.y;
  const int q_end = num_q_heads, k_end = q_end + num_kv_heads, v_end = k_end + num_kv_heads,
            iq_end = v_end + num_index_q_heads;
  const int row = (iq_end + 1) * head_dim;
  const double x = f64(qkv[(long long)t * row + (long long)slot_index * head_dim + d]);
  const long long slot = slot_mapping[t];
  const long long block = slot / block_size, offset = slot % block_size;  // slots are never negative here

  if (slot_index >= k_end && slot_index < v_end) {  // a v head: copied as is into [..., head_dim:]
    const int h = slot_index - k_end;
    kv_cache_out[((block * num_kv_heads + h) * block_size + offset) * 2 * head_dim + head_dim + d] = x;
    return;
  }
  const bf16 *weight = slot_index < q_end    ? q_norm_weight
                       : slot_index < k_end  ? k_norm_weight
                       : slot_index < iq_end ? index_q_norm_weight
                                             : index_k_norm_weight;
  const double sum_squares = mkb_ops::block_reduce<mkb_ops::sum_op>(x * x);
  normed[d] = x / sqrt(sum_squares / head_dim + eps) * (1.0 + f64(weight[d]));
  __syncthreads();

  const int half = rotary_dim / 2;
  const bf16 *cs = cos_sin_cache + positions[t] * rotary_dim;
  double out = normed[d];
  if (d < half) out = normed[d] * f64(cs[d]) - normed[d + half] * f64(cs[half + d]);
  else if (d < rotary_dim) out = normed[d] * f64(cs[d - half]) + normed[d - half] * f64(cs[d]);

  if (slot_index < q_end) {
    q[((long long)t * num_q_heads + slot_index) * head_dim + d] = out;
  } else if (slot_index < k_end) {
    const int h = slot_index - q_end;
    kv_cache_out[((block * num_kv_heads + h) * block_size + offset) * 2 * head_dim + d] = out;
  } else if (slot_index < iq_end) {
    iq[((long long)t * num_index_q_heads + slot_index - v_end) * head_dim + d] = out;
  } else {
    const long long index_slot = index_slot_mapping[t];
    index_cache_out[((index_slot / block_size) * block_size + index_slot % block_size) * head_dim + d] = out;
  }
}

/* mkb:plan
launch widen_bf16 grid(ceil_div(num_blocks * num_kv_heads * block_size * 2 * head_dim, 256)) block(256)
  args(kv_cache_out, kv_cache, i64(num_blocks * num_kv_heads * block_size * 2 * head_dim))
launch widen_bf16 grid(ceil_div(num_blocks * block_size * head_dim, 256)) block(256)
  args(index_cache_out, index_cache, i64(num_blocks * block_size * head_dim))
launch anchor_dual_insert grid(num_q_heads + 2 * num_kv_heads + num_index_q_heads + 1, num_tokens) block(head_dim)
  args(qkv, q_norm_weight, k_norm_weight, index_q_norm_weight, index_k_norm_weight, positions, cos_sin_cache,
       slot_mapping, index_slot_mapping, q, iq, kv_cache_out, index_cache_out, i32(num_q_heads), i32(num_kv_heads),
       i32(num_index_q_heads), i32(rotary_dim), i32(block_size), f64(eps))
*/
