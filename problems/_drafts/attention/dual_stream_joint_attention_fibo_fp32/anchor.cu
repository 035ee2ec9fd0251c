// The float64 anchor: the reconstructed FIBO joint attention block exact in double (reference.md).
// Inputs are cast to fp64 scratch; the products are fp64 `matmul` steps.
#include "mkb_ops.cuh"

constexpr long long kS = 1024, kT = 256, kD = 3072, kN = 24, kH = 128, kL = 1280, kMod = 6 * 3072;

MKB_MAP(a_to_f64, double, (const float *a), f64(a[i]))
MKB_MAP(a_silu, double, (const float *a), mkb_silu(f64(a[i])))
// C[r, c] = bias[c]: the product is accumulated onto it
MKB_MAP(a_bias_rows, double, (const float *bias, long long cols), f64(bias[i % cols]))
MKB_ROW_REDUCE(a_row_mean, double, double, mkb_ops::sum_op, (const float *x), f64(x[r * cols + c]), acc / cols)
MKB_ROW_REDUCE(a_row_var, double, double, mkb_ops::sum_op, (const float *x, const double *mean),
               (f64(x[r * cols + c]) - mean[r]) * (f64(x[r * cols + c]) - mean[r]), acc / cols)
// norm * (1 + scale_msa) + shift_msa; emb rows are [shift, scale, gate, ...] of kD each
MKB_MAP(a_modulate, double, (const float *x, const double *mean, const double *var, const double *emb, double eps),
        (f64(x[i]) - mean[i / kD]) / sqrt(var[i / kD] + eps) * (1.0 + emb[(i / (kS * kD)) * kMod + kD + i % kD]) +
            emb[(i / (kS * kD)) * kMod + i % kD])
// rotary of image q or k [B, S, N*H]: frequency slot j = d % 64 from axis 0 (j < 8), 1 (j < 36) or 2
__device__ double a_rot_cs(const long long *p0, const long long *p1, const long long *p2, const float *t0,
                           const float *t1, const float *t2, long long s, int j) {
  const long long pos = j < 8 ? p0[s] : j < 36 ? p1[s] : p2[s];
  const float *t = j < 8 ? t0 : j < 36 ? t1 : t2;
  return f64(t[pos * 64 + j]);
}
MKB_MAP(a_rope, double,
        (const double *x, const long long *p0, const long long *p1, const long long *p2, const float *c0, const float *s0,
         const float *c1, const float *s1, const float *c2, const float *s2),
        (i % kH) < 64
            ? x[i] * a_rot_cs(p0, p1, p2, c0, c1, c2, (i / kD) % kS, (int)(i % 64)) -
                  x[i + 64] * a_rot_cs(p0, p1, p2, s0, s1, s2, (i / kD) % kS, (int)(i % 64))
            : x[i - 64] * a_rot_cs(p0, p1, p2, s0, s1, s2, (i / kD) % kS, (int)(i % 64)) +
                  x[i] * a_rot_cs(p0, p1, p2, c0, c1, c2, (i / kD) % kS, (int)(i % 64)))
// [B, S, N*H] -> [B, N, S, H]
MKB_MAP(a_heads_q, double, (const double *q),
        q[(i / (kN * kS * kH)) * kS * kD + ((i / kH) % kS) * kD + ((i / (kS * kH)) % kN) * kH + i % kH])
// joint keys/values [B, N, T + S, H]: text rows first, then image rows
MKB_MAP(a_heads_joint, double, (const double *txt, const double *img),
        ((i / kH) % kL) < kT
            ? txt[(i / (kN * kL * kH)) * kT * kD + ((i / kH) % kL) * kD + ((i / (kL * kH)) % kN) * kH + i % kH]
            : img[(i / (kN * kL * kH)) * kS * kD + (((i / kH) % kL) - kT) * kD + ((i / (kL * kH)) % kN) * kH + i % kH])
