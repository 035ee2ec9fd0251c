// The eager baseline: one launch per eager operation of eager.py (SOL's op sequence) at eager's dtypes:
// bf16 up to the SSD (the projection, the conv, SiLU as sigmoid and product, softplus and clamp of dt),
// fp32 in the scan, bf16 again for the grouped norm and gate. The two projections are bf16 cuBLAS matmul
// steps; the scan's einsums are what torch.einsum makes of them: a permute-and-reshape copy of each
// operand not already in batched-matrix form, then a strided-batched fp32 GEMM (a matmul step, no TF32).
// F.conv1d runs on a contiguous copy of the transposed channels (cuDNN's input) with a depthwise kernel.
// b = 8, t = 512 in c = 4 chunks of l = 128, h = 256 heads of p = 64 in g = 8 groups (head h reads group
// h % 8: B.repeat), n = 256, inter = 16384, conv channels 20480, projection 37120.
#include "mkb_ops.cuh"

namespace mkb_ops {
template <> struct store_as<bool> {
  __device__ static bool from(bool v) { return v; }
};
} // namespace mkb_ops

constexpr long long kB = 8, kS = 512, kH = 256, kP = 64, kN = 256, kG = 8, kL = 128, kC = kS / kL, kC1 = kC + 1;
constexpr long long kI = kH * kP, kGts = kG * kN, kCd = kI + 2 * kGts, kProj = kI + kCd + kH, kK = 4, kCo = kS + kK - 1;

MKB_MAP(copy_f32, float, (const float *x), x[i])
MKB_MAP(exp_f32, float, (const float *x), expf(x[i]))
MKB_MAP(neg_f32, float, (const float *x), -x[i])
MKB_MAP(add_f32, float, (const float *x, const float *y), x[i] + y[i])
MKB_MAP(fill_f32, float, (float value), value)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
// ---- bf16 front: conv input copy, depthwise conv, SiLU, dt --------------------------------------------------
// the conv channels of the projection, transposed and made contiguous: [b, 20480, t]
MKB_MAP(conv_input, bf16, (const bf16 *proj), f32(proj[(i / (kCd * kS) * kS + i % kS) * kProj + kI + i / kS % kCd]))
// F.conv1d(padding 3, groups 20480): [b, 20480, 515], fp32 accumulation, one bf16 rounding
MKB_MAP(conv_depthwise, bf16, (const bf16 *x, const bf16 *w, const bf16 *bias),
        f32(bias[i / kCo % kCd]) +
            (i % kCo >= 3 && i % kCo < kS + 3 ? f32(w[i / kCo % kCd * kK]) * f32(x[i / kCo * kS + i % kCo - 3]) : 0.0f) +
            (i % kCo >= 2 && i % kCo < kS + 2 ? f32(w[i / kCo % kCd * kK + 1]) * f32(x[i / kCo * kS + i % kCo - 2]) : 0.0f) +
            (i % kCo >= 1 && i % kCo < kS + 1 ? f32(w[i / kCo % kCd * kK + 2]) * f32(x[i / kCo * kS + i % kCo - 1]) : 0.0f) +
            (i % kCo < kS ? f32(w[i / kCo % kCd * kK + 3]) * f32(x[i / kCo * kS + i % kCo]) : 0.0f))
