// The eager baseline: one launch per eager operation of eager.py (the reference's op sequence), at eager's
// dtypes: fp32 from the widening of the inputs on, bf16 for the two results. The five einsums are what
// torch.einsum makes of them: a permute-and-reshape copy of each operand that is not already in
// batched-matrix form (eager copies them again for every einsum), then one batched cuBLAS GEMM (a matmul
// step, fp32 without TF32); torch.cumsum of a non-contiguous view copies it contiguous first. Shapes:
// b = 8, t = s = 1024 tokens in c = 4 chunks of l = 256, h = 16 heads of p = 64, n = 256 (one group).
// Layouts of the batched operands are [b, c, h, rows, cols] ("bch" batches); eager's einsum outputs are
// permuted views of those buffers, and the elementwise kernels that read them follow the same order.
#include "mkb_ops.cuh"

// The masks are bool tensors: stored as eager stores them (mkb_ops leaves integer types to the problem).
namespace mkb_ops {
template <> struct store_as<bool> {
  __device__ static bool from(bool v) { return v; }
};
} // namespace mkb_ops

constexpr long long kB = 8, kS = 1024, kH = 16, kP = 64, kN = 256, kL = 256, kC = kS / kL, kC1 = kC + 1;

MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
MKB_MAP(copy_f32, float, (const float *x), x[i])
MKB_MAP(exp_f32, float, (const float *x), expf(x[i]))
MKB_MAP(add_f32, float, (const float *x, const float *y), x[i] + y[i])
// skip = D[None, None, :, None] * x     ([b, t, h, p])
MKB_MAP(mul_d_x, float, (const float *d, const float *x), d[i / kP % kH] * x[i])
// a.transpose(1, 2) reshaped into chunks: a_c[b, t, h] = a[b, h, t]
MKB_MAP(a_transpose, float, (const float *a), a[(i / (kS * kH) * kH + i % kH) * kS + i / kH % kS])
// the contiguous copy cumsum makes of the permuted view a_c.permute(0, 3, 1, 2): [b, h, c, l]
MKB_MAP(a_heads_major, float, (const float *a_c), a_c[(i / (kH * kS) * kS + i % kS) * kH + i / kS % kH])
// torch.cumsum(dim=-1) over rows of `cols`: one thread per row, in order
extern "C" __global__ void cumsum_rows(float *out, const float *x, long long rows, int cols) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int j = 0; j < cols; ++j) out[row * cols + j] = acc += x[row * cols + j];
}
// segment sum of the [b, h, c, l] decays: the clone of x[..., None].expand(..., l), element (b, h, c, i, j)
MKB_MAP(seg_expand_a, float, (const float *a_c),
        a_c[(i / (kH * kC * kL * kL) * kS + i / (kL * kL) % kC * kL + i / kL % kL) * kH + i / (kC * kL * kL) % kH])
// the same for the [b, h, c + 1] chunk ends: element (..., i, j) = x[..., i]
MKB_MAP(seg_expand, float, (const float *x, long long n_last), x[i / n_last])
MKB_MAP(fill_true, bool, (int unused), true)
MKB_MAP(tril_bool, bool, (const bool *m, int diagonal, long long cols), m[i] && (i % cols) - (i / cols) <= diagonal)
MKB_MAP(not_bool, bool, (const bool *m), !m[i])
// masked_fill_ in place (value 0, or -inf when neg_inf): the mask is [n, n], broadcast over the leading axes
extern "C" __global__ void masked_fill_inplace(float *x, const bool *mask, int neg_inf, long long mask_size, long long n) {
  const float value = neg_inf ? -__int_as_float(0x7f800000) : 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (mask[i % mask_size]) x[i] = value;
}
// torch.cumsum(dim=-2) of [outer, n, n]: one thread per column, in order
extern "C" __global__ void cumsum_dim_m2(float *out, const float *x, long long columns, int n) {
  const long long column = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (column >= columns) return;
  const long long base = (column / n) * n * n + column % n;
  float acc = 0.0f;
  for (int r = 0; r < n; ++r) out[base + (long long)r * n] = acc += x[base + (long long)r * n];
}
// einsum operand copies ----------------------------------------------------------------------------------
// C chunks as [bch, i, s] (the head axis is an expand of the single group)
MKB_MAP(gather_c_rows, float, (const float *c_in),
        c_in[(i / (kC * kH * kL * kN) * kS + i / (kH * kL * kN) % kC * kL + i / kN % kL) * kN + i % kN])
// B chunks as [bch, s, j]
MKB_MAP(gather_b_cols, float, (const float *b_in),
        b_in[(i / (kC * kH * kN * kL) * kS + i / (kH * kN * kL) % kC * kL + i % kL) * kN + i / kL % kN])
