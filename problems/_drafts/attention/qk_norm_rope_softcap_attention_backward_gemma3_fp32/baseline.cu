// The unfused eager baseline of the reconstructed Gemma 3 attention-core backward (eager.py's op sequence):
// every GEMM an fp32 cuBLAS matmul step (no TF32), every other eager op one launch over fp32 tensors in
// memory, one rounding per op. Per-head tensors: "flat" = [B, S, heads, D] memory order (the projections'
// layout, which eager's elementwise ops keep for the transposed views before the attention), "head" =
// [B, heads, S, D] (the batched matmuls' layout, used after the attention). Python scalars enter as fp32.
#include "mkb_ops.cuh"

constexpr int D = 128, HALF = 64;

// ---- index helpers -----------------------------------------------------------------------------------
// head-layout index i of [B, heads, S, D] -> the flat [B, S, heads, D] index of the same element
__device__ __forceinline__ long long flat_of_head(long long i, int S, int heads) {
  const long long d = i % D, s = (i / D) % S, h = (i / ((long long)D * S)) % heads, b = i / ((long long)D * S * heads);
  return ((b * S + s) * heads + h) * D + d;
}
// head-layout index -> the per-(token, head) row of a flat tensor: (b * S + s) * heads + h
__device__ __forceinline__ long long tokrow_of_head(long long i, int S, int heads) { return flat_of_head(i, S, heads) / D; }
// flat index of [B, S, heads, D] -> index into a [B, S, D] table (cos, sin)
__device__ __forceinline__ long long table_of_flat(long long i, int heads) { return (i / ((long long)D * heads)) * D + i % D; }
// head index of [B, heads, S, D] -> index into a [B, S, D] table
__device__ __forceinline__ long long table_of_head(long long i, int S, int heads) {
  return ((i / ((long long)D * S * heads)) * S + (i / D) % S) * D + i % D;
}
// head index of [B, heads, S, D] -> flat [B, S, src_heads, D] index of head h / rep (repeat_kv, copies)
__device__ __forceinline__ long long flat_src_of_head(long long i, int S, int heads, int src_heads, int rep) {
  const long long d = i % D, s = (i / D) % S, h = (i / ((long long)D * S)) % heads, b = i / ((long long)D * S * heads);
  return ((b * S + s) * src_heads + h / rep) * D + d;
}
// flat index of [B, S, heads, D] -> head index of [B, heads, S, D]  (x.transpose(1, 2).contiguous())
__device__ __forceinline__ long long head_of_flat(long long i, int S, int heads) {
  const long long d = i % D, h = (i / D) % heads, s = (i / ((long long)D * heads)) % S, b = i / ((long long)D * heads * S);
  return ((b * heads + h) * S + s) * D + d;
}

