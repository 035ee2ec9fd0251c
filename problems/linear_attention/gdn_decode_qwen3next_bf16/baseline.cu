// The eager baseline: the device work of the original's reference(), one launch per eager operation at
// eager's dtypes (fp32 from the casts on). The reference loops over the 64 sequences and 16 value heads in
// Python, 17 kernels per (b, h) pair; the pairs are independent, and a plan has no loops, so each
// operation of the loop body is one launch over all 1024 pairs, each pair's tensors laid out one after
// another (pair p = b * 16 + h). The matrix products that eager sends to cuBLAS (1-D @ 2-D is an mm with
// one row; the k=1 outer products are mms) are matmul steps batched over the pairs.
// Layouts: h_state = state[b, h].clone().transpose(-1, -2) is the clone's [V, K] memory read as [K, V];
// elementwise results keep the layout of their first operand ([V, K]); the mm results are row-major.
#include "mkb_ops.cuh"

constexpr unsigned kDim = 128, kVHeads = 16, kGroup = 2;

// x = a.to(fp32) + dt_bias; g = exp(-exp(A_log) * softplus(x)); beta = sigmoid(b.to(fp32))
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(add_heads, float, (const float *x, const float *per_head), x[i] + per_head[i % kVHeads])
MKB_MAP(exp_map, float, (const float *x), expf(x[i]))
MKB_MAP(neg_map, float, (const float *x), -x[i])
// F.softplus(beta=1, threshold=20): x * 1 > 20 ? x : log1p(exp(x * 1)) / 1
MKB_MAP(softplus_map, float, (const float *x), x[i] * 1.0f > 20.0f ? x[i] : log1pf(expf(x[i] * 1.0f)) / 1.0f)
MKB_MAP(mul_heads, float, (const float *per_head, const float *x), per_head[i % kVHeads] * x[i])
MKB_MAP(sigmoid_map, float, (const float *x), 1.0f / (1.0f + expf(-x[i])))
// q_exp = q.to(fp32).repeat_interleave(2, dim=1): [B, 8, 128] -> [B, 16, 128], head h reads head h / 2
MKB_MAP(repeat_heads, float, (const float *x), x[(i / (kVHeads * kDim)) * (kVHeads / kGroup) * kDim + ((i / kDim) % kVHeads) / kGroup * kDim + i % kDim])
// torch.zeros_like(state) (new_state), torch.zeros(B, 16, 128) (output)
MKB_MAP(fill_f32, float, (float value), value)
// state[b, h].clone()
MKB_MAP(copy_f32, float, (const float *x), x[i])
// old_state = g_val * h_state (g_val a 0-dim tensor per pair; [V, K] layout kept)
MKB_MAP(scale_pairs, float, (const float *per_pair, const float *x, unsigned per), per_pair[i / per] * x[i])
// beta_val * v_h; (1 - beta_val); (1 - beta_val) * old_v; and the sum
MKB_MAP(rsub_one, float, (const float *x), 1.0f - x[i])
MKB_MAP(add_f32, float, (const float *x, const float *y), x[i] + y[i])
// old_state - state_remove, then + state_update: the first operand is [V, K] (element i = (p, v, kk)),
// the mm result [K, V] row-major is read transposed
MKB_MAP(sub_transposed, float, (const float *x, const float *y), x[i] - y[(i / (kDim * kDim)) * kDim * kDim + (i % kDim) * kDim + (i / kDim) % kDim])
MKB_MAP(add_transposed, float, (const float *x, const float *y), x[i] + y[(i / (kDim * kDim)) * kDim * kDim + (i % kDim) * kDim + (i / kDim) % kDim])
// scale * (q_h @ h_state)
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
// output.unsqueeze(1).to(bf16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