// sigmoid(conv[..., :512]) and conv * sigmoid: [b, 20480, 512] bf16
MKB_MAP(sigmoid_conv, bf16, (const bf16 *conv), mkb_sigmoid(f32(conv[i / kS * kCo + i % kS])))
MKB_MAP(mul_conv_sig, bf16, (const bf16 *conv, const bf16 *sig), f32(conv[i / kS * kCo + i % kS]) * f32(sig[i]))
// dt + dt_bias (dt a strided view of the projection), softplus (threshold 20), clamp: [b, t, 256] bf16
MKB_MAP(dt_add_bias, bf16, (const bf16 *proj, const bf16 *bias), f32(proj[i / kH * kProj + kProj - kH + i % kH]) + f32(bias[i % kH]))
MKB_MAP(softplus_bf16, bf16, (const bf16 *x), f32(x[i]) > 20.0f ? f32(x[i]) : log1pf(expf(f32(x[i]))))
MKB_MAP(clamp_bf16, bf16, (const bf16 *x, float lo, float hi), fminf(fmaxf(f32(x[i]), lo), hi))
// ---- fp32 scan inputs -------------------------------------------------------------------------------------
// x.view(b, t, h, p).float() from the transposed SiLU output act[b, c, t]
MKB_MAP(x_to_f32, float, (const bf16 *act), f32(act[(i / (kS * kI) * kCd + i % kI) * kS + i / kI % kS]))
// B (or C: offset kGts) .view(b, t, g, n).float()
MKB_MAP(bc_to_f32, float, (const bf16 *act, long long offset),
        f32(act[(i / (kS * kGts) * kCd + kI + offset + i % kGts) * kS + i / kGts % kS]))
// .repeat(1, 1, 32, 1): [b, t, h, n] = [b, t, h % 8, n]
MKB_MAP(repeat_groups, float, (const float *x), x[(i / (kH * kN) * kG + i / kN % kH % kG) * kN + i % kN])
// D.float()[..., None] * x
MKB_MAP(mul_d_x, float, (const float *d, const float *x), d[i / kP % kH] * x[i])
// x * dt[..., None] (dt bf16)
MKB_MAP(mul_x_dt, float, (const float *x, const bf16 *dt), x[i] * f32(dt[i / kP]))
// A = -exp(A_log) * dt: [b, t, h]
MKB_MAP(a_times_dt, float, (const float *negexp, const bf16 *dt), negexp[i % kH] * f32(dt[i]))
// the contiguous copy cumsum makes of A.reshape(b, c, l, h).permute(0, 3, 1, 2): [b, h, c, l]
MKB_MAP(a_heads_major, float, (const float *a), a[(i / (kH * kS) * kS + i % kS) * kH + i / kS % kH])
extern "C" __global__ void cumsum_rows(float *out, const float *x, long long rows, int cols) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int j = 0; j < cols; ++j) out[row * cols + j] = acc += x[row * cols + j];
}
// ---- segment sums ---------------------------------------------------------------------------------------------
// clone of A_hc[..., None].expand(..., 128): element (b, h, c, l, s) = A[b, c l + l, h]
MKB_MAP(seg_expand_a, float, (const float *a),
        a[(i / (kH * kC * kL * kL) * kS + i / (kL * kL) % kC * kL + i / kL % kL) * kH + i / (kC * kL * kL) % kH])
MKB_MAP(seg_expand, float, (const float *x, long long n_last), x[i / n_last])
MKB_MAP(fill_true, bool, (int unused), true)
MKB_MAP(tril_bool, bool, (const bool *m, int diagonal, long long cols), m[i] && (i % cols) - (i / cols) <= diagonal)
MKB_MAP(not_bool, bool, (const bool *m), !m[i])
extern "C" __global__ void masked_fill_inplace(float *x, const bool *mask, int neg_inf, long long mask_size, long long n) {
  const float value = neg_inf ? -__int_as_float(0x7f800000) : 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (mask[i % mask_size]) x[i] = value;
}
extern "C" __global__ void cumsum_dim_m2(float *out, const float *x, long long columns, int n) {
  const long long column = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (column >= columns) return;
  const long long base = (column / n) * n * n + column % n;
  float acc = 0.0f;
  for (int r = 0; r < n; ++r) out[base + (long long)r * n] = acc += x[base + (long long)r * n];
}
// ---- einsum operand copies ("bch" batches: b, chunk, head) ---------------------------------------------------
// C (or B) chunks as [bch, l, n] from the repeated [b, t, h, n]
MKB_MAP(gather_rows_ln, float, (const float *x),
        x[((i / (kC * kH * kL * kN) * kS + i / (kH * kL * kN) % kC * kL + i / kN % kL) * kH + i / (kL * kN) % kH) * kN + i % kN])
