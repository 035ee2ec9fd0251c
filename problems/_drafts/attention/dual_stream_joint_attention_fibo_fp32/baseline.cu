// The unfused baseline: the reconstructed eager program (eager.py, reference.md), one launch per eager
// PyTorch operation, fp32 throughout. F.linear with a bias is eager's addmm: the bias broadcast into
// the output (a copy launch), then cuBLAS accumulating onto it (`matmul ... accumulate`, beta = 1).
// B = 4, S = 1024 image tokens, T = 256 text tokens, D = 3072 = N 24 heads x H 128, L = T + S = 1280.
#include "mkb_ops.cuh"

constexpr long long kS = 1024, kT = 256, kD = 3072, kN = 24, kH = 128, kL = 1280, kMod = 6 * 3072, kF = 64;

MKB_MAP(silu_f32, float, (const float *a), mkb_silu(a[i]))
MKB_MAP(bias_rows, float, (const float *bias, long long cols), bias[i % cols])
// F.layer_norm(x, (D,), eps) without affine: one block per row (PyTorch's kernel: mean and variance in
// fp32, rstd = rsqrt(var + eps), out = (x - mean) * rstd)
extern "C" __global__ void layer_norm_rows(float *out, const float *x, float eps, int cols) {
  const long long r = blockIdx.x;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[r * cols + c];
  const float mean = mkb_ops::block_reduce<mkb_ops::sum_op>(s) / cols;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = x[r * cols + c] - mean;
    v += d * d;
  }
  const float rstd = rsqrtf(mkb_ops::block_reduce<mkb_ops::sum_op>(v) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[r * cols + c] = (x[r * cols + c] - mean) * rstd;
}
// 1 + scale_msa (scale_msa = emb[:, D:2D], a view)
MKB_MAP(one_plus_scale, float, (const float *emb), 1.0f + emb[(i / kD) * kMod + kD + i % kD])
// norm_x * (1 + scale)[:, None]
MKB_MAP(mul_batch_row, float, (const float *a, const float *s), a[i] * s[(i / (kS * kD)) * kD + i % kD])
// + shift_msa[:, None] (emb[:, 0:D])
MKB_MAP(add_shift, float, (const float *a, const float *emb), a[i] + emb[(i / (kS * kD)) * kMod + i % kD])
// rotary tables: table[pos_idx] (gather rows of 64) and slicing [:, lo:hi] are views; the gather is a launch
MKB_MAP(gather_rows, float, (const float *table, const long long *idx), table[idx[i / kF] * kF + i % kF])
// cat([a[:, :8], b[:, 8:36], c[:, 36:]], -1) -> [S, 64]
MKB_MAP(cat_slots, float, (const float *a, const float *b, const float *c),
        (i % kF) < 8 ? a[i] : (i % kF) < 36 ? b[i] : c[i])
// apply_rope on a [B, N, S, H] view of a [B, S, D] tensor: x1 = x[..., :64], x2 = x[..., 64:], cs [S, 64]
// element i of the [B, N, S, 64] result: b, n, s, j
#define ROPE_SRC(x, half) x[(i / (kN * kS * kF)) * kS * kD + ((i / kF) % kS) * kD + ((i / (kS * kF)) % kN) * kH + (half) + i % kF]
MKB_MAP(rope_mul_x1, float, (const float *x, const float *cs), ROPE_SRC(x, 0) * cs[((i / kF) % kS) * kF + i % kF])
MKB_MAP(rope_mul_x2, float, (const float *x, const float *cs), ROPE_SRC(x, kF) * cs[((i / kF) % kS) * kF + i % kF])
MKB_MAP(sub_f32, float, (const float *a, const float *b), a[i] - b[i])
MKB_MAP(add_f32, float, (const float *a, const float *b), a[i] + b[i])
// torch.cat((out1, out2), -1) -> [B, N, S, H]
MKB_MAP(cat_halves, float, (const float *o1, const float *o2),
        (i % kH) < kF ? o1[(i / kH) * kF + i % kH] : o2[(i / kH) * kF + i % kH - kF])
// torch.cat([context [B, T, D] viewed [B, N, T, H], image [B, N, S, H] contiguous], dim=2) -> [B, N, L, H]
MKB_MAP(cat_keys, float, (const float *txt, const float *img),
        ((i / kH) % kL) < kT
            ? txt[(i / (kN * kL * kH)) * kT * kD + ((i / kH) % kL) * kD + ((i / (kL * kH)) % kN) * kH + i % kH]
            : img[(i / (kL * kH)) * kS * kH + (((i / kH) % kL) - kT) * kH + i % kH])
// the same with the image values still a [B, S, D] tensor viewed [B, N, S, H]
MKB_MAP(cat_values, float, (const float *txt, const float *img),
        ((i / kH) % kL) < kT
            ? txt[(i / (kN * kL * kH)) * kT * kD + ((i / kH) % kL) * kD + ((i / (kL * kH)) % kN) * kH + i % kH]
            : img[(i / (kN * kL * kH)) * kS * kD + (((i / kH) % kL) - kT) * kD + ((i / (kL * kH)) % kN) * kH + i % kH])