// softmax of scale * scores over rows of kL, one block per row
extern "C" __global__ void a_softmax(double *p, const double *sc, double scale) {
  const long long r = blockIdx.x;
  double m = -1e300;
  for (int c = threadIdx.x; c < kL; c += blockDim.x) m = fmax(m, scale * sc[r * kL + c]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  double s = 0.0;
  for (int c = threadIdx.x; c < kL; c += blockDim.x) s += exp(scale * sc[r * kL + c] - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int c = threadIdx.x; c < kL; c += blockDim.x) p[r * kL + c] = exp(scale * sc[r * kL + c] - m) / s;
}
// [B, N, S, H] -> [B, S, N*H]
MKB_MAP(a_merge_heads, double, (const double *o),
        o[(i / (kS * kD)) * kN * kS * kH + ((i % kD) / kH) * kS * kH + ((i / kD) % kS) * kH + i % kH])
// output = x + gate_msa * attn
MKB_MAP(a_gated_residual, double, (const float *x, const double *emb, const double *attn),
        f64(x[i]) + emb[(i / (kS * kD)) * kMod + 2 * kD + i % kD] * attn[i])

/* mkb:plan
scratch temb64 fp64[batch_size * hidden_size]
scratch wada fp64[modulation_dim * hidden_size]
scratch emb fp64[batch_size * modulation_dim]
scratch mean fp64[batch_size * seq_len]
scratch var fp64[batch_size * seq_len]
scratch xm fp64[batch_size * seq_len * hidden_size]
scratch ctx64 fp64[batch_size * text_seq_len * joint_attention_dim]
scratch wq fp64[hidden_size * hidden_size]
scratch wk fp64[hidden_size * hidden_size]
scratch wv fp64[hidden_size * hidden_size]
scratch wo fp64[hidden_size * hidden_size]
scratch wck fp64[hidden_size * joint_attention_dim]
scratch wcv fp64[hidden_size * joint_attention_dim]
scratch q fp64[batch_size * seq_len * hidden_size]
scratch k fp64[batch_size * seq_len * hidden_size]
scratch v fp64[batch_size * seq_len * hidden_size]
scratch ck fp64[batch_size * text_seq_len * hidden_size]
scratch cv fp64[batch_size * text_seq_len * hidden_size]
scratch qr fp64[batch_size * seq_len * hidden_size]
scratch kr fp64[batch_size * seq_len * hidden_size]
scratch qh fp64[batch_size * seq_len * hidden_size]
scratch kj fp64[batch_size * kv_len * hidden_size]
scratch vj fp64[batch_size * kv_len * hidden_size]
scratch sc fp64[batch_size * num_heads * seq_len * kv_len]
scratch pr fp64[batch_size * num_heads * seq_len * kv_len]
scratch oh fp64[batch_size * seq_len * hidden_size]
scratch om fp64[batch_size * seq_len * hidden_size]
scratch ao fp64[batch_size * seq_len * hidden_size]
# modulation
launch a_silu grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(temb64, timestep_embedding, i64(batch_size * hidden_size))
launch a_to_f64 grid(ceil_div(modulation_dim * hidden_size, 1024)) block(256) args(wada, adaln_linear_weight, i64(modulation_dim * hidden_size))
launch a_bias_rows grid(ceil_div(batch_size * modulation_dim, 1024)) block(256)
  args(emb, adaln_linear_bias, i64(modulation_dim), i64(batch_size * modulation_dim))
matmul c(emb) a(temb64) b(wada) m(batch_size) n(modulation_dim) k(hidden_size) transpose_b accumulate
# LayerNorm + modulation
launch a_row_mean grid(batch_size * seq_len) block(256) args(mean, hidden_states, i32(hidden_size))
launch a_row_var grid(batch_size * seq_len) block(256) args(var, hidden_states, mean, i32(hidden_size))
launch a_modulate grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(xm, hidden_states, mean, var, emb, f64(layer_norm_eps), i64(batch_size * seq_len * hidden_size))
# projections
launch a_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wq, to_q_weight, i64(hidden_size * hidden_size))
launch a_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wk, to_k_weight, i64(hidden_size * hidden_size))
launch a_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wv, to_v_weight, i64(hidden_size * hidden_size))
launch a_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wo, to_out_weight, i64(hidden_size * hidden_size))
launch a_to_f64 grid(ceil_div(hidden_size * joint_attention_dim, 1024)) block(256) args(wck, to_k_context_weight, i64(hidden_size * joint_attention_dim))
launch a_to_f64 grid(ceil_div(hidden_size * joint_attention_dim, 1024)) block(256) args(wcv, to_v_context_weight, i64(hidden_size * joint_attention_dim))
launch a_to_f64 grid(ceil_div(batch_size * text_seq_len * joint_attention_dim, 1024)) block(256)
  args(ctx64, encoder_hidden_states, i64(batch_size * text_seq_len * joint_attention_dim))
launch a_bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(q, to_q_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
launch a_bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(k, to_k_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
launch a_bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(v, to_v_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
launch a_bias_rows grid(ceil_div(batch_size * text_seq_len * hidden_size, 1024)) block(256) args(ck, to_k_context_bias, i64(hidden_size), i64(batch_size * text_seq_len * hidden_size))
launch a_bias_rows grid(ceil_div(batch_size * text_seq_len * hidden_size, 1024)) block(256) args(cv, to_v_context_bias, i64(hidden_size), i64(batch_size * text_seq_len * hidden_size))
matmul c(q) a(xm) b(wq) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
matmul c(k) a(xm) b(wk) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
matmul c(v) a(xm) b(wv) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
matmul c(ck) a(ctx64) b(wck) m(batch_size * text_seq_len) n(hidden_size) k(joint_attention_dim) transpose_b accumulate
matmul c(cv) a(ctx64) b(wcv) m(batch_size * text_seq_len) n(hidden_size) k(joint_attention_dim) transpose_b accumulate
# rotary on image q, k
launch a_rope grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(qr, q, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2, i64(batch_size * seq_len * hidden_size))
launch a_rope grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(kr, k, pos_idx_axis0, pos_idx_axis1, pos_idx_axis2, cos_axis0, sin_axis0, cos_axis1, sin_axis1, cos_axis2, sin_axis2, i64(batch_size * seq_len * hidden_size))
# attention over [text; image] keys
launch a_heads_q grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(qh, qr, i64(batch_size * seq_len * hidden_size))
launch a_heads_joint grid(ceil_div(batch_size * kv_len * hidden_size, 1024)) block(256) args(kj, ck, kr, i64(batch_size * kv_len * hidden_size))
launch a_heads_joint grid(ceil_div(batch_size * kv_len * hidden_size, 1024)) block(256) args(vj, cv, v, i64(batch_size * kv_len * hidden_size))
matmul c(sc) a(qh) b(kj) m(seq_len) n(kv_len) k(head_dim) batch(batch_size * num_heads) transpose_b
launch a_softmax grid(batch_size * num_heads * seq_len) block(256) args(pr, sc, f64(0.08838834764831845))
matmul c(oh) a(pr) b(vj) m(seq_len) n(head_dim) k(kv_len) batch(batch_size * num_heads)
launch a_merge_heads grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(om, oh, i64(batch_size * seq_len * hidden_size))
# output projection and gated residual
launch a_bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ao, to_out_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
matmul c(ao) a(om) b(wo) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
launch a_gated_residual grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(output, hidden_states, emb, ao, i64(batch_size * seq_len * hidden_size))
*/
