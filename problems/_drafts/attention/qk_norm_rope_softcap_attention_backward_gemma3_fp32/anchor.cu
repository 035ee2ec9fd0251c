// The float64 anchor of the reconstructed Gemma 3 attention-core backward (reference.md): the forward
// recomputed and the hand-derived backward, every step in double, no rounding point. GEMMs are fp64
// matmul steps on fp64 copies of the inputs; the per-row work (RMSNorm + RoPE, the soft-capped causal
// softmax and their backward passes) is one simple kernel each. Layouts: "flat" tensors are [T, heads * D]
// (token-major, T = B * S, the projections' layout); "head" tensors are [B, heads, S, D].
#include "mkb_ops.cuh"

constexpr int D = 128, HALF = 64;

MKB_MAP(anchor_to_f64, double, (const float *a), f64(a[i]))

// flat [B, S, heads, D] -> head [B, heads, S, D], repeating each source head `rep` times (rep = 1: a transpose)
__device__ __forceinline__ long long anchor_head_src(long long i, int S, int heads, int src_heads, int rep) {
  const long long d = i % D, s = (i / D) % S, h = (i / ((long long)D * S)) % heads, b = i / ((long long)D * S * heads);
  return ((b * S + s) * src_heads + h / rep) * D + d;
}
MKB_MAP(anchor_flat_to_head, double, (const double *a, int S, int heads, int src_heads, int rep),
        a[anchor_head_src(i, S, heads, src_heads, rep)])
// head [B, heads, S, D] -> head [B, heads * rep, S, D] (repeat_kv)
MKB_MAP(anchor_repeat_heads, double, (const double *a, int S, int heads, int rep),
        a[((i / ((long long)D * S * heads)) * (heads / rep) + (i / ((long long)D * S)) % heads / rep) * ((long long)D * S) +
          i % ((long long)D * S)])
// head [B, heads, S, D] -> flat [B, S, heads, D]
MKB_MAP(anchor_head_to_flat, double, (const double *a, int S, int heads),
        a[(((i / ((long long)D * heads * S)) * heads + (i / D) % heads) * S + (i / ((long long)D * heads)) % S) * D + i % D])
// [B, groups * rep, S, D] -> [B, groups, S, D]: the sum over the rep query heads of each kv head
__device__ __forceinline__ double anchor_group_sum(const double *a, long long i, int S, int groups, int rep) {
  const long long inner = i % ((long long)D * S), g = (i / ((long long)D * S)) % groups, b = i / ((long long)D * S * groups);
  double acc = 0.0;
  for (int r = 0; r < rep; ++r) acc += a[((b * groups + g) * rep + r) * ((long long)D * S) + inner];
  return acc;
}
MKB_MAP(anchor_group_sum_map, double, (const double *a, int S, int groups, int rep), anchor_group_sum(a, i, S, groups, rep))

// Forward RMSNorm (1 + w) and RoPE of one (token, head) row per thread. raw: flat [T, heads * D].
// Writes xhat (flat), emb (head layout) and rstd (per flat row t * heads + h).
extern "C" __global__ void anchor_norm_rope_fwd(double *xhat, double *emb, double *rstd, const double *raw,
                                                const float *w, const float *cos_t, const float *sin_t,
                                                int T, int S, int heads, double eps) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= (long long)T * heads) return;
  const long long t = row / heads, h = row % heads, b = t / S, s = t % S;
  const double *x = raw + row * D;
  double ss = 0.0;
  for (int d = 0; d < D; ++d) ss += x[d] * x[d];
  const double r = 1.0 / sqrt(ss / D + eps);
  rstd[row] = r;
  double n[D];
  for (int d = 0; d < D; ++d) {
    xhat[row * D + d] = x[d] * r;
    n[d] = x[d] * r * (1.0 + (double)w[d]);
  }
  double *e = emb + ((b * heads + h) * S + s) * D;
  const float *c = cos_t + t * D, *sn = sin_t + t * D;
  for (int d = 0; d < D; ++d) {
    const double rot = d < HALF ? -n[d + HALF] : n[d - HALF];
    e[d] = n[d] * (double)c[d] + rot * (double)sn[d];
  }
}