// x chunks as [bch, j, d]
MKB_MAP(gather_x, float, (const float *x),
        x[((i / (kC * kH * kL * kP) * kS + i / (kH * kL * kP) % kC * kL + i / kP % kL) * kH + i / (kL * kP) % kH) * kP +
          i % kP])
// b_to_end operand as [bch, s, t] from its [b, c, t, h, s] tensor
MKB_MAP(gather_bte, float, (const float *bte),
        bte[((i / (kH * kN * kL) * kL + i % kL) * kH + i / (kN * kL) % kH) * kN + i / kL % kN])
// the stacked states as [bh, j, (d, s)] from [b, j, h, d, s]
MKB_MAP(gather_stacked, float, (const float *st),
        st[((i / (kH * kC1 * kP * kN) * kC1 + i / (kP * kN) % kC1) * kH + i / (kC1 * kP * kN) % kH) * kP * kN +
           i % (kP * kN)])
// the states entering each chunk as [bch, s, d] from the [bh, i, (d, s)] product
MKB_MAP(gather_entering, float, (const float *ent),
        ent[((i / (kC * kH * kN * kP) * kH + i / (kN * kP) % kH) * kC1 + i / (kH * kN * kP) % kC) * kP * kN +
            i % kP * kN + i / kP % kN])
// elementwise steps ------------------------------------------------------------------------------------
// weights[bch, i, j] = scores[bch, i, j] * decay_in[b, h, c, i, j]
MKB_MAP(mul_scores_decay, float, (const float *scores, const float *decay),
        scores[i] * decay[((i / (kC * kH * kL * kL) * kH + i / (kL * kL) % kH) * kC + i / (kH * kL * kL) % kC) * kL * kL +
                          i % (kL * kL)])
// to_end = a_cum[..., -1:] - a_cum, before the exp
MKB_MAP(sub_from_last, float, (const float *a_cum), a_cum[i / kL * kL + kL - 1] - a_cum[i])
// b_to_end[b, c, t, h, s] = B[b, c l + t, s] * to_end[b, h, c, t]
MKB_MAP(mul_b_to_end, float, (const float *b_in, const float *to_end),
        b_in[i / (kH * kN) * kN + i % kN] *
        to_end[((i / (kS * kH * kN) * kH + i / kN % kH) * kC + i / (kL * kH * kN) % kC) * kL + i / (kH * kN) % kL])
// torch.cat([h0[:, None], local], dim=1): [b, j, h, d, s]; local is the [bch, s, d] product
MKB_MAP(cat_states, float, (const float *h0, const float *local),
        i / (kH * kP * kN) % kC1 == 0
            ? h0[(i / (kC1 * kH * kP * kN) * kH + i / (kP * kN) % kH) * kP * kN + i % (kP * kN)]
            : local[(((i / (kC1 * kH * kP * kN) * kC + i / (kH * kP * kN) % kC1 - 1) * kH + i / (kP * kN) % kH) * kN +
                     i % kN) * kP + i / kN % kP])
// F.pad(a_cum[:, :, :, -1], (1, 0)): [b, h, c + 1]
MKB_MAP(pad_ends, float, (const float *a_cum), i % kC1 == 0 ? 0.0f : a_cum[((i / kC1) * kC + i % kC1 - 1) * kL + kL - 1])
// y_off[bch, t, d] = c_state[bch, t, d] * from_start[b, h, c, t]
MKB_MAP(mul_from_start, float, (const float *c_state, const float *from_start),
        c_state[i] * from_start[((i / (kC * kH * kL * kP) * kH + i / (kL * kP) % kH) * kC + i / (kH * kL * kP) % kC) * kL +
                                i / kP % kL])
// y.reshape(b, -1, h, p): the [bch, t, d] sum copied to [b, c l + t, h, d]
MKB_MAP(unchunk, float, (const float *y),
        y[((i / (kS * kH * kP) * kC + i / (kH * kP) % kS / kL) * kH + i / kP % kH) * kL * kP + i / (kH * kP) % kL * kP +
          i % kP])
// final_state = entering[:, -1].to(bf16): [b, h, d, s]
MKB_MAP(final_to_bf16, bf16, (const float *ent), ent[(i / (kP * kN) * kC1 + kC) * kP * kN + i % (kP * kN)])