// ---- elementwise ops (one eager op each) ---------------------------------------------------------------
MKB_MAP(sq_map, float, (const float *a), a[i] * a[i])                         // x.pow(2)
MKB_MAP(add_scalar, float, (const float *a, float s), a[i] + s)               // x + eps, 1.0 + w
MKB_MAP(mul_scalar, float, (const float *a, float s), a[i] * s)               // x * scaling, x * softcap, x / softcap (as x * (1 / softcap))
MKB_MAP(rsub_scalar, float, (const float *a, float s), s - a[i])              // 1.0 - x
MKB_MAP(rsqrt_map, float, (const float *a), rsqrtf(a[i]))                     // torch.rsqrt
MKB_MAP(tanh_map, float, (const float *a), tanhf(a[i]))                       // torch.tanh
MKB_MAP(add_map, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(mul_map, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(sub_map, float, (const float *a, const float *b), a[i] - b[i])
MKB_MAP(mul_row, float, (const float *a, const float *v, int cols), a[i] * v[i / cols])   // [rows, cols] * [rows, 1]
MKB_MAP(row_mul, float, (const float *v, const float *a, int cols), v[i / cols] * a[i])   // [rows, 1] * [rows, cols]
MKB_MAP(sub_row, float, (const float *a, const float *v, int cols), a[i] - v[i / cols])   // [rows, cols] - [rows, 1]
MKB_MAP(mul_col, float, (const float *a, const float *w), a[i] * w[i % D])                // [.., D] * [D]
// flat-layout x * cos.unsqueeze(1) (cos [B, S, D] broadcast over heads)
MKB_MAP(mul_table_flat, float, (const float *a, const float *c, int heads), a[i] * c[table_of_flat(i, heads)])
// head-layout x * cos.unsqueeze(1)
MKB_MAP(mul_table_head, float, (const float *a, const float *c, int S, int heads), a[i] * c[table_of_head(i, S, heads)])
// head-layout a * (flat-layout f)  (d_q_n * q_hat)
MKB_MAP(mul_head_flat, float, (const float *a, const float *f, int S, int heads), a[i] * f[flat_of_head(i, S, heads)])
// (flat-layout f) * (head-layout per-row v)  (q_hat * dot: the result in head order)
MKB_MAP(flat_mul_row_head, float, (const float *f, const float *v, int S, int heads), f[flat_of_head(i, S, heads)] * v[i / D])
// (per-(token, head) rstd) * (head-layout a)
MKB_MAP(tokrow_mul_head, float, (const float *r, const float *a, int S, int heads), r[tokrow_of_head(i, S, heads)] * a[i])
// -x[..., 64:] and -x[..., :64] of [rows, 128] into [rows, 64]
MKB_MAP(neg_upper_half, float, (const float *a), -a[(i / HALF) * D + HALF + i % HALF])
MKB_MAP(neg_lower_half, float, (const float *a), -a[(i / HALF) * D + i % HALF])
// torch.cat((first [rows, 64], x[..., :64]), -1) and torch.cat((x[..., 64:], second [rows, 64]), -1)
MKB_MAP(cat_half_lower, float, (const float *h, const float *a),
        i % D < HALF ? h[(i / D) * HALF + i % D] : a[(i / D) * D + i % D - HALF])
MKB_MAP(cat_upper_half, float, (const float *a, const float *h),
        i % D < HALF ? a[(i / D) * D + HALF + i % D] : h[(i / D) * HALF + i % D - HALF])
// copies: repeat_kv's expand + reshape and torch.matmul's reshape (flat -> head), transpose(1, 2).contiguous() (head -> flat)
MKB_MAP(flat_to_head, float, (const float *a, int S, int heads, int src_heads, int rep), a[flat_src_of_head(i, S, heads, src_heads, rep)])
MKB_MAP(head_to_flat, float, (const float *a, int S, int heads), a[head_of_flat(i, S, heads)])
// .view(B, groups, rep, S, D).sum(dim=2)
__device__ __forceinline__ float group_sum(const float *a, long long i, int S, int groups, int rep) {
  const long long inner = i % ((long long)D * S), g = (i / ((long long)D * S)) % groups, b = i / ((long long)D * S * groups);
  float acc = 0.0f;
  for (int r = 0; r < rep; ++r) acc += a[((b * groups + g) * rep + r) * ((long long)D * S) + inner];
  return acc;
}
MKB_MAP(group_sum_map, float, (const float *a, int S, int groups, int rep), group_sum(a, i, S, groups, rep))
// scores.masked_fill(mask, -inf), mask [S, S] broadcast over (b, h)
MKB_MAP(masked_fill_map, float, (const float *a, const unsigned char *m, long long plane),
        m[i % plane] ? -__int_as_float(0x7f800000) : a[i])

// ---- reductions -----------------------------------------------------------------------------------------
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *a), a[r * cols + c], acc / cols)
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *a), a[r * cols + c], acc)
MKB_COL_REDUCE(col_sum_partial, float, float, mkb_ops::sum_op, (const float *a), a[((long long)b * rows + r) * cols + c], acc)
MKB_COL_REDUCE(col_sum_final, float, float, mkb_ops::sum_op, (const float *a), a[(long long)r * cols + c], acc)

// torch.ones(S, S, dtype=bool) and torch.triu(.., diagonal=1)
extern "C" __global__ void ones_u8(unsigned char *out, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) out[i] = 1;
}
extern "C" __global__ void triu_u8(unsigned char *out, const unsigned char *a, int S) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)S * S; i += (long long)gridDim.x * blockDim.x)
    out[i] = (i % S) - (i / S) >= 1 ? a[i] : 0;
}