// Scores row (b, h, i) -> probabilities: P = softmax_j(cap * tanh(scaling * raw / cap)), j <= i.
extern "C" __global__ void anchor_softmax_fwd(double *P, const double *raw, int S, double scaling, double cap) {
  const long long row = blockIdx.x;
  const int i = (int)(row % S);
  const double *x = raw + row * S;
  double m = -__longlong_as_double(0x7ff0000000000000ll);
  for (int j = threadIdx.x; j < S; j += blockDim.x)
    if (j <= i) m = fmax(m, cap * tanh(scaling * x[j] / cap));
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  double sum = 0.0;
  for (int j = threadIdx.x; j < S; j += blockDim.x)
    if (j <= i) sum += exp(cap * tanh(scaling * x[j] / cap) - m);
  sum = mkb_ops::block_reduce<mkb_ops::sum_op>(sum);
  for (int j = threadIdx.x; j < S; j += blockDim.x)
    P[row * S + j] = j <= i ? exp(cap * tanh(scaling * x[j] / cap) - m) / sum : 0.0;
}

// dP -> dS in place: dS = scaling * (1 - tt^2) * P * (dP - sum_j dP * P), tt = tanh(scaling * raw / cap).
extern "C" __global__ void anchor_softmax_bwd(double *dP, const double *P, const double *raw, int S, double scaling,
                                              double cap) {
  const long long row = blockIdx.x;
  double dot = 0.0;
  for (int j = threadIdx.x; j < S; j += blockDim.x) dot += dP[row * S + j] * P[row * S + j];
  dot = mkb_ops::block_reduce<mkb_ops::sum_op>(dot);
  for (int j = threadIdx.x; j < S; j += blockDim.x) {
    const long long k = row * S + j;
    const double tt = tanh(scaling * raw[k] / cap);
    dP[k] = scaling * (1.0 - tt * tt) * P[k] * (dP[k] - dot);
  }
}

// Backward RoPE and RMSNorm of one (b, h, s) row per thread. demb: head layout [B, heads, S, D];
// xhat, rstd as written by anchor_norm_rope_fwd. Writes prod[row * D + d] = dn * xhat (for the norm
// weight's gradient; rows in head order) and dx into the flat [T, heads * D] layout.
extern "C" __global__ void anchor_norm_rope_bwd(double *dx, double *prod, const double *demb, const double *xhat,
                                                const double *rstd, const float *w, const float *cos_t,
                                                const float *sin_t, int B, int S, int heads) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= (long long)B * heads * S) return;
  const long long s = row % S, h = (row / S) % heads, b = row / ((long long)S * heads);
  const long long t = b * S + s, frow = t * heads + h;
  const double *g = demb + row * D;
  const float *c = cos_t + t * D, *sn = sin_t + t * D;
  double dn[D];
  for (int d = 0; d < D; ++d)
    dn[d] = g[d] * (double)c[d] + (d < HALF ? g[d + HALF] * (double)sn[d + HALF] : -g[d - HALF] * (double)sn[d - HALF]);
  const double *xh = xhat + frow * D;
  double dot = 0.0;
  for (int d = 0; d < D; ++d) {
    prod[row * D + d] = dn[d] * xh[d];
    dot += dn[d] * (1.0 + (double)w[d]) * xh[d];
  }
  dot /= D;
  const double r = rstd[frow];
  for (int d = 0; d < D; ++d) dx[frow * D + d] = r * (dn[d] * (1.0 + (double)w[d]) - xh[d] * dot);
}

// Column sums of prod [rows, D] in two stages: partials over 1024-row batches, then their sum.
MKB_COL_REDUCE(anchor_colsum_partial, double, double, mkb_ops::sum_op, (const double *a),
               a[((long long)b * rows + r) * cols + c], acc)
MKB_COL_REDUCE(anchor_colsum_final, double, double, mkb_ops::sum_op, (const double *a), a[(long long)r * cols + c], acc)

