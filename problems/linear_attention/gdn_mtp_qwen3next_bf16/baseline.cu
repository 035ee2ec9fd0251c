// The eager baseline: the device work of the original's reference(), one launch per eager operation at
// eager's dtypes. The reference loops in Python over the 32 sequences (with an .item() host sync for the
// pool slot), the 4 draft tokens and the 16 value heads: per sequence a clone of its pool slot, per token
// 3 casts, per head 15 kernels. Sequences and heads are independent, the tokens are not: a plan has no
// loops, so the 4 tokens are written out in order and each operation of the head loop is one launch over
// all 32 x 16 (sequence, head) pairs (pair p = b * 16 + h), the per-sequence clones one gather launch.
// The mms eager sends to cuBLAS (k @ old, the k=1 outer products, q @ S) are matmul steps batched over
// the pairs. Layouts: the working state is the clone's k-last [V, K] memory, read as [K, V]; elementwise
// results keep it; the outer products are row-major [K, V] and read transposed.
#include "mkb_ops.cuh"

constexpr unsigned kDim = 128, kVHeads = 16, kGroup = 2, kSeqLen = 4;
constexpr unsigned kRow = kVHeads * kDim;       // one token of [B, T, 16, 128]
constexpr unsigned kMat = kDim * kDim;

// x = a.to(fp32) + dt_bias; g = exp(-exp(A_log) * softplus(x)); beta = sigmoid(b.to(fp32)), over [B, T, 16]
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(add_heads, float, (const float *x, const float *per_head), x[i] + per_head[i % kVHeads])
MKB_MAP(exp_map, float, (const float *x), expf(x[i]))
MKB_MAP(neg_map, float, (const float *x), -x[i])
MKB_MAP(softplus_map, float, (const float *x), x[i] * 1.0f > 20.0f ? x[i] : log1pf(expf(x[i] * 1.0f)) / 1.0f)
MKB_MAP(mul_heads, float, (const float *per_head, const float *x), per_head[i % kVHeads] * x[i])
MKB_MAP(sigmoid_map, float, (const float *x), 1.0f / (1.0f + expf(-x[i])))
// q.repeat_interleave(2, dim=2) in bf16: [B, T, 8, 128] -> [B, T, 16, 128]
MKB_MAP(repeat_heads, bf16, (const bf16 *x), x[(i / kRow) * (kRow / kGroup) + ((i / kDim) % kVHeads) / kGroup * kDim + i % kDim])
// torch.zeros(B, T, 16, 128, dtype=bf16)
MKB_MAP(fill_bf16, bf16, (float value), value)
// state_HVK = initial_state[indices[b]].clone(), for every b
MKB_MAP(gather_slots, float, (const float *pool, const int *indices), pool[(long long)indices[i / (kVHeads * kMat)] * kVHeads * kMat + i % (kVHeads * kMat)])
// q_exp[b, t].to(fp32) (and k, v) for every b: [B, 16, 128] from token t of [B, T, 16, 128]
MKB_MAP(cast_token, float, (const bf16 *x, int t), f32(x[((i / kRow) * kSeqLen + t) * kRow + i % kRow]))
// g_val * h_state: g of pair p at token t; per = elements per pair
MKB_MAP(scale_token, float, (const float *per_token, const float *x, unsigned per, int t), per_token[((i / per) / kVHeads * kSeqLen + t) * kVHeads + (i / per) % kVHeads] * x[i])
// 1 - beta_val for every pair at token t
MKB_MAP(rsub_token, float, (const float *x, int t), 1.0f - x[(i / kVHeads * kSeqLen + t) * kVHeads + i % kVHeads])
MKB_MAP(scale_pairs, float, (const float *per_pair, const float *x, unsigned per), per_pair[i / per] * x[i])
MKB_MAP(add_f32, float, (const float *x, const float *y), x[i] + y[i])
MKB_MAP(sub_transposed, float, (const float *x, const float *y), x[i] - y[(i / kMat) * kMat + (i % kDim) * kDim + (i / kDim) % kDim])
MKB_MAP(add_transposed, float, (const float *x, const float *y), x[i] + y[(i / kMat) * kMat + (i % kDim) * kDim + (i / kDim) % kDim])
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
// state_HVK[h] = h_state (same layout)
MKB_MAP(copy_f32, float, (const float *x), x[i])

// output[b, t, h] = o: a copy into token t's rows of [B, T, 16, 128]
extern "C" __global__ void scatter_token(bf16 *out, const bf16 *src, int t, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[((i / kRow) * kSeqLen + t) * kRow + i % kRow] = src[i];
}

