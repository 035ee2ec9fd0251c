// The float64 anchor: the cache is widened into its output, then one block per (head slot, token), one
// thread per head dim: head slots 0..31 are the q heads (written to q), 32..39 the k heads and 40..47 the
// v heads (written at the token's slot of plane 0 or 1 when the slot is not -1). RMSNorm, weight and
// rotation in double with no intermediate rounding (the original's float64 re-run of its reference).
#include "mkb_ops.cuh"

extern "C" __global__ void widen_bf16(double *out, const bf16 *in, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = f64(in[i]);
}

extern "C" __global__ void __launch_bounds__(128)
anchor_qk_norm_rope_cache(const bf16 *qkv, const long long *positions, const bf16 *q_norm_weight, const bf16 *k_norm_weight,
                          const bf16 *cos_sin_cache, const long long *slot_mapping, double *q, double *kv_cache_out,
                          int num_q_heads, int num_kv_heads, int rotary_dim, long long plane, double eps) {
  __shared__ double normed[128];
  const int head_dim = blockDim.x, d = threadIdx.x;
  const int slot_index = blockIdx.x, t = blockIdx.y;
  const int row = (num_q_heads + 2 * num_kv_heads) * head_dim;
  const double x = f64(qkv[(long long)t * row + (long long)slot_index * head_dim + d]);
  const long long slot = slot_mapping[t];

  if (slot_index >= num_q_heads + num_kv_heads) {  // a v head: copied as is
    const int h = slot_index - num_q_heads - num_kv_heads;
    if (slot >= 0) kv_cache_out[plane + (slot * num_kv_heads + h) * head_dim + d] = x;
    return;
  }
  const bool is_q = slot_index < num_q_heads;
  const int h = is_q ? slot_index : slot_index - num_q_heads;
  if (!is_q && slot < 0) return;

  const double sum_squares = mkb_ops::block_reduce<mkb_ops::sum_op>(x * x);
  const double inv_rms = 1.0 / sqrt(sum_squares / head_dim + eps);
  normed[d] = x * inv_rms * f64((is_q ? q_norm_weight : k_norm_weight)[d]);
  __syncthreads();

  const int half = rotary_dim / 2;
  const bf16 *cs = cos_sin_cache + positions[t] * rotary_dim;
  double out = normed[d];
  if (d < half) out = normed[d] * f64(cs[d]) - normed[d + half] * f64(cs[half + d]);
  else if (d < rotary_dim) out = normed[d] * f64(cs[d - half]) + normed[d - half] * f64(cs[d]);

  if (is_q) q[((long long)t * num_q_heads + h) * head_dim + d] = out;
  else kv_cache_out[(slot * num_kv_heads + h) * head_dim + d] = out;  // plane 0, row `slot`
}

/* mkb:plan
launch widen_bf16 grid(ceil_div(2 * num_blocks * block_size * num_kv_heads * head_dim, 256)) block(256)
  args(kv_cache_out, kv_cache, i64(2 * num_blocks * block_size * num_kv_heads * head_dim))
launch anchor_qk_norm_rope_cache grid(num_q_heads + 2 * num_kv_heads, num_tokens) block(head_dim)
  args(qkv, positions, q_norm_weight, k_norm_weight, cos_sin_cache, slot_mapping, q, kv_cache_out,
       i32(num_q_heads), i32(num_kv_heads), i32(rotary_dim), i64(num_blocks * block_size * num_kv_heads * head_dim), f64(eps))
*/