// B chunks as [bch, n, s]
MKB_MAP(gather_cols_ns, float, (const float *x),
        x[((i / (kC * kH * kN * kL) * kS + i / (kH * kN * kL) % kC * kL + i % kL) * kH + i / (kN * kL) % kH) * kN + i / kL % kN])
// x * dt chunks as [bch, s, d]
MKB_MAP(gather_x_sd, float, (const float *x),
        x[((i / (kC * kH * kL * kP) * kS + i / (kH * kL * kP) % kC * kL + i / kP % kL) * kH + i / (kL * kP) % kH) * kP + i % kP])
// x * dt chunks as [bch, d, s]
MKB_MAP(gather_x_ds, float, (const float *x),
        x[((i / (kC * kH * kP * kL) * kS + i / (kH * kP * kL) % kC * kL + i % kL) * kH + i / (kP * kL) % kH) * kP + i / kL % kP])
// B_to_end [b, c, s, h, n] as [bch, s, n]
MKB_MAP(gather_bte, float, (const float *bte),
        bte[(((i / (kC * kH * kL * kN) * kC + i / (kH * kL * kN) % kC) * kL + i / kN % kL) * kH + i / (kL * kN) % kH) * kN + i % kN])
// stacked [b, j, h, p, n] as [bh, j, (p, n)]
MKB_MAP(gather_stacked, float, (const float *st),
        st[((i / (kH * kC1 * kP * kN) * kC1 + i / (kP * kN) % kC1) * kH + i / (kC1 * kP * kN) % kH) * kP * kN + i % (kP * kN)])
// entering [bh, j, (p, n)] as [bch, n, d] for j = chunk c
MKB_MAP(gather_entering, float, (const float *ent),
        ent[((i / (kC * kH * kN * kP) * kH + i / (kN * kP) % kH) * kC1 + i / (kH * kN * kP) % kC) * kP * kN + i % kP * kN + i / kP % kN])
// ---- elementwise steps of the scan ------------------------------------------------------------------------
// weights [bch, l, s] = scores * decay_in[b, h, c, l, s]
MKB_MAP(mul_scores_decay, float, (const float *scores, const float *decay),
        scores[i] * decay[((i / (kC * kH * kL * kL) * kH + i / (kL * kL) % kH) * kC + i / (kH * kL * kL) % kC) * kL * kL + i % (kL * kL)])
MKB_MAP(sub_from_last, float, (const float *a_cum), a_cum[i / kL * kL + kL - 1] - a_cum[i])
// B_to_end [b, c, s, h, n] = B_rep[b, c l + s, h, n] * to_end[b, h, c, s]
MKB_MAP(mul_b_to_end, float, (const float *b_rep, const float *to_end),
        b_rep[i] * to_end[((i / (kS * kH * kN) * kH + i / kN % kH) * kC + i / (kL * kH * kN) % kC) * kL + i / (kH * kN) % kL])
// torch.cat([zeros, local], dim=1): [b, j, h, p, n]; local is the [bch, p, n] product
MKB_MAP(cat_states, float, (const float *zeros, const float *local),
        i / (kH * kP * kN) % kC1 == 0
            ? zeros[(i / (kC1 * kH * kP * kN) * kH + i / (kP * kN) % kH) * kP * kN + i % (kP * kN)]
            : local[((i / (kC1 * kH * kP * kN) * kC + i / (kH * kP * kN) % kC1 - 1) * kH + i / (kP * kN) % kH) * kP * kN + i % (kP * kN)])
MKB_MAP(pad_ends, float, (const float *a_cum), i % kC1 == 0 ? 0.0f : a_cum[((i / kC1) * kC + i % kC1 - 1) * kL + kL - 1])
// y_off [bch, s, d] = c_state * from_start[b, h, c, s]
MKB_MAP(mul_from_start, float, (const float *cs, const float *from_start),
        cs[i] * from_start[((i / (kC * kH * kL * kP) * kH + i / (kL * kP) % kH) * kC + i / (kH * kL * kP) % kC) * kL + i / kP % kL])