/* mkb:plan
scratch x fp32[batch_size * seq_len * num_heads * head_dim]
scratch a fp32[batch_size * num_heads * seq_len]
scratch b_in fp32[batch_size * seq_len * n_groups * state_size]
scratch c_in fp32[batch_size * seq_len * n_groups * state_size]
scratch h0 fp32[batch_size * num_heads * head_dim * state_size]
scratch skip fp32[batch_size * seq_len * num_heads * head_dim]
scratch a_c fp32[batch_size * num_heads * seq_len]
scratch a_hc fp32[batch_size * num_heads * seq_len]
scratch a_cum fp32[batch_size * num_heads * seq_len]
scratch d fp32[num_heads]
scratch seg_x fp32[batch_size * num_heads * seq_len * chunk_size]
scratch seg_m fp32[batch_size * num_heads * seq_len * chunk_size]
scratch seg_c fp32[batch_size * num_heads * seq_len * chunk_size]
scratch seg_f fp32[batch_size * num_heads * seq_len * chunk_size]
scratch decay_in fp32[batch_size * num_heads * seq_len * chunk_size]
scratch c_op fp32[batch_size * seq_len * num_heads * state_size]
scratch b_op fp32[batch_size * seq_len * num_heads * state_size]
scratch scores fp32[batch_size * num_heads * seq_len * chunk_size]
scratch weights fp32[batch_size * num_heads * seq_len * chunk_size]
scratch b_to_end fp32[batch_size * seq_len * num_heads * state_size]
scratch b_op2 fp32[batch_size * seq_len * num_heads * state_size]
scratch c_op2 fp32[batch_size * seq_len * num_heads * state_size]
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
scratch x_op fp32[batch_size * seq_len * num_heads * head_dim]
scratch y_diag fp32[batch_size * seq_len * num_heads * head_dim]
scratch x_op2 fp32[batch_size * seq_len * num_heads * head_dim]
scratch y_state fp32[batch_size * seq_len * num_heads * head_dim]
scratch y_off fp32[batch_size * seq_len * num_heads * head_dim]
scratch y_sum fp32[batch_size * seq_len * num_heads * head_dim]
scratch y_flat fp32[batch_size * seq_len * num_heads * head_dim]
scratch y_skip fp32[batch_size * seq_len * num_heads * head_dim]
scratch to_end_d fp32[batch_size * num_heads * seq_len]
scratch to_end fp32[batch_size * num_heads * seq_len]
scratch from_start fp32[batch_size * num_heads * seq_len]
scratch local fp32[batch_size * (seq_len / chunk_size) * num_heads * state_size * head_dim]
scratch stacked fp32[batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * state_size]
scratch st_op fp32[batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * state_size]
scratch entering fp32[batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * state_size]
scratch ends fp32[batch_size * num_heads * (seq_len / chunk_size + 1)]
scratch seg2_x fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch seg2_m fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch seg2_c fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch seg2_f fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch decay_out fp32[batch_size * num_heads * (seq_len / chunk_size + 1) * (seq_len / chunk_size + 1)]
scratch ent_op fp32[batch_size * (seq_len / chunk_size) * num_heads * state_size * head_dim]
# widen the inputs
launch to_f32 grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(x, hidden_states, i64(batch_size * seq_len * num_heads * head_dim))
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(a, A, i64(batch_size * num_heads * seq_len))
launch to_f32 grid(ceil_div(batch_size * seq_len * n_groups * state_size, 1024)) block(256) args(b_in, B, i64(batch_size * seq_len * n_groups * state_size))
launch to_f32 grid(ceil_div(batch_size * seq_len * n_groups * state_size, 1024)) block(256) args(c_in, C, i64(batch_size * seq_len * n_groups * state_size))
launch to_f32 grid(1) block(256) args(d, D, i64(num_heads))
launch to_f32 grid(ceil_div(batch_size * num_heads * head_dim * state_size, 1024)) block(256) args(h0, initial_states, i64(batch_size * num_heads * head_dim * state_size))
launch mul_d_x grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(skip, d, x, i64(batch_size * seq_len * num_heads * head_dim))
# chunks; cumsum over the chunk (copy of the permuted view, then the scan)
launch a_transpose grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(a_c, a, i64(batch_size * num_heads * seq_len))
launch a_heads_major grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(a_hc, a_c, i64(batch_size * num_heads * seq_len))
launch cumsum_rows grid(ceil_div(batch_size * num_heads * seq_len / chunk_size, 128)) block(128) args(a_cum, a_hc, i64(batch_size * num_heads * seq_len / chunk_size), i32(chunk_size))
# decay_in = exp(segment_sum(a)): clone of the expand, masks, masked_fill_, cumsum(dim=-2), clone + masked_fill_(-inf), exp
launch seg_expand_a grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 1024)) block(256) args(seg_x, a_c, i64(batch_size * num_heads * seq_len * chunk_size))
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
# scores = einsum('bcihs,bcjhs->bcijh', C, B); weights; y_diag = einsum('bcijh,bcjhd->bcihd', weights, x)
launch gather_c_rows grid(ceil_div(batch_size * seq_len * num_heads * state_size, 1024)) block(256) args(c_op, c_in, i64(batch_size * seq_len * num_heads * state_size))
launch gather_b_cols grid(ceil_div(batch_size * seq_len * num_heads * state_size, 1024)) block(256) args(b_op, b_in, i64(batch_size * seq_len * num_heads * state_size))
matmul c(scores) a(c_op) b(b_op) m(chunk_size) n(chunk_size) k(state_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
launch mul_scores_decay grid(ceil_div(batch_size * num_heads * seq_len * chunk_size, 1024)) block(256) args(weights, scores, decay_in, i64(batch_size * num_heads * seq_len * chunk_size))
launch gather_x grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(x_op, x, i64(batch_size * seq_len * num_heads * head_dim))
matmul c(y_diag) a(weights) b(x_op) m(chunk_size) n(head_dim) k(chunk_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
# each chunk's own state: to_end = exp(a_cum[..., -1:] - a_cum); b_to_end; einsum('bcths,bcthd->bchds')
launch sub_from_last grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(to_end_d, a_cum, i64(batch_size * num_heads * seq_len))
launch exp_f32 grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(to_end, to_end_d, i64(batch_size * num_heads * seq_len))
launch mul_b_to_end grid(ceil_div(batch_size * seq_len * num_heads * state_size, 1024)) block(256) args(b_to_end, b_in, to_end, i64(batch_size * seq_len * num_heads * state_size))
launch gather_bte grid(ceil_div(batch_size * seq_len * num_heads * state_size, 1024)) block(256) args(b_op2, b_to_end, i64(batch_size * seq_len * num_heads * state_size))
launch gather_x grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(x_op2, x, i64(batch_size * seq_len * num_heads * head_dim))
matmul c(local) a(b_op2) b(x_op2) m(state_size) n(head_dim) k(chunk_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
# recurrence across chunks: cat, pad of the chunk ends, exp(segment_sum(ends)), einsum('bhij,bjhds->bihds')
launch cat_states grid(ceil_div(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * state_size, 1024)) block(256) args(stacked, h0, local, i64(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * state_size))
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
launch gather_stacked grid(ceil_div(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * state_size, 1024)) block(256) args(st_op, stacked, i64(batch_size * (seq_len / chunk_size + 1) * num_heads * head_dim * state_size))
matmul c(entering) a(decay_out) b(st_op) m(seq_len / chunk_size + 1) n(head_dim * state_size) k(seq_len / chunk_size + 1) batch(batch_size * num_heads)
# the states' contribution: from_start = exp(a_cum); einsum('bcths,bchds->bcthd', C, entering[:, :-1]); y_off
launch exp_f32 grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(from_start, a_cum, i64(batch_size * num_heads * seq_len))
launch gather_c_rows grid(ceil_div(batch_size * seq_len * num_heads * state_size, 1024)) block(256) args(c_op2, c_in, i64(batch_size * seq_len * num_heads * state_size))
launch gather_entering grid(ceil_div(batch_size * (seq_len / chunk_size) * num_heads * state_size * head_dim, 1024)) block(256) args(ent_op, entering, i64(batch_size * (seq_len / chunk_size) * num_heads * state_size * head_dim))
matmul c(y_state) a(c_op2) b(ent_op) m(chunk_size) n(head_dim) k(state_size) batch(batch_size * (seq_len / chunk_size) * num_heads)
launch mul_from_start grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(y_off, y_state, from_start, i64(batch_size * seq_len * num_heads * head_dim))
# y = y_diag + y_off; reshape (a copy); + skip; the two bf16 results
launch add_f32 grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(y_sum, y_diag, y_off, i64(batch_size * seq_len * num_heads * head_dim))
launch unchunk grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(y_flat, y_sum, i64(batch_size * seq_len * num_heads * head_dim))
launch add_f32 grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(y_skip, y_flat, skip, i64(batch_size * seq_len * num_heads * head_dim))
launch to_bf16 grid(ceil_div(batch_size * seq_len * num_heads * head_dim, 1024)) block(256) args(output, y_skip, i64(batch_size * seq_len * num_heads * head_dim))
launch final_to_bf16 grid(ceil_div(batch_size * num_heads * head_dim * state_size, 1024)) block(256) args(final_state, entering, i64(batch_size * num_heads * head_dim * state_size))
*/