/* mkb:plan
scratch a32 fp32[batch_size * seq_len * num_v_heads]
scratch x fp32[batch_size * seq_len * num_v_heads]
scratch sp fp32[batch_size * seq_len * num_v_heads]
scratch gm fp32[batch_size * seq_len * num_v_heads]
scratch g fp32[batch_size * seq_len * num_v_heads]
scratch b32 fp32[batch_size * seq_len * num_v_heads]
scratch beta fp32[batch_size * seq_len * num_v_heads]
scratch a_exp fp32[num_v_heads]
scratch a_neg fp32[num_v_heads]
scratch q_exp bf16[batch_size * seq_len * num_v_heads * head_size]
scratch k_exp bf16[batch_size * seq_len * num_v_heads * head_size]
scratch ws fp32[batch_size * num_v_heads * head_size * head_size]
scratch qf fp32[batch_size * num_v_heads * head_size]
scratch kf fp32[batch_size * num_v_heads * head_size]
scratch vf fp32[batch_size * num_v_heads * head_size]
scratch old_v fp32[batch_size * num_v_heads * head_size]
scratch bv fp32[batch_size * num_v_heads * head_size]
scratch t2 fp32[batch_size * num_v_heads * head_size]
scratch new_v fp32[batch_size * num_v_heads * head_size]
scratch qh fp32[batch_size * num_v_heads * head_size]
scratch o1 fp32[batch_size * num_v_heads * head_size]
scratch omb fp32[batch_size * num_v_heads]
scratch old fp32[batch_size * num_v_heads * head_size * head_size]
scratch rem fp32[batch_size * num_v_heads * head_size * head_size]
scratch upd fp32[batch_size * num_v_heads * head_size * head_size]
scratch h1 fp32[batch_size * num_v_heads * head_size * head_size]
scratch h2 fp32[batch_size * num_v_heads * head_size * head_size]
scratch ob bf16[batch_size * num_v_heads * head_size]
launch to_f32 grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(a32, a, i64(batch_size * seq_len * num_v_heads))
launch add_heads grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(x, a32, dt_bias, i64(batch_size * seq_len * num_v_heads))
launch exp_map grid(ceil_div(num_v_heads, 1024)) block(256) args(a_exp, A_log, i64(num_v_heads))
launch neg_map grid(ceil_div(num_v_heads, 1024)) block(256) args(a_neg, a_exp, i64(num_v_heads))
launch softplus_map grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(sp, x, i64(batch_size * seq_len * num_v_heads))
launch mul_heads grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(gm, a_neg, sp, i64(batch_size * seq_len * num_v_heads))
launch exp_map grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(g, gm, i64(batch_size * seq_len * num_v_heads))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(b32, b, i64(batch_size * seq_len * num_v_heads))
launch sigmoid_map grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(beta, b32, i64(batch_size * seq_len * num_v_heads))
launch repeat_heads grid(ceil_div(batch_size * seq_len * num_v_heads * head_size, 1024)) block(256) args(q_exp, q, i64(batch_size * seq_len * num_v_heads * head_size))
launch repeat_heads grid(ceil_div(batch_size * seq_len * num_v_heads * head_size, 1024)) block(256) args(k_exp, k, i64(batch_size * seq_len * num_v_heads * head_size))
launch fill_bf16 grid(ceil_div(batch_size * seq_len * num_v_heads * head_size, 1024)) block(256) args(output, f32(0), i64(batch_size * seq_len * num_v_heads * head_size))
launch gather_slots grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(ws, initial_state, initial_state_indices, i64(batch_size * num_v_heads * head_size * head_size))
# draft token 0
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(qf, q_exp, i32(0), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(kf, k_exp, i32(0), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(vf, v, i32(0), i64(batch_size * num_v_heads * head_size))
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(old, g, ws, u32(head_size * head_size), i32(0), i64(batch_size * num_v_heads * head_size * head_size))
matmul c(old_v) a(kf) b(old) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(bv, beta, vf, u32(head_size), i32(0), i64(batch_size * num_v_heads * head_size))
launch rsub_token grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(omb, beta, i32(0), i64(batch_size * num_v_heads))
launch scale_pairs grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(t2, omb, old_v, u32(head_size), i64(batch_size * num_v_heads * head_size))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(new_v, bv, t2, i64(batch_size * num_v_heads * head_size))
matmul c(rem) a(kf) b(old_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
matmul c(upd) a(kf) b(new_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
launch sub_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h1, old, rem, i64(batch_size * num_v_heads * head_size * head_size))
launch add_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h2, h1, upd, i64(batch_size * num_v_heads * head_size * head_size))
matmul c(qh) a(qf) b(h2) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch mul_scalar grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(o1, qh, f32(scale), i64(batch_size * num_v_heads * head_size))
launch to_bf16 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(ob, o1, i64(batch_size * num_v_heads * head_size))
launch scatter_token grid(ceil_div(batch_size * num_v_heads * head_size, 256)) block(256) args(output, ob, i32(0), i64(batch_size * num_v_heads * head_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(ws, h2, i64(batch_size * num_v_heads * head_size * head_size))
# draft token 1
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(qf, q_exp, i32(1), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(kf, k_exp, i32(1), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(vf, v, i32(1), i64(batch_size * num_v_heads * head_size))
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(old, g, ws, u32(head_size * head_size), i32(1), i64(batch_size * num_v_heads * head_size * head_size))
matmul c(old_v) a(kf) b(old) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(bv, beta, vf, u32(head_size), i32(1), i64(batch_size * num_v_heads * head_size))
launch rsub_token grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(omb, beta, i32(1), i64(batch_size * num_v_heads))
launch scale_pairs grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(t2, omb, old_v, u32(head_size), i64(batch_size * num_v_heads * head_size))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(new_v, bv, t2, i64(batch_size * num_v_heads * head_size))
matmul c(rem) a(kf) b(old_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
matmul c(upd) a(kf) b(new_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
launch sub_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h1, old, rem, i64(batch_size * num_v_heads * head_size * head_size))
launch add_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h2, h1, upd, i64(batch_size * num_v_heads * head_size * head_size))
matmul c(qh) a(qf) b(h2) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch mul_scalar grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(o1, qh, f32(scale), i64(batch_size * num_v_heads * head_size))
launch to_bf16 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(ob, o1, i64(batch_size * num_v_heads * head_size))
launch scatter_token grid(ceil_div(batch_size * num_v_heads * head_size, 256)) block(256) args(output, ob, i32(1), i64(batch_size * num_v_heads * head_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(ws, h2, i64(batch_size * num_v_heads * head_size * head_size))
# draft token 2
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(qf, q_exp, i32(2), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(kf, k_exp, i32(2), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(vf, v, i32(2), i64(batch_size * num_v_heads * head_size))
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(old, g, ws, u32(head_size * head_size), i32(2), i64(batch_size * num_v_heads * head_size * head_size))
matmul c(old_v) a(kf) b(old) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(bv, beta, vf, u32(head_size), i32(2), i64(batch_size * num_v_heads * head_size))
launch rsub_token grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(omb, beta, i32(2), i64(batch_size * num_v_heads))
launch scale_pairs grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(t2, omb, old_v, u32(head_size), i64(batch_size * num_v_heads * head_size))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(new_v, bv, t2, i64(batch_size * num_v_heads * head_size))
matmul c(rem) a(kf) b(old_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
matmul c(upd) a(kf) b(new_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
launch sub_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h1, old, rem, i64(batch_size * num_v_heads * head_size * head_size))
launch add_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h2, h1, upd, i64(batch_size * num_v_heads * head_size * head_size))
matmul c(qh) a(qf) b(h2) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch mul_scalar grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(o1, qh, f32(scale), i64(batch_size * num_v_heads * head_size))
launch to_bf16 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(ob, o1, i64(batch_size * num_v_heads * head_size))
launch scatter_token grid(ceil_div(batch_size * num_v_heads * head_size, 256)) block(256) args(output, ob, i32(2), i64(batch_size * num_v_heads * head_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(ws, h2, i64(batch_size * num_v_heads * head_size * head_size))
# draft token 3
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(qf, q_exp, i32(3), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(kf, k_exp, i32(3), i64(batch_size * num_v_heads * head_size))
launch cast_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(vf, v, i32(3), i64(batch_size * num_v_heads * head_size))
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(old, g, ws, u32(head_size * head_size), i32(3), i64(batch_size * num_v_heads * head_size * head_size))
matmul c(old_v) a(kf) b(old) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch scale_token grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(bv, beta, vf, u32(head_size), i32(3), i64(batch_size * num_v_heads * head_size))
launch rsub_token grid(ceil_div(batch_size * num_v_heads, 1024)) block(256) args(omb, beta, i32(3), i64(batch_size * num_v_heads))
launch scale_pairs grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(t2, omb, old_v, u32(head_size), i64(batch_size * num_v_heads * head_size))
launch add_f32 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(new_v, bv, t2, i64(batch_size * num_v_heads * head_size))
matmul c(rem) a(kf) b(old_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
matmul c(upd) a(kf) b(new_v) m(head_size) n(head_size) k(1) batch(batch_size * num_v_heads)
launch sub_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h1, old, rem, i64(batch_size * num_v_heads * head_size * head_size))
launch add_transposed grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(h2, h1, upd, i64(batch_size * num_v_heads * head_size * head_size))
matmul c(qh) a(qf) b(h2) m(1) n(head_size) k(head_size) batch(batch_size * num_v_heads) transpose_b
launch mul_scalar grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(o1, qh, f32(scale), i64(batch_size * num_v_heads * head_size))
launch to_bf16 grid(ceil_div(batch_size * num_v_heads * head_size, 1024)) block(256) args(ob, o1, i64(batch_size * num_v_heads * head_size))
launch scatter_token grid(ceil_div(batch_size * num_v_heads * head_size, 256)) block(256) args(output, ob, i32(3), i64(batch_size * num_v_heads * head_size))
launch copy_f32 grid(ceil_div(batch_size * num_v_heads * head_size * head_size, 1024)) block(256) args(ws, h2, i64(batch_size * num_v_heads * head_size * head_size))
# final_state = initial_state.clone()
launch copy_f32 grid(ceil_div(pool_size * num_v_heads * head_size * head_size, 1024)) block(256) args(final_state, initial_state, i64(pool_size * num_v_heads * head_size * head_size))
*/