/* mkb:plan
scratch a32 fp32[batch_size * num_v_heads]
scratch x fp32[batch_size * num_v_heads]
scratch a_exp fp32[num_v_heads]
scratch a_neg fp32[num_v_heads]
scratch sp fp32[batch_size * num_v_heads]
scratch gm fp32[batch_size * num_v_heads]
scratch g fp32[batch_size * num_v_heads]
scratch b32 fp32[batch_size * num_v_heads]
scratch beta fp32[batch_size * num_v_heads]
scratch q32 fp32[batch_size * num_q_heads * head_size]
scratch k32 fp32[batch_size * num_k_heads * head_size]
scratch v32 fp32[batch_size * num_v_heads * head_size]
scratch q_exp fp32[batch_size * num_v_heads * head_size]
scratch k_exp fp32[batch_size * num_v_heads * head_size]
scratch out32 fp32[batch_size * num_v_heads * head_size]
scratch hs fp32[batch_size * num_v_heads * head_size * head_size]
scratch old fp32[batch_size * num_v_heads * head_size * head_size]
scratch old_v fp32[batch_size * num_v_heads * head_size]
scratch bv fp32[batch_size * num_v_heads * head_size]
scratch omb fp32[batch_size * num_v_heads]
scratch t2 fp32[batch_size * num_v_heads * head_size]
scratch new_v fp32[batch_size * num_v_heads * head_size]
scratch rem fp32[batch_size * num_v_heads * head_size * head_size]
scratch upd fp32[batch_size * num_v_heads * head_size * head_size]
scratch h1 fp32[batch_size * num_v_heads * head_size * head_size]
scratch h2 fp32[batch_size * num_v_heads * head_size * head_size]
scratch qh fp32[batch_size * num_v_heads * head_size]
scratch o1 fp32[batch_size * num_v_heads * head_size]
launch to_f32 grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(a32, a, i64(batch_size * num_v_heads))
launch add_heads grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(x, a32, dt_bias, i64(batch_size * num_v_heads))
launch exp_map grid(1) block(256) args(a_exp, A_log, i64(num_v_heads))
launch neg_map grid(1) block(256) args(a_neg, a_exp, i64(num_v_heads))
launch softplus_map grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(sp, x, i64(batch_size * num_v_heads))
launch mul_heads grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(gm, a_neg, sp, i64(batch_size * num_v_heads))
launch exp_map grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(g, gm, i64(batch_size * num_v_heads))
launch to_f32 grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(b32, b, i64(batch_size * num_v_heads))
launch sigmoid_map grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(beta, b32, i64(batch_size * num_v_heads))
launch to_f32 grid(ceil_div(batch_size * num_q_heads * head_size, 1024)) block(256) args(q32, q, i64(batch_size * num_q_heads * head_size))
launch to_f32 grid(ceil_div(batch_size * num_k_heads * head_size, 1024)) block(256) args(k32, k, i64(batch_size * num_k_heads * head_size))
launch to_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(v32, v, i64(batch_size * num_v_heads * head_size))
launch repeat_heads grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(q_exp, q32, i64(batch_size * num_v_heads * head_size))
launch repeat_heads grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(k_exp, k32, i64(batch_size * num_v_heads * head_size))
launch fill_f32 grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(new_state, f32(0), i64(batch_size * num_v_heads * head_size * head_size))
launch fill_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(out32, f32(0), i64(batch_size * num_v_heads * head_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(hs, state, i64(batch_size * num_v_heads * head_size * head_size))
launch scale_pairs grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(old, g, hs, u32(head_size * head_size), i64(batch_size * num_v_heads * head_size * head_size))
matmul c(old_v) a(k_exp) b(old) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch scale_pairs grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(bv, beta, v32, u32(head_size), i64(batch_size * num_v_heads * head_size))
launch rsub_one grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(omb, beta, i64(batch_size * num_v_heads))
launch scale_pairs grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(t2, omb, old_v, u32(head_size), i64(batch_size * num_v_heads * head_size))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(new_v, bv, t2, i64(batch_size * num_v_heads * head_size))
matmul c(rem) a(k_exp) b(old_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
matmul c(upd) a(k_exp) b(new_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
launch sub_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h1, old, rem, i64(batch_size * num_v_heads * head_size * head_size))
launch add_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h2, h1, upd, i64(batch_size * num_v_heads * head_size * head_size))
matmul c(qh) a(q_exp) b(h2) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch mul_scalar grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(o1, qh, f32(scale), i64(batch_size * num_v_heads * head_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(out32, o1, i64(batch_size * num_v_heads * head_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(new_state, h2, i64(batch_size * num_v_heads * head_size * head_size))
launch to_bf16 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(output, out32, i64(batch_size * num_v_heads * head_size))
*/