// y.reshape(b, t, h, p): [bch, l, d] -> [b, c l + l, h, d]
MKB_MAP(unchunk, float, (const float *y),
        y[((i / (kS * kH * kP) * kC + i / (kH * kP) % kS / kL) * kH + i / kP % kH) * kL * kP + i / (kH * kP) % kL * kP + i % kP])
// ---- grouped RMS norm and gate (bf16) ---------------------------------------------------------------------
MKB_MAP(pow2_f32, float, (const float *x), x[i] * x[i])
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)
MKB_MAP(add_scalar, float, (const float *x, float s), x[i] + s)
MKB_MAP(rsqrt_f32, float, (const float *x), rsqrtf(x[i]))
// y_g (bf16) * rsqrt(var + eps) (fp32, per group of 2048): fp32
MKB_MAP(mul_rows_group, float, (const bf16 *y, const float *r), f32(y[i]) * r[i / (kI / kG)])
MKB_MAP(mul_weight_bf16, bf16, (const bf16 *y, const bf16 *w), f32(y[i]) * f32(w[i % kI]))
// sigmoid(gate) and gate * sigmoid(gate), gate a strided view of the projection
MKB_MAP(sigmoid_gate, bf16, (const bf16 *proj), mkb_sigmoid(f32(proj[i / kI * kProj + i % kI])))
MKB_MAP(gate_silu, bf16, (const bf16 *proj, const bf16 *sig), f32(proj[i / kI * kProj + i % kI]) * f32(sig[i]))
MKB_MAP(mul_bf16, bf16, (const bf16 *x, const bf16 *y), f32(x[i]) * f32(y[i]))

