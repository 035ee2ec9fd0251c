// The eager baseline: the device work of the original's reference(), one launch per eager operation at
// fp32, the two batched products as matmul steps (cuBLAS fp32 without TF32, as eager's bmm). The small
// host tensors the reference builds (q.new_tensor(2.0), new_tensor(range(8)), new_tensor(range(1024)))
// are host-to-device copies in eager; here fill kernels.
#include "mkb_ops.cuh"

MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// q.new_tensor(range(n)): 0, 1, ..., n - 1
MKB_MAP(arange_f32, float, (int unused), (float)i)
// -5.0 - heads; 2.0 ** that; 1 - that; log2
MKB_MAP(rsub_scalar, float, (const float *x, float s), s - x[i])
MKB_MAP(pow_base2, float, (const float *x), powf(2.0f, x[i]))
MKB_MAP(log2_map, float, (const float *x), log2f(x[i]))
// n.unsqueeze(-1) - n: [L, L]
MKB_MAP(outer_diff, float, (const float *pos, unsigned len), pos[(unsigned long long)i / len] - pos[(unsigned long long)i % len])
// (...) * s.view(-1, 1, 1): [H, L, L]
MKB_MAP(mul_heads, float, (const float *diff, const float *s, unsigned plane), diff[(unsigned long long)i % plane] * s[(unsigned long long)i / plane])
MKB_MAP(exp2_map, float, (const float *x), exp2f(x[i]))
// n.unsqueeze(-1).ge(n): a bool [L, L] tensor, here held as 0.0 / 1.0 in fp32 (the harness's building
// blocks store no one-byte type in this build); the same values after eager's promotion
MKB_MAP(ge_outer, float, (const float *pos, unsigned len), pos[(unsigned long long)i / len] >= pos[(unsigned long long)i % len] ? 1.0f : 0.0f)
// exp2(...) * mask (the bool promoted to fp32), broadcast over the heads
MKB_MAP(mul_mask, float, (const float *x, const float *mask, unsigned plane), x[i] * mask[(unsigned long long)i % plane])
// q * d_head ** -0.5
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
// scores * decay (decay [H, L, L] broadcast over the batch: plane = L * L, heads = H)
MKB_MAP(mul_decay, float, (const float *x, const float *decay, unsigned plane, unsigned heads), x[i] * decay[((unsigned long long)i / plane % heads) * plane + (unsigned long long)i % plane])
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

/* mkb:plan
scratch q32 fp32[batch_size * num_heads * seq_len * key_dim]
scratch k32 fp32[batch_size * num_heads * seq_len * key_dim]
scratch v32 fp32[batch_size * num_heads * seq_len * value_dim]
scratch heads fp32[num_heads]
scratch expo fp32[num_heads]
scratch powers fp32[num_heads]
scratch one_minus fp32[num_heads]
scratch s fp32[num_heads]
scratch pos fp32[seq_len]
scratch diff fp32[seq_len * seq_len]
scratch scaled fp32[num_heads * seq_len * seq_len]
scratch ex fp32[num_heads * seq_len * seq_len]
scratch mask fp32[seq_len * seq_len]
scratch decay fp32[num_heads * seq_len * seq_len]
scratch qs fp32[batch_size * num_heads * seq_len * key_dim]
scratch qk fp32[batch_size * num_heads * seq_len * seq_len]
scratch sc fp32[batch_size * num_heads * seq_len * seq_len]
scratch o32 fp32[batch_size * num_heads * seq_len * value_dim]
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(q32, q, i64(batch_size * num_heads * seq_len * key_dim))
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(k32, k, i64(batch_size * num_heads * seq_len * key_dim))
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len * value_dim, 1024)) block(256) args(v32, v, i64(batch_size * num_heads * seq_len * value_dim))
launch arange_f32 grid(1) block(256) args(heads, i32(0), i64(num_heads))
launch rsub_scalar grid(1) block(256) args(expo, heads, f32(-5.0), i64(num_heads))
launch pow_base2 grid(1) block(256) args(powers, expo, i64(num_heads))
launch rsub_scalar grid(1) block(256) args(one_minus, powers, f32(1.0), i64(num_heads))
launch log2_map grid(1) block(256) args(s, one_minus, i64(num_heads))
launch arange_f32 grid(1) block(256) args(pos, i32(0), i64(seq_len))
launch outer_diff grid(ceil_div(seq_len * seq_len, 1024)) block(256) args(diff, pos, u32(seq_len), i64(seq_len * seq_len))
launch mul_heads grid(ceil_div(num_heads * seq_len * seq_len, 1024)) block(256) args(scaled, diff, s, u32(seq_len * seq_len), i64(num_heads * seq_len * seq_len))
launch exp2_map grid(ceil_div(num_heads * seq_len * seq_len, 1024)) block(256) args(ex, scaled, i64(num_heads * seq_len * seq_len))
launch ge_outer grid(ceil_div(seq_len * seq_len, 1024)) block(256) args(mask, pos, u32(seq_len), i64(seq_len * seq_len))
launch mul_mask grid(ceil_div(num_heads * seq_len * seq_len, 1024)) block(256) args(decay, ex, mask, u32(seq_len * seq_len), i64(num_heads * seq_len * seq_len))
launch mul_scalar grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(qs, q32, f32(scale), i64(batch_size * num_heads * seq_len * key_dim))
matmul c(qk) a(qs) b(k32) m(seq_len) n(seq_len) k(key_dim) batch(batch_size * num_heads) transpose_b
launch mul_decay grid(ceil_div(batch_size * num_heads * seq_len * seq_len, 1024)) block(256) args(sc, qk, decay, u32(seq_len * seq_len), u32(num_heads), i64(batch_size * num_heads * seq_len * seq_len))
matmul c(o32) a(sc) b(v32) m(seq_len) n(value_dim) k(seq_len) batch(batch_size * num_heads)
launch to_bf16 grid(ceil_div(batch_size * num_heads * seq_len * value_dim, 1024)) block(256) args(o, o32, i64(batch_size * num_heads * seq_len * value_dim))
*/