/* mkb:plan
# fp64 copies of the inputs the GEMMs read
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch go64 fp64[batch_size * seq_len * hidden_size]
scratch wq64 fp64[q_proj_out * hidden_size]
scratch wk64 fp64[kv_proj_out * hidden_size]
scratch wv64 fp64[kv_proj_out * hidden_size]
scratch wo64 fp64[hidden_size * q_proj_out]
scratch qraw fp64[batch_size * seq_len * q_proj_out]
scratch kraw fp64[batch_size * seq_len * kv_proj_out]
scratch vraw fp64[batch_size * seq_len * kv_proj_out]
scratch qhat fp64[batch_size * seq_len * q_proj_out]
scratch khat fp64[batch_size * seq_len * kv_proj_out]
scratch qemb fp64[batch_size * seq_len * q_proj_out]
scratch kemb fp64[batch_size * seq_len * kv_proj_out]
scratch qrstd fp64[batch_size * seq_len * num_attention_heads]
scratch krstd fp64[batch_size * seq_len * num_key_value_heads]
scratch krep fp64[batch_size * seq_len * q_proj_out]
scratch vrep fp64[batch_size * seq_len * q_proj_out]
scratch scores fp64[batch_size * num_attention_heads * seq_len * seq_len]
scratch probs fp64[batch_size * num_attention_heads * seq_len * seq_len]
scratch dprobs fp64[batch_size * num_attention_heads * seq_len * seq_len]
scratch hbuf fp64[batch_size * seq_len * q_proj_out]
scratch ctx fp64[batch_size * seq_len * q_proj_out]
scratch dah fp64[batch_size * seq_len * q_proj_out]
scratch dvrep fp64[batch_size * seq_len * q_proj_out]
scratch dqe fp64[batch_size * seq_len * q_proj_out]
scratch dkrep fp64[batch_size * seq_len * q_proj_out]
scratch dke fp64[batch_size * seq_len * kv_proj_out]
scratch dvh fp64[batch_size * seq_len * kv_proj_out]
scratch dq fp64[batch_size * seq_len * q_proj_out]
scratch dk fp64[batch_size * seq_len * kv_proj_out]
scratch dv fp64[batch_size * seq_len * kv_proj_out]
scratch prod fp64[batch_size * seq_len * q_proj_out]
scratch part fp64[384 * head_dim]
launch anchor_to_f64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch anchor_to_f64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(go64, grad_output, i64(batch_size * seq_len * hidden_size))
launch anchor_to_f64 grid(ceil_div(q_proj_out * hidden_size, 1024)) block(256) args(wq64, q_weight, i64(q_proj_out * hidden_size))
launch anchor_to_f64 grid(ceil_div(kv_proj_out * hidden_size, 1024)) block(256) args(wk64, k_weight, i64(kv_proj_out * hidden_size))
launch anchor_to_f64 grid(ceil_div(kv_proj_out * hidden_size, 1024)) block(256) args(wv64, v_weight, i64(kv_proj_out * hidden_size))
launch anchor_to_f64 grid(ceil_div(hidden_size * q_proj_out, 1024)) block(256) args(wo64, o_weight, i64(hidden_size * q_proj_out))
# forward: projections, norms and RoPE
matmul c(qraw) a(x64) b(wq64) m(batch_size * seq_len) n(q_proj_out) k(hidden_size) transpose_b
matmul c(kraw) a(x64) b(wk64) m(batch_size * seq_len) n(kv_proj_out) k(hidden_size) transpose_b
matmul c(vraw) a(x64) b(wv64) m(batch_size * seq_len) n(kv_proj_out) k(hidden_size) transpose_b
launch anchor_norm_rope_fwd grid(ceil_div(batch_size * seq_len * num_attention_heads, 128)) block(128)
  args(qhat, qemb, qrstd, qraw, q_norm_weight, cos, sin, i32(batch_size * seq_len), i32(seq_len), i32(num_attention_heads), f64(rms_norm_eps))
launch anchor_norm_rope_fwd grid(ceil_div(batch_size * seq_len * num_key_value_heads, 128)) block(128)
  args(khat, kemb, krstd, kraw, k_norm_weight, cos, sin, i32(batch_size * seq_len), i32(seq_len), i32(num_key_value_heads), f64(rms_norm_eps))
launch anchor_repeat_heads grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(krep, kemb, i32(seq_len), i32(num_attention_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * q_proj_out))
launch anchor_flat_to_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(vrep, vraw, i32(seq_len), i32(num_attention_heads), i32(num_key_value_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * q_proj_out))
# attention
matmul c(scores) a(qemb) b(krep) m(seq_len) n(seq_len) k(head_dim) batch(batch_size * num_attention_heads) transpose_b
launch anchor_softmax_fwd grid(batch_size * num_attention_heads * seq_len) block(256)
  args(probs, scores, i32(seq_len), f64(scaling), f64(attn_logit_softcapping))
matmul c(hbuf) a(probs) b(vrep) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads)
launch anchor_head_to_flat grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(ctx, hbuf, i32(seq_len), i32(num_attention_heads), i64(batch_size * seq_len * q_proj_out))
# backward: o projection
matmul c(grad_o_weight) a(go64) b(ctx) m(hidden_size) n(q_proj_out) k(batch_size * seq_len) transpose_a
matmul c(hbuf) a(go64) b(wo64) m(batch_size * seq_len) n(q_proj_out) k(hidden_size)
launch anchor_flat_to_head grid(ceil_div(batch_size * seq_len * q_proj_out, 1024)) block(256)
  args(dah, hbuf, i32(seq_len), i32(num_attention_heads), i32(num_attention_heads), i32(1), i64(batch_size * seq_len * q_proj_out))
# attention backward
matmul c(dprobs) a(dah) b(vrep) m(seq_len) n(seq_len) k(head_dim) batch(batch_size * num_attention_heads) transpose_b
matmul c(dvrep) a(probs) b(dah) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads) transpose_a
launch anchor_softmax_bwd grid(batch_size * num_attention_heads * seq_len) block(256)
  args(dprobs, probs, scores, i32(seq_len), f64(scaling), f64(attn_logit_softcapping))
matmul c(dqe) a(dprobs) b(krep) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads)
matmul c(dkrep) a(dprobs) b(qemb) m(seq_len) n(head_dim) k(seq_len) batch(batch_size * num_attention_heads) transpose_a
launch anchor_group_sum_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256)
  args(dke, dkrep, i32(seq_len), i32(num_key_value_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
launch anchor_group_sum_map grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256)
  args(dvh, dvrep, i32(seq_len), i32(num_key_value_heads), i32(num_attention_heads / num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
# RoPE and RMSNorm backward, the norm weights' gradients (rows: 384 x 1024 for q, 128 x 1024 for k)
launch anchor_norm_rope_bwd grid(ceil_div(batch_size * seq_len * num_attention_heads, 128)) block(128)
  args(dq, prod, dqe, qhat, qrstd, q_norm_weight, cos, sin, i32(batch_size), i32(seq_len), i32(num_attention_heads))
launch anchor_colsum_partial grid(ceil_div(head_dim, 32), batch_size * seq_len * num_attention_heads / 1024) block(32, 8)
  args(part, prod, i32(1024), i32(head_dim))
launch anchor_colsum_final grid(ceil_div(head_dim, 32), 1) block(32, 8)
  args(grad_q_norm_weight, part, i32(batch_size * seq_len * num_attention_heads / 1024), i32(head_dim))
launch anchor_norm_rope_bwd grid(ceil_div(batch_size * seq_len * num_key_value_heads, 128)) block(128)
  args(dk, prod, dke, khat, krstd, k_norm_weight, cos, sin, i32(batch_size), i32(seq_len), i32(num_key_value_heads))
launch anchor_colsum_partial grid(ceil_div(head_dim, 32), batch_size * seq_len * num_key_value_heads / 1024) block(32, 8)
  args(part, prod, i32(1024), i32(head_dim))
launch anchor_colsum_final grid(ceil_div(head_dim, 32), 1) block(32, 8)
  args(grad_k_norm_weight, part, i32(batch_size * seq_len * num_key_value_heads / 1024), i32(head_dim))
launch anchor_head_to_flat grid(ceil_div(batch_size * seq_len * kv_proj_out, 1024)) block(256)
  args(dv, dvh, i32(seq_len), i32(num_key_value_heads), i64(batch_size * seq_len * kv_proj_out))
# weight gradients and the input gradient
matmul c(grad_q_weight) a(dq) b(x64) m(q_proj_out) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_k_weight) a(dk) b(x64) m(kv_proj_out) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_v_weight) a(dv) b(x64) m(kv_proj_out) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_hidden_states) a(dq) b(wq64) m(batch_size * seq_len) n(hidden_size) k(q_proj_out)
matmul c(grad_hidden_states) a(dk) b(wk64) m(batch_size * seq_len) n(hidden_size) k(kv_proj_out) accumulate
matmul c(grad_hidden_states) a(dv) b(wv64) m(batch_size * seq_len) n(hidden_size) k(kv_proj_out) accumulate
*/