/* mkb:plan
scratch projected bf16[batch_size * seq_len * projection_size]
scratch conv_in bf16[batch_size * seq_len * conv_dim]
scratch conv bf16[batch_size * conv_dim * (seq_len + conv_kernel_size - 1)]
scratch sig bf16[batch_size * seq_len * conv_dim]
scratch act bf16[batch_size * seq_len * conv_dim]
scratch dt_sum bf16[batch_size * seq_len * num_heads]
scratch dt_sp bf16[batch_size * seq_len * num_heads]
scratch dt_c bf16[batch_size * seq_len * num_heads]
scratch x32 fp32[batch_size * seq_len * intermediate_size]
scratch b32 fp32[batch_size * seq_len * groups_time_state_size]
scratch c32 fp32[batch_size * seq_len * groups_time_state_size]
scratch b_rep fp32[batch_size * seq_len * num_heads * ssm_state_size]
scratch c_rep fp32[batch_size * seq_len * num_heads * ssm_state_size]
scratch d32 fp32[num_heads]
scratch skip fp32[batch_size * seq_len * intermediate_size]
scratch xdt fp32[batch_size * seq_len * intermediate_size]
scratch alog32 fp32[num_heads]
scratch aexp fp32[num_heads]
scratch negexp fp32[num_heads]
scratch a fp32[batch_size * seq_len * num_heads]
scratch a_hc fp32[batch_size * seq_len * num_heads]
scratch a_cum fp32[batch_size * seq_len * num_heads]
scratch seg_x fp32[batch_size * num_heads * seq_len * chunk_size]
scratch seg_m fp32[batch_size * num_heads * seq_len * chunk_size]
scratch seg_c fp32[batch_size * num_heads * seq_len * chunk_size]
scratch seg_f fp32[batch_size * num_heads * seq_len * chunk_size]
scratch decay_in fp32[batch_size * num_heads * seq_len * chunk_size]
scratch c_op fp32[batch_size * seq_len * num_heads * ssm_state_size]
scratch b_op fp32[batch_size * seq_len * num_heads * ssm_state_size]
scratch scores fp32[batch_size * num_heads * seq_len * chunk_size]
scratch weights fp32[batch_size * num_heads * seq_len * chunk_size]
scratch x_op fp32[batch_size * seq_len * intermediate_size]
scratch y_diag fp32[batch_size * seq_len * intermediate_size]
scratch to_end_d fp32[batch_size * seq_len * num_heads]
scratch to_end fp32[batch_size * seq_len * num_heads]
scratch b_to_end fp32[batch_size * seq_len * num_heads * ssm_state_size]
scratch x_op2 fp32[batch_size * seq_len * intermediate_size]
scratch bte_op fp32[batch_size * seq_len * num_heads * ssm_state_size]
scratch local fp32[batch_size * (seq_len / chunk_size) * num_heads * head_dim * ssm_state_size]
scratch zeros fp32[batch_size * num_heads * head_dim * ssm_state_size]
scratch stacked fp32[batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * ssm_state_size]
scratch ends fp32[batch_size * num_heads * (seq_len / chunk_size + 1)]
scratch seg2_x fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch seg2_m fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch seg2_c fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch seg2_f fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch decay_out fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch st_op fp32[batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * ssm_state_size]
scratch entering fp32[batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * ssm_state_size]
scratch from_start fp32[batch_size * seq_len * num_heads]
scratch c_op2 fp32[batch_size * seq_len * num_heads * ssm_state_size]
scratch ent_op fp32[batch_size * (seq_len / chunk_size) * num_heads * head_dim * ssm_state_size]
scratch c_state fp32[batch_size * seq_len * intermediate_size]
scratch y_off fp32[batch_size * seq_len * intermediate_size]
scratch y_sum fp32[batch_size * seq_len * intermediate_size]
scratch y_flat fp32[batch_size * seq_len * intermediate_size]
scratch y_skip fp32[batch_size * seq_len * intermediate_size]
scratch y_bf bf16[batch_size * seq_len * intermediate_size]
scratch y_f32 fp32[batch_size * seq_len * intermediate_size]
scratch y_sq fp32[batch_size * seq_len * intermediate_size]
scratch var fp32[batch_size * seq_len * n_groups]
scratch var_e fp32[batch_size * seq_len * n_groups]
scratch inv fp32[batch_size * seq_len * n_groups]
scratch y_n32 fp32[batch_size * seq_len * intermediate_size]
scratch y_nb bf16[batch_size * seq_len * intermediate_size]
scratch y_w bf16[batch_size * seq_len * intermediate_size]
scratch g_sig bf16[batch_size * seq_len * intermediate_size]
scratch g_silu bf16[batch_size * seq_len * intermediate_size]
scratch y_gated bf16[batch_size * seq_len * intermediate_size]
scratch ones_a bool[chunk_size * chunk_size]
scratch strict_a bool[chunk_size * chunk_size]
scratch not_strict_a bool[chunk_size * chunk_size]
scratch ones_b bool[chunk_size * chunk_size]
scratch keep_a bool[chunk_size * chunk_size]
scratch not_keep_a bool[chunk_size * chunk_size]
scratch ones_c bool[(seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch strict_c bool[(seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch not_strict_c bool[(seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch ones_d bool[(seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch keep_c bool[(seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch not_keep_c bool[(seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
# in-projection (bf16 cuBLAS)
matmul c(projected) a(hidden_states) b(in_proj_weight) m(batch_size * seq_len) n(projection_size) k(hidden_size) transpose_b
# depthwise causal conv on the contiguous transposed channels; SiLU as sigmoid and product (bf16)
launch conv_input grid(ceil_div(batch_size * seq_len * conv_dim, 1024)) block(256) args(conv_in, projected, i64(batch_size * seq_len * conv_dim))
launch conv_depthwise grid(ceil_div(batch_size * conv_dim * (seq_len + conv_kernel_size - 1), 1024)) block(256) args(conv, conv_in, conv1d_weight, conv1d_bias, i64(batch_size * conv_dim * (seq_len + conv_kernel_size - 1)))
launch sigmoid_conv grid(ceil_div(batch_size * seq_len * conv_dim, 1024)) block(256) args(sig, conv, i64(batch_size * seq_len * conv_dim))
launch mul_conv_sig grid(ceil_div(batch_size * seq_len * conv_dim, 1024)) block(256) args(act, conv, sig, i64(batch_size * seq_len * conv_dim))
# dt = clamp(softplus(dt + dt_bias)) (bf16)
launch dt_add_bias grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(dt_sum, projected, dt_bias, i64(batch_size * seq_len * num_heads))
launch softplus_bf16 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(dt_sp, dt_sum, i64(batch_size * seq_len * num_heads))
launch clamp_bf16 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(dt_c, dt_sp, f32(time_step_limit_min), f32(time_step_limit_max), i64(batch_size * seq_len * num_heads))
# fp32 scan inputs: x, B, C widened; B, C repeated over the heads; skip; x * dt; A = -exp(A_log) * dt
launch x_to_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(x32, act, i64(batch_size * seq_len * intermediate_size))
launch bc_to_f32 grid(ceil_div(batch_size * seq_len * groups_time_state_size, 1024)) block(256) args(b32, act, i64(0), i64(batch_size * seq_len * groups_time_state_size))
launch bc_to_f32 grid(ceil_div(batch_size * seq_len * groups_time_state_size, 1024)) block(256) args(c32, act, i64(groups_time_state_size), i64(batch_size * seq_len * groups_time_state_size))
launch repeat_groups grid(ceil_div(batch_size * seq_len * num_heads * ssm_state_size, 1024)) block(256) args(b_rep, b32, i64(batch_size * seq_len * num_heads * ssm_state_size))
launch repeat_groups grid(ceil_div(batch_size * seq_len * num_heads * ssm_state_size, 1024)) block(256) args(c_rep, c32, i64(batch_size * seq_len * num_heads * ssm_state_size))
launch to_f32 grid(ceil_div(num_heads, 1024)) block(256) args(d32, D, i64(num_heads))
launch mul_d_x grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(skip, d32, x32, i64(batch_size * seq_len * intermediate_size))
launch mul_x_dt grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(xdt, x32, dt_c, i64(batch_size * seq_len * intermediate_size))
launch to_f32 grid(ceil_div(num_heads, 1024)) block(256) args(alog32, A_log, i64(num_heads))
launch exp_f32 grid(ceil_div(num_heads, 1024)) block(256) args(aexp, alog32, i64(num_heads))
launch neg_f32 grid(ceil_div(num_heads, 1024)) block(256) args(negexp, aexp, i64(num_heads))
launch a_times_dt grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(a, negexp, dt_c, i64(batch_size * seq_len * num_heads))
launch a_heads_major grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(a_hc, a, i64(batch_size * seq_len * num_heads))
launch cumsum_rows grid(ceil_div(batch_size * num_heads * seq_len / chunk_size, 128)) block(128) args(a_cum, a_hc, i64(batch_size * num_heads * seq_len / chunk_size), i32(chunk_size))
# decay_in = exp(segment_sum(A)): clone of the expand, masks, masked_fill_, cumsum(dim=-2), clone + masked_fill_(-inf), exp
launch seg_expand_a grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 1024)) block(256) args(seg_x, a, i64(batch_size * num_heads * seq_len * chunk_size))
launch fill_true grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(ones_a, i32(0), i64(chunk_size * chunk_size))
launch tril_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(strict_a, ones_a, i32(-1), i64(chunk_size), i64(chunk_size * chunk_size))
launch not_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(not_strict_a, strict_a, i64(chunk_size * chunk_size))
launch copy_f32 grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 1024)) block(256) args(seg_m, seg_x, i64(batch_size * num_heads * seq_len * chunk_size))
launch masked_fill_inplace grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 256)) block(256) args(seg_m, not_strict_a, i32(0), i64(chunk_size * chunk_size), i64(batch_size * num_heads * seq_len * chunk_size))
launch cumsum_dim_m2 grid(ceil_div(batch_size * num_heads * seq_len, 128)) block(128) args(seg_c, seg_m, i64(batch_size * num_heads * seq_len), i32(chunk_size))
launch fill_true grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(ones_b, i32(0), i64(chunk_size * chunk_size))
launch tril_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(keep_a, ones_b, i32(0), i64(chunk_size), i64(chunk_size * chunk_size))
launch not_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(not_keep_a, keep_a, i64(chunk_size * chunk_size))
launch copy_f32 grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 1024)) block(256) args(seg_f, seg_c, i64(batch_size * num_heads * seq_len * chunk_size))
launch masked_fill_inplace grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 256)) block(256) args(seg_f, not_keep_a, i32(1), i64(chunk_size * chunk_size), i64(batch_size * num_heads * seq_len * chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 1024)) block(256) args(decay_in, seg_f, i64(batch_size * num_heads * seq_len * chunk_size))
# G = einsum('bclhn,bcshn->bclsh', C, B); M = G * decay; Y_diag = einsum('bclsh,bcshd->bclhd', M, x dt)
launch gather_rows_ln grid(ceil_div(batch_size * seq_len * num_heads * ssm_state_size, 1024)) block(256) args(c_op, c_rep, i64(batch_size * seq_len * num_heads * ssm_state_size))
launch gather_cols_ns grid(ceil_div(batch_size * seq_len * num_heads * ssm_state_size, 1024)) block(256) args(b_op, b_rep, i64(batch_size * seq_len * num_heads * ssm_state_size))
matmul c(scores) a(c_op) b(b_op) m(chunk_size) n(chunk_size) k(ssm_state_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
launch mul_scores_decay grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 1024)) block(256) args(weights, scores, decay_in, i64(batch_size * num_heads * seq_len * chunk_size))
launch gather_x_sd grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(x_op, xdt, i64(batch_size * seq_len * intermediate_size))
matmul c(y_diag) a(weights) b(x_op) m(chunk_size) n(head_dim) k(chunk_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
# chunk states: exp(A_cum[-1] - A_cum); B_to_end; einsum('bcshd,bcshn->bchdn', x dt, B_to_end)
launch sub_from_last grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(to_end_d, a_cum, i64(batch_size * seq_len * num_heads))
launch exp_f32 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(to_end, to_end_d, i64(batch_size * seq_len * num_heads))
launch mul_b_to_end grid(ceil_div(batch_size * seq_len * num_heads * ssm_state_size, 1024)) block(256) args(b_to_end, b_rep, to_end, i64(batch_size * seq_len * num_heads * ssm_state_size))
launch gather_x_ds grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(x_op2, xdt, i64(batch_size * seq_len * intermediate_size))
launch gather_bte grid(ceil_div(batch_size * seq_len * num_heads * ssm_state_size, 1024)) block(256) args(bte_op, b_to_end, i64(batch_size * seq_len * num_heads * ssm_state_size))
matmul c(local) a(x_op2) b(bte_op) m(head_dim) n(ssm_state_size) k(chunk_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
# recurrence across chunks from zero: zeros_like, cat, pad, exp(segment_sum(ends)), einsum('bhcd,bhdin->bhcin')
launch fill_f32 grid(ceil_div(batch_size * num_heads * head_dim * ssm_state_size, 1024)) block(256) args(zeros, f32(0), i64(batch_size * num_heads * head_dim * ssm_state_size))
launch cat_states grid(ceil_div(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * ssm_state_size, 1024)) block(256) args(stacked, zeros, local, i64(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * ssm_state_size))
launch pad_ends grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1), 1024)) block(256) args(ends, a_cum, i64(batch_size * num_heads * (seq_len / chunk_size + 1)))
launch seg_expand grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(seg2_x, ends, i64(seq_len / chunk_size + 1), i64(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch fill_true grid(ceil_div((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(ones_c, i32(0), i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch tril_bool grid(ceil_div((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(strict_c, ones_c, i32(-1), i64(seq_len / chunk_size + 1), i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch not_bool grid(ceil_div((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(not_strict_c, strict_c, i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch copy_f32 grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(seg2_m, seg2_x, i64(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch masked_fill_inplace grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 256)) block(256) args(seg2_m, not_strict_c, i32(0), i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)), i64(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch cumsum_dim_m2 grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1), 128)) block(128) args(seg2_c, seg2_m, i64(batch_size * num_heads * (seq_len / chunk_size + 1)), i32(seq_len / chunk_size + 1))
launch fill_true grid(ceil_div((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(ones_d, i32(0), i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch tril_bool grid(ceil_div((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(keep_c, ones_d, i32(0), i64(seq_len / chunk_size + 1), i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch not_bool grid(ceil_div((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(not_keep_c, keep_c, i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch copy_f32 grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(seg2_f, seg2_c, i64(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch masked_fill_inplace grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 256)) block(256) args(seg2_f, not_keep_c, i32(1), i64((seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)), i64(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch exp_f32 grid(ceil_div(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1), 1024)) block(256) args(decay_out, seg2_f, i64(batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)))
launch gather_stacked grid(ceil_div(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * ssm_state_size, 1024)) block(256) args(st_op, stacked, i64(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * ssm_state_size))
matmul c(entering) a(decay_out) b(st_op) m(seq_len / chunk_size + 1) n(head_dim * ssm_state_size) k(seq_len / chunk_size + 1) batch(batch_size * num_heads)
# Y_off = einsum('bcshn,bchdn,bcsh->bcshd', C, entering[:, :-1], exp(A_cum)): pair product, then the scale
launch exp_f32 grid(ceil_div(batch_size * seq_len * num_heads, 1024)) block(256) args(from_start, a_cum, i64(batch_size * seq_len * num_heads))
launch gather_rows_ln grid(ceil_div(batch_size * seq_len * num_heads * ssm_state_size, 1024)) block(256) args(c_op2, c_rep, i64(batch_size * seq_len * num_heads * ssm_state_size))
launch gather_entering grid(ceil_div(batch_size * (seq_len / chunk_size) * num_heads * head_dim * ssm_state_size, 1024)) block(256) args(ent_op, entering, i64(batch_size * (seq_len / chunk_size) * num_heads * head_dim * ssm_state_size))
matmul c(c_state) a(c_op2) b(ent_op) m(chunk_size) n(head_dim) k(ssm_state_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
launch mul_from_start grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_off, c_state, from_start, i64(batch_size * seq_len * intermediate_size))
# y = Y_diag + Y_off; reshape copy; + skip; to bf16
launch add_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_sum, y_diag, y_off, i64(batch_size * seq_len * intermediate_size))
launch unchunk grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_flat, y_sum, i64(batch_size * seq_len * intermediate_size))
launch add_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_skip, y_flat, skip, i64(batch_size * seq_len * intermediate_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_bf, y_skip, i64(batch_size * seq_len * intermediate_size))
# grouped RMS norm: float, pow, mean over 2048, + eps, rsqrt, product (fp32), to bf16, * weight; gate: sigmoid, product; product
launch to_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_f32, y_bf, i64(batch_size * seq_len * intermediate_size))
launch pow2_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_sq, y_f32, i64(batch_size * seq_len * intermediate_size))
launch row_mean grid(batch_size * seq_len * n_groups) block(256) args(var, y_sq, i32(intermediate_size / n_groups))
launch add_scalar grid(ceil_div(batch_size * seq_len * n_groups, 1024)) block(256) args(var_e, var, f32(layer_norm_epsilon), i64(batch_size * seq_len * n_groups))
launch rsqrt_f32 grid(ceil_div(batch_size * seq_len * n_groups, 1024)) block(256) args(inv, var_e, i64(batch_size * seq_len * n_groups))
launch mul_rows_group grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_n32, y_bf, inv, i64(batch_size * seq_len * intermediate_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_nb, y_n32, i64(batch_size * seq_len * intermediate_size))
launch mul_weight_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_w, y_nb, norm_weight, i64(batch_size * seq_len * intermediate_size))
launch sigmoid_gate grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(g_sig, projected, i64(batch_size * seq_len * intermediate_size))
launch gate_silu grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(g_silu, projected, g_sig, i64(batch_size * seq_len * intermediate_size))
launch mul_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(y_gated, y_w, g_silu, i64(batch_size * seq_len * intermediate_size))
# out-projection (bf16 cuBLAS)
matmul c(output) a(y_gated) b(out_proj_weight) m(batch_size * seq_len) n(hidden_size) k(intermediate_size) transpose_b
*/
