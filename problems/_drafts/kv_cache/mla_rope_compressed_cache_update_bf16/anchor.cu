// The float64 anchor: q_c and the weight are widened to fp64 scratch and multiplied by a float64 matmul
// step straight into q_out (its [tokens, heads * 192] layout is q's); then one 32-thread block per
// (head, token) rotates q_out's rope dims in place, and one block per token writes [kv_c | rotated k_pe]
// into the widened cache at the token's slot. No intermediate rounding (the original's float64 re-run).
#include "mkb_ops.cuh"

extern "C" __global__ void widen_columns(double *out, const bf16 *in, long long width, long long row, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = f64(in[(i / width) * row + i % width]);
}

// q_out[t, h, nope + j] and [nope + half + j] for j = threadIdx.x < half: both read before either is written.
extern "C" __global__ void anchor_rotate_q(double *q_out, const long long *positions, const bf16 *cos_sin_cache,
                                           int num_heads, int head_dim, int nope, int rope) {
  const int h = blockIdx.x, t = blockIdx.y, j = threadIdx.x, half = rope / 2;
  double *pe = q_out + ((long long)t * num_heads + h) * head_dim + nope;
  const bf16 *cs = cos_sin_cache + positions[t] * rope;
  const double c = f64(cs[j]), s = f64(cs[half + j]);
  const double x1 = pe[j], x2 = pe[half + j];
  pe[j] = x1 * c - x2 * s;
  pe[half + j] = x2 * c + x1 * s;
}

// Cache row `slot` (block slot / 16, offset slot % 16): [kv_c (kv_rank) | rotated k_pe (rope)].
extern "C" __global__ void anchor_cache_write(double *kv_cache_out, const bf16 *qkv_lora, const long long *positions,
                                              const bf16 *cos_sin_cache, const long long *slot_mapping, int q_rank,
                                              int kv_rank, int rope) {
  const int t = blockIdx.x, e = threadIdx.x, half = rope / 2;
  const long long slot = slot_mapping[t];
  if (slot < 0) return;
  const bf16 *row = qkv_lora + (long long)t * (q_rank + kv_rank + rope);
  double *dst = kv_cache_out + slot * (kv_rank + rope);
  if (e < kv_rank) {
    dst[e] = f64(row[q_rank + e]);
  } else if (e < kv_rank + rope) {
    const int j = e - kv_rank;
    const bf16 *pe = row + q_rank + kv_rank;
    const bf16 *cs = cos_sin_cache + positions[t] * rope;
    dst[e] = j < half ? f64(pe[j]) * f64(cs[j]) - f64(pe[j + half]) * f64(cs[half + j])
                      : f64(pe[j]) * f64(cs[j - half]) + f64(pe[j - half]) * f64(cs[j]);
  }
}

/* mkb:plan
scratch q_c64 fp64[num_tokens * q_lora_rank]
scratch w64 fp64[num_heads * qk_head_dim * q_lora_rank]
launch widen_columns grid(ceil_div(num_tokens * q_lora_rank, 256)) block(256)
  args(q_c64, qkv_lora, i64(q_lora_rank), i64(q_lora_rank + kv_lora_rank + rope_dim), i64(num_tokens * q_lora_rank))
launch widen_columns grid(ceil_div(num_heads * qk_head_dim * q_lora_rank, 256)) block(256)
  args(w64, q_b_weight, i64(q_lora_rank), i64(q_lora_rank), i64(num_heads * qk_head_dim * q_lora_rank))
matmul c(q_out) a(q_c64) b(w64) m(num_tokens) n(num_heads * qk_head_dim) k(q_lora_rank) transpose_b
launch anchor_rotate_q grid(num_heads, num_tokens) block(rope_dim / 2)
  args(q_out, positions, cos_sin_cache, i32(num_heads), i32(qk_head_dim), i32(qk_nope_dim), i32(rope_dim))
launch widen_columns grid(ceil_div(num_blocks * block_size * (kv_lora_rank + rope_dim), 256)) block(256)
  args(kv_cache_out, kv_cache, i64(kv_lora_rank + rope_dim), i64(kv_lora_rank + rope_dim), i64(num_blocks * block_size * (kv_lora_rank + rope_dim)))
launch anchor_cache_write grid(num_tokens) block(kv_lora_rank + rope_dim)
  args(kv_cache_out, qkv_lora, positions, cos_sin_cache, slot_mapping, i32(q_lora_rank), i32(kv_lora_rank), i32(rope_dim))
*/