// torch.softmax(x, dim=-1) over rows of `cols`, one warp per row: max, sum of exp(x - max), exp(x - max) / sum.
extern "C" __global__ void softmax_rows(float *out, const float *x, long long rows, int cols) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float *xr = x + row * cols;
  float m = -__int_as_float(0x7f800000);
  for (int j = lane; j < cols; j += 32) m = fmaxf(m, xr[j]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float sum = 0.0f;
  for (int j = lane; j < cols; j += 32) sum += expf(xr[j] - m);
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  for (int j = lane; j < cols; j += 32) out[row * cols + j] = expf(xr[j] - m) / sum;
}

/* mkb:plan
# sizes: QN = B*S*3072 = B*S*24*D (q-shaped), KN = B*S*1024 (k-shaped), SC = B*24*S*S (score-shaped)
scratch qraw fp32[batch_size * seq_len * q_proj_out]
scratch kraw fp32[batch_size * seq_len * kv_proj_out]
scratch vraw fp32[batch_size * seq_len * kv_proj_out]
scratch qsq fp32[batch_size * seq_len * q_proj_out]
scratch qvar fp32[batch_size * seq_len * num_attention_heads]
scratch qve fp32[batch_size * seq_len * num_attention_heads]
scratch qrs fp32[batch_size * seq_len * num_attention_heads]
scratch qhat fp32[batch_size * seq_len * q_proj_out]
scratch w1q fp32[head_dim]
scratch qn fp32[batch_size * seq_len * q_proj_out]
scratch ksq fp32[batch_size * seq_len * kv_proj_out]
scratch kvar fp32[batch_size * seq_len * num_key_value_heads]
scratch kve fp32[batch_size * seq_len * num_key_value_heads]
scratch krs fp32[batch_size * seq_len * num_key_value_heads]
scratch khat fp32[batch_size * seq_len * kv_proj_out]
scratch w1k fp32[head_dim]
scratch kn fp32[batch_size * seq_len * kv_proj_out]
scratch qnh fp32[batch_size * seq_len * q_proj_out / 2]
scratch qrot fp32[batch_size * seq_len * q_proj_out]
scratch qa fp32[batch_size * seq_len * q_proj_out]
scratch qb fp32[batch_size * seq_len * q_proj_out]
scratch qemb fp32[batch_size * seq_len * q_proj_out]
scratch knh fp32[batch_size * seq_len * kv_proj_out / 2]
scratch krot fp32[batch_size * seq_len * kv_proj_out]
scratch ka fp32[batch_size * seq_len * kv_proj_out]
scratch kb fp32[batch_size * seq_len * kv_proj_out]
scratch kemb fp32[batch_size * seq_len * kv_proj_out]
scratch krep fp32[batch_size * seq_len * q_proj_out]
scratch vrep fp32[batch_size * seq_len * q_proj_out]
scratch qec fp32[batch_size * seq_len * q_proj_out]
scratch sa fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch sb fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch sc fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch tt fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch probs fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch dprobs fp32[batch_size * num_attention_heads * seq_len * seq_len]
scratch ones uint8[seq_len * seq_len]
scratch mask uint8[seq_len * seq_len]
scratch attn fp32[batch_size * seq_len * q_proj_out]
scratch ctx fp32[batch_size * seq_len * q_proj_out]
scratch dctx fp32[batch_size * seq_len * q_proj_out]
scratch dac1 fp32[batch_size * seq_len * q_proj_out]
scratch dac2 fp32[batch_size * seq_len * q_proj_out]
scratch dvrep fp32[batch_size * seq_len * q_proj_out]
scratch sumterm fp32[batch_size * num_attention_heads * seq_len]
scratch dqe fp32[batch_size * seq_len * q_proj_out]
scratch dkrep fp32[batch_size * seq_len * q_proj_out]
scratch dke fp32[batch_size * seq_len * kv_proj_out]
scratch dvh fp32[batch_size * seq_len * kv_proj_out]
scratch dqc fp32[batch_size * seq_len * q_proj_out]
scratch dqs fp32[batch_size * seq_len * q_proj_out]
scratch dqh fp32[batch_size * seq_len * q_proj_out / 2]
scratch dqr fp32[batch_size * seq_len * q_proj_out]
scratch dqn fp32[batch_size * seq_len * q_proj_out]
scratch dkc fp32[batch_size * seq_len * kv_proj_out]
scratch dks fp32[batch_size * seq_len * kv_proj_out]
scratch dkh fp32[batch_size * seq_len * kv_proj_out / 2]
scratch dkr fp32[batch_size * seq_len * kv_proj_out]
scratch dkn fp32[batch_size * seq_len * kv_proj_out]
scratch dqhat fp32[batch_size * seq_len * q_proj_out]
scratch gq fp32[batch_size * seq_len * q_proj_out]
scratch part fp32[384 * head_dim]
scratch qve2 fp32[batch_size * seq_len * num_attention_heads]
scratch qrs2 fp32[batch_size * seq_len * num_attention_heads]
scratch pq fp32[batch_size * seq_len * q_proj_out]
scratch qdot fp32[batch_size * seq_len * num_attention_heads]
scratch qhd fp32[batch_size * seq_len * q_proj_out]
scratch qdiff fp32[batch_size * seq_len * q_proj_out]
scratch dq fp32[batch_size * seq_len * q_proj_out]
scratch dkhat fp32[batch_size * seq_len * kv_proj_out]
scratch gk fp32[batch_size * seq_len * kv_proj_out]
scratch kve2 fp32[batch_size * seq_len * num_key_value_heads]
scratch krs2 fp32[batch_size * seq_len * num_key_value_heads]
scratch pk fp32[batch_size * seq_len * kv_proj_out]
scratch kdot fp32[batch_size * seq_len * num_key_value_heads]
scratch khd fp32[batch_size * seq_len * kv_proj_out]
scratch kdiff fp32[batch_size * seq_len * kv_proj_out]
scratch dk fp32[batch_size * seq_len * kv_proj_out]
scratch dqf fp32[batch_size * seq_len * q_proj_out]
scratch dkf fp32[batch_size * seq_len * kv_proj_out]
scratch dvf fp32[batch_size * seq_len * kv_proj_out]
scratch dxq fp32[batch_size * seq_len * hidden_size]
scratch dxk fp32[batch_size * seq_len * hidden_size]
scratch dxv fp32[batch_size * seq_len * hidden_size]
scratch dxqk fp32[batch_size * seq_len * hidden_size]
# ---- forward recompute: q, k, v = F.linear(hidden_states, W)
matmul c(qraw) a(hidden_states) b(q_weight) m(batch_size * seq_len) n(q_proj_out) k(hidden_size) transpose_b
matmul c(kraw) a(hidden_states) b(k_weight) m(batch_size * seq_len) n(kv_proj_out) k(hidden_size) transpose_b
matmul c(vraw) a(hidden_states) b(v_weight) m(batch_size * seq_len) n(kv_proj_out) k(hidden_size) transpose_b
# q_var = q.pow(2).mean(-1); q_hat = q * rsqrt(q_var + eps); q_n = q_hat * (1.0 + q_norm_weight)
launch sq_map grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qsq, qraw, i64(batch_size * seq_len * q_proj_out))
launch row_mean grid(batch_size * seq_len * num_attention_heads) block(128) args(qvar, qsq, i32(head_dim))
launch add_scalar grid(ceil_div(batch_size * seq_len * num_attention_heads, 1024)) block(256) args(qve, qvar, f32(rms_norm_eps), i64(batch_size * seq_len * num_attention_heads))
launch rsqrt_map grid(ceil_div(batch_size * seq_len * num_attention_heads, 1024)) block(256) args(qrs, qve, i64(batch_size * seq_len * num_attention_heads))
launch mul_row grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qhat, qraw, qrs, i32(head_dim), i64(batch_size * seq_len * q_proj_out))
launch add_scalar grid(1) block(256) args(w1q, q_norm_weight, f32(1.0), i64(head_dim))
launch mul_col grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qn, qhat, w1q, i64(batch_size * seq_len * q_proj_out))
# the same for k
launch sq_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(ksq, kraw, i64(batch_size * seq_len * kv_proj_out))
launch row_mean grid(batch_size * seq_len * num_key_value_heads) block(128) args(kvar, ksq, i32(head_dim))
launch add_scalar grid(ceil_div(batch_size * seq_len * num_key_value_heads, 1024)) block(256) args(kve, kvar, f32(rms_norm_eps), i64(batch_size * seq_len * num_key_value_heads))
launch rsqrt_map grid(ceil_div(batch_size * seq_len * num_key_value_heads, 1024)) block(256) args(krs, kve, i64(batch_size * seq_len * num_key_value_heads))
launch mul_row grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(khat, kraw, krs, i32(head_dim), i64(batch_size * seq_len * kv_proj_out))
launch add_scalar grid(1) block(256) args(w1k, k_norm_weight, f32(1.0), i64(head_dim))
launch mul_col grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(kn, khat, w1k, i64(batch_size * seq_len * kv_proj_out))
# q_emb = q_n * cos + cat(-q2, q1) * sin
launch neg_upper_half grid(ceil_div(batch_size * seq_len * q_proj_out / 2, 1024)) block(256) args(qnh, qn, i64(batch_size * seq_len * q_proj_out / 2))
launch cat_half_lower grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qrot, qnh, qn, i64(batch_size * seq_len * q_proj_out))
launch mul_table_flat grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qa, qn, cos, i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch mul_table_flat grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qb, qrot, sin, i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch add_map grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qemb, qa, qb, i64(batch_size * seq_len * q_proj_out))
# k_emb likewise
launch neg_upper_half grid(ceil_div(batch_size * seq_len * kv_proj_out / 2, 1024)) block(256) args(knh, kn, i64(batch_size * seq_len * kv_proj_out / 2))
launch cat_half_lower grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(krot, knh, kn, i64(batch_size * seq_len * kv_proj_out))
launch mul_table_flat grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(ka, kn, cos, i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch mul_table_flat grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(kb, krot, sin, i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch add_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(kemb, ka, kb, i64(batch_size * seq_len * kv_proj_out))
# repeat_kv of k_emb and v (expand + reshape copies), q_emb's reshape copy for the batched matmul
launch flat_to_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(krep, kemb, i32(seq_len), i32(num_attention_heads), i32(num_key_value_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * q_proj_out))
launch flat_to_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(vrep, vraw, i32(seq_len), i32(num_attention_heads), i32(num_key_value_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * q_proj_out))
launch flat_to_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(qec, qemb, i32(seq_len), i32(num_attention_heads), i32(num_attention_heads), i32(1), i64(batch_size * seq_len * q_proj_out))
# scores = (q_emb @ k_rep^T) * scaling; / softcap; tanh; * softcap; masked_fill; softmax
matmul c(sa) a(qec) b(krep) m(seq_len) n(seq_len) k(head_dim) batch(batch_size * num_attention_heads) transpose_b
launch mul_scalar grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sb, sa, f32(scaling), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch mul_scalar grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sc, sb, f32(1.0 / attn_logit_softcapping), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch tanh_map grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(tt, sc, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch mul_scalar grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sa, tt, f32(attn_logit_softcapping), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch ones_u8 grid(ceil_div(seq_len * seq_len, 256)) block(256) args(ones, i64(seq_len * seq_len))
launch triu_u8 grid(ceil_div(seq_len * seq_len, 256)) block(256) args(mask, ones, i32(seq_len))
launch masked_fill_map grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256)
  args(sb, sa, mask, i64(seq_len * seq_len), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch softmax_rows grid(ceil_div(batch_size * num_attention_heads * seq_len, 8)) block(256)
  args(probs, sb, i64(batch_size * num_attention_heads * seq_len), i32(seq_len))
# attn = probs @ v_rep; ctx = attn.transpose(1, 2).contiguous(); grad_o_weight = grad_output^T ctx
matmul c(attn) a(probs) b(vrep) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads)
launch head_to_flat grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(ctx, attn, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
matmul c(grad_o_weight) a(grad_output) b(ctx) m(hidden_size) n(q_proj_out) k(batch_size * seq_len) transpose_a
# d_attn = grad_output @ o_weight (flat); each torch.matmul reshapes the transposed view into a copy
matmul c(dctx) a(grad_output) b(o_weight) m(batch_size * seq_len) n(q_proj_out) k(hidden_size)
launch flat_to_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(dac1, dctx, i32(seq_len), i32(num_attention_heads), i32(num_attention_heads), i32(1), i64(batch_size * seq_len * q_proj_out))
matmul c(dprobs) a(dac1) b(vrep) m(seq_len) n(seq_len) k(head_dim) batch(batch_size * num_attention_heads) transpose_b
launch flat_to_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(dac2, dctx, i32(seq_len), i32(num_attention_heads), i32(num_attention_heads), i32(1), i64(batch_size * seq_len * q_proj_out))
matmul c(dvrep) a(probs) b(dac2) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads) transpose_a
# sum_term = (d_probs * probs).sum(-1); d_capped = probs * (d_probs - sum_term); d_s = d_capped * (1 - t^2) * scaling
launch mul_map grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sa, dprobs, probs, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch row_sum grid(batch_size * num_attention_heads * seq_len) block(256) args(sumterm, sa, i32(seq_len))
launch sub_row grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sb, dprobs, sumterm, i32(seq_len), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch mul_map grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sc, probs, sb, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch mul_map grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sa, tt, tt, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch rsub_scalar grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sb, sa, f32(1.0), i64(batch_size * num_attention_heads * seq_len * seq_len))
launch mul_map grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sa, sc, sb, i64(batch_size * num_attention_heads * seq_len * seq_len))
launch mul_scalar grid(ceil_div(batch_size * num_attention_heads * seq_len * seq_len, 1024)) block(256) args(sb, sa, f32(scaling), i64(batch_size * num_attention_heads * seq_len * seq_len))
# d_q_emb = d_s @ k_rep; d_k_rep = d_s^T @ q_emb; group sums over the 3 query heads of each kv head
matmul c(dqe) a(sb) b(krep) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads)
matmul c(dkrep) a(sb) b(qec) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads) transpose_a
launch group_sum_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256)
  args(dke, dkrep, i32(seq_len), i32(num_key_value_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch group_sum_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256)
  args(dvh, dvrep, i32(seq_len), i32(num_key_value_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
# RoPE backward (head layout): d_n = d * cos + cat(y[..., 64:], -y[..., :64]), y = d * sin
launch mul_table_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(dqc, dqe, cos, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch mul_table_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(dqs, dqe, sin, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch neg_lower_half grid(ceil_div(batch_size * seq_len * q_proj_out / 2, 1024)) block(256) args(dqh, dqs, i64(batch_size * seq_len * q_proj_out / 2))
launch cat_upper_half grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(dqr, dqs, dqh, i64(batch_size * seq_len * q_proj_out))
launch add_map grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(dqn, dqc, dqr, i64(batch_size * seq_len * q_proj_out))
launch mul_table_head grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dkc, dke, cos, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch mul_table_head grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dks, dke, sin, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch neg_lower_half grid(ceil_div(batch_size * seq_len * kv_proj_out / 2, 1024)) block(256) args(dkh, dks, i64(batch_size * seq_len * kv_proj_out / 2))
launch cat_upper_half grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dkr, dks, dkh, i64(batch_size * seq_len * kv_proj_out))
launch add_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dkn, dkc, dkr, i64(batch_size * seq_len * kv_proj_out))
# q RMSNorm backward: d_hat = d_n * (1 + w); grad_w = sum(d_n * q_hat); d_q = rstd * (d_hat - q_hat * mean(d_hat * q_hat))
launch add_scalar grid(1) block(256) args(w1q, q_norm_weight, f32(1.0), i64(head_dim))
launch mul_col grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(dqhat, dqn, w1q, i64(batch_size * seq_len * q_proj_out))
launch mul_head_flat grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(gq, dqn, qhat, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch col_sum_partial grid(ceil_div(head_dim, 32), batch_size * seq_len * num_attention_heads / 1024) block(32, 8) args(part, gq, i32(1024), i32(head_dim))
launch col_sum_final grid(ceil_div(head_dim, 32), 1) block(32, 8) args(grad_q_norm_weight, part, i32(batch_size * seq_len * num_attention_heads / 1024), i32(head_dim))
launch add_scalar grid(ceil_div(batch_size * seq_len * num_attention_heads, 1024)) block(256) args(qve2, qvar, f32(rms_norm_eps), i64(batch_size * seq_len * num_attention_heads))
launch rsqrt_map grid(ceil_div(batch_size * seq_len * num_attention_heads, 1024)) block(256) args(qrs2, qve2, i64(batch_size * seq_len * num_attention_heads))
launch mul_head_flat grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(pq, dqhat, qhat, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch row_mean grid(batch_size * seq_len * num_attention_heads) block(128) args(qdot, pq, i32(head_dim))
launch flat_mul_row_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qhd, qhat, qdot, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch sub_map grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(qdiff, dqhat, qhd, i64(batch_size * seq_len * q_proj_out))
launch tokrow_mul_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(dq, qrs2, qdiff, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
# k RMSNorm backward
launch add_scalar grid(1) block(256) args(w1k, k_norm_weight, f32(1.0), i64(head_dim))
launch mul_col grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dkhat, dkn, w1k, i64(batch_size * seq_len * kv_proj_out))
launch mul_head_flat grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(gk, dkn, khat, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch col_sum_partial grid(ceil_div(head_dim, 32), batch_size * seq_len * num_key_value_heads / 1024) block(32, 8) args(part, gk, i32(1024), i32(head_dim))
launch col_sum_final grid(ceil_div(head_dim, 32), 1) block(32, 8) args(grad_k_norm_weight, part, i32(batch_size * seq_len * num_key_value_heads / 1024), i32(head_dim))
launch add_scalar grid(ceil_div(batch_size * seq_len * num_key_value_heads, 1024)) block(256) args(kve2, kvar, f32(rms_norm_eps), i64(batch_size * seq_len * num_key_value_heads))
launch rsqrt_map grid(ceil_div(batch_size * seq_len * num_key_value_heads, 1024)) block(256) args(krs2, kve2, i64(batch_size * seq_len * num_key_value_heads))
launch mul_head_flat grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(pk, dkhat, khat, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch row_mean grid(batch_size * seq_len * num_key_value_heads) block(128) args(kdot, pk, i32(head_dim))
launch flat_mul_row_head grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(khd, khat, kdot, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch sub_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(kdiff, dkhat, khd, i64(batch_size * seq_len * kv_proj_out))
launch tokrow_mul_head grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dk, krs2, kdiff, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
# d_*.transpose(1, 2).contiguous() -> flat
launch head_to_flat grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256) args(dqf, dq, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
launch head_to_flat grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dkf, dk, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch head_to_flat grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256) args(dvf, dvh, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
# weight gradients d^T x and the input gradient dq Wq + dk Wk + dv Wv
matmul c(grad_q_weight) a(dqf) b(hidden_states) m(q_proj_out) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_k_weight) a(dkf) b(hidden_states) m(kv_proj_out) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_v_weight) a(dvf) b(hidden_states) m(kv_proj_out) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(dxq) a(dqf) b(q_weight) m(batch_size * seq_len) n(hidden_size) k(q_proj_out)
matmul c(dxk) a(dkf) b(k_weight) m(batch_size * seq_len) n(hidden_size) k(kv_proj_out)
matmul c(dxv) a(dvf) b(v_weight) m(batch_size * seq_len) n(hidden_size) k(kv_proj_out)
launch add_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dxqk, dxq, dxk, i64(batch_size * seq_len * hidden_size))
launch add_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(grad_hidden_states, dxqk, dxv, i64(batch_size * seq_len * hidden_size))
*/