MKB_MAP(mul_scalar, float, (const float *a, float s), a[i] * s)
// softmax over rows of L = 1280, one block per row: exp(x - max) / sum
extern "C" __global__ void softmax_rows(float *out, const float *x, int cols) {
  const long long r = blockIdx.x;
  float m = -__int_as_float(0x7f800000);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[r * cols + c]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[r * cols + c] - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[r * cols + c] = expf(x[r * cols + c] - m) / s;
}
// .transpose(1, 2).reshape(B, S, D): [B, N, S, H] -> [B, S, D]
MKB_MAP(merge_heads, float, (const float *o),
        o[(i / (kS * kD)) * kN * kS * kH + ((i % kD) / kH) * kS * kH + ((i / kD) % kS) * kH + i % kH])
// gate_msa[:, None] * attn (gate_msa = emb[:, 2D:3D])
MKB_MAP(mul_gate, float, (const float *a, const float *emb), emb[(i / (kS * kD)) * kMod + 2 * kD + i % kD] * a[i])

/* mkb:plan
scratch st fp32[batch_size * hidden_size]
scratch emb fp32[batch_size * modulation_dim]
scratch nx fp32[batch_size * seq_len * hidden_size]
scratch ops fp32[batch_size * hidden_size]
scratch t0 fp32[batch_size * seq_len * hidden_size]
scratch xm fp32[batch_size * seq_len * hidden_size]
scratch q fp32[batch_size * seq_len * hidden_size]
scratch k fp32[batch_size * seq_len * hidden_size]
scratch v fp32[batch_size * seq_len * hidden_size]
scratch ck fp32[batch_size * text_seq_len * hidden_size]
scratch cv fp32[batch_size * text_seq_len * hidden_size]
scratch g0 fp32[seq_len * rope_dim_per_axis]
scratch g1 fp32[seq_len * rope_dim_per_axis]
scratch g2 fp32[seq_len * rope_dim_per_axis]
scratch cosf fp32[seq_len * rope_dim_per_axis]
scratch sinf fp32[seq_len * rope_dim_per_axis]
scratch h1 fp32[batch_size * seq_len * hidden_size / 2]
scratch h2 fp32[batch_size * seq_len * hidden_size / 2]
scratch o1 fp32[batch_size * seq_len * hidden_size / 2]
scratch o2 fp32[batch_size * seq_len * hidden_size / 2]
scratch qr fp32[batch_size * seq_len * hidden_size]
scratch kr fp32[batch_size * seq_len * hidden_size]
scratch kj fp32[batch_size * kv_len * hidden_size]
scratch vj fp32[batch_size * kv_len * hidden_size]
scratch sc fp32[batch_size * num_heads * seq_len * kv_len]
scratch sc2 fp32[batch_size * num_heads * seq_len * kv_len]
scratch oh fp32[batch_size * seq_len * hidden_size]
scratch om fp32[batch_size * seq_len * hidden_size]
scratch ao fp32[batch_size * seq_len * hidden_size]
# emb = F.linear(F.silu(temb), W, b)
launch silu_f32 grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(st, timestep_embedding, i64(batch_size * hidden_size))
launch bias_rows grid(ceil_div(batch_size * modulation_dim, 1024)) block(256) args(emb, adaln_linear_bias, i64(modulation_dim), i64(batch_size * modulation_dim))
matmul c(emb) a(st) b(adaln_linear_weight) m(batch_size) n(modulation_dim) k(hidden_size) transpose_b accumulate
# norm_x = layer_norm(x) * (1 + scale_msa[:, None]) + shift_msa[:, None]
launch layer_norm_rows grid(batch_size * seq_len) block(512) args(nx, hidden_states, f32(layer_norm_eps), i32(hidden_size))
launch one_plus_scale grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(ops, emb, i64(batch_size * hidden_size))
launch mul_batch_row grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(t0, nx, ops, i64(batch_size * seq_len * hidden_size))
launch add_shift grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xm, t0, emb, i64(batch_size * seq_len * hidden_size))
# projections (addmm: bias copy, then GEMM with beta = 1)
launch bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(q, to_q_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
matmul c(q) a(xm) b(to_q_weight) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
launch bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(k, to_k_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
matmul c(k) a(xm) b(to_k_weight) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
launch bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(v, to_v_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
matmul c(v) a(xm) b(to_v_weight) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
launch bias_rows grid(ceil_div(batch_size * text_seq_len * hidden_size, 1024)) block(256) args(ck, to_k_context_bias, i64(hidden_size), i64(batch_size * text_seq_len * hidden_size))
matmul c(ck) a(encoder_hidden_states) b(to_k_context_weight) m(batch_size * text_seq_len) n(hidden_size) k(joint_attention_dim) transpose_b accumulate
launch bias_rows grid(ceil_div(batch_size * text_seq_len * hidden_size, 1024)) block(256) args(cv, to_v_context_bias, i64(hidden_size), i64(batch_size * text_seq_len * hidden_size))
matmul c(cv) a(encoder_hidden_states) b(to_v_context_weight) m(batch_size * text_seq_len) n(hidden_size) k(joint_attention_dim) transpose_b accumulate
# rotary tables: cos = cat([cos0[p0][:, :8], cos1[p1][:, 8:36], cos2[p2][:, 36:]]), the same for sin
launch gather_rows grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(g0, cos_axis0, pos_idx_axis0, i64(seq_len * rope_dim_per_axis))
launch gather_rows grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(g1, cos_axis1, pos_idx_axis1, i64(seq_len * rope_dim_per_axis))
launch gather_rows grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(g2, cos_axis2, pos_idx_axis2, i64(seq_len * rope_dim_per_axis))
launch cat_slots grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(cosf, g0, g1, g2, i64(seq_len * rope_dim_per_axis))
launch gather_rows grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(g0, sin_axis0, pos_idx_axis0, i64(seq_len * rope_dim_per_axis))
launch gather_rows grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(g1, sin_axis1, pos_idx_axis1, i64(seq_len * rope_dim_per_axis))
launch gather_rows grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(g2, sin_axis2, pos_idx_axis2, i64(seq_len * rope_dim_per_axis))
launch cat_slots grid(ceil_div(seq_len * rope_dim_per_axis, 1024)) block(256) args(sinf, g0, g1, g2, i64(seq_len * rope_dim_per_axis))
# q = apply_rope(q): out1 = x1 * cos - x2 * sin, out2 = x1 * sin + x2 * cos, cat
launch rope_mul_x1 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h1, q, cosf, i64(batch_size * seq_len * hidden_size / 2))
launch rope_mul_x2 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h2, q, sinf, i64(batch_size * seq_len * hidden_size / 2))
launch sub_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(o1, h1, h2, i64(batch_size * seq_len * hidden_size / 2))
launch rope_mul_x1 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h1, q, sinf, i64(batch_size * seq_len * hidden_size / 2))
launch rope_mul_x2 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h2, q, cosf, i64(batch_size * seq_len * hidden_size / 2))
launch add_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(o2, h1, h2, i64(batch_size * seq_len * hidden_size / 2))
launch cat_halves grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(qr, o1, o2, i64(batch_size * seq_len * hidden_size))
# k = apply_rope(k)
launch rope_mul_x1 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h1, k, cosf, i64(batch_size * seq_len * hidden_size / 2))
launch rope_mul_x2 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h2, k, sinf, i64(batch_size * seq_len * hidden_size / 2))
launch sub_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(o1, h1, h2, i64(batch_size * seq_len * hidden_size / 2))
launch rope_mul_x1 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h1, k, sinf, i64(batch_size * seq_len * hidden_size / 2))
launch rope_mul_x2 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(h2, k, cosf, i64(batch_size * seq_len * hidden_size / 2))
launch add_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 2, 1024)) block(256) args(o2, h1, h2, i64(batch_size * seq_len * hidden_size / 2))
launch cat_halves grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(kr, o1, o2, i64(batch_size * seq_len * hidden_size))
# joint keys and values [B, N, T + S, H]
launch cat_keys grid(ceil_div(batch_size * kv_len * hidden_size, 1024)) block(256) args(kj, ck, kr, i64(batch_size * kv_len * hidden_size))
launch cat_values grid(ceil_div(batch_size * kv_len * hidden_size, 1024)) block(256) args(vj, cv, v, i64(batch_size * kv_len * hidden_size))
# scores = q @ k^T * 1 / sqrt(H); softmax; @ v
matmul c(sc) a(qr) b(kj) m(seq_len) n(kv_len) k(head_dim) batch(batch_size * num_heads) transpose_b
launch mul_scalar grid(ceil_div(batch_size * num_heads * seq_len * kv_len, 1024)) block(256)
  args(sc2, sc, f32(0.08838834764831845), i64(batch_size * num_heads * seq_len * kv_len))
launch softmax_rows grid(batch_size * num_heads * seq_len) block(256) args(sc, sc2, i32(kv_len))
matmul c(oh) a(sc) b(vj) m(seq_len) n(head_dim) k(kv_len) batch(batch_size * num_heads)
launch merge_heads grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(om, oh, i64(batch_size * seq_len * hidden_size))
# to_out, then x + gate_msa[:, None] * attn
launch bias_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(ao, to_out_bias, i64(hidden_size), i64(batch_size * seq_len * hidden_size))
matmul c(ao) a(om) b(to_out_weight) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b accumulate
launch mul_gate grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(t0, ao, emb, i64(batch_size * seq_len * hidden_size))
launch add_f32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(output, hidden_states, t0, i64(batch_size * seq_len * hidden_size))
*/
