// The unfused baseline: the reconstructed eager program (reference.md), one launch per eager PyTorch
// operation, fp32 throughout (compute_dtype = fp32), intermediates in memory as eager keeps them.
// The projections, the relative-position projection and the three batched products are `matmul`
// steps (cuBLAS, fp32, no TF32). Copies stand for eager's .contiguous() / reshape-of-a-permute copies.
// Shapes: B = 64, T = 1721, D = 512, N = 8 heads, H = 64, W = 12 (chunk), C = 24 (context), U = 144
// blocks, F = 13 relative positions; TP = U * W = 1728 padded query frames, TK = T + 12 + 11 = 1744
// padded key frames (pad 12 before, W - 1 after).
#include "mkb_ops.cuh"

// Booleans are one byte; a stored bool is 0 or 1.
namespace mkb_ops {
template <> struct store_as<unsigned char> {
  template <class V> __device__ static unsigned char from(V v) { return v ? 1 : 0; }
};
template <> struct store_as<long long> {
  template <class V> __device__ static long long from(V v) { return (long long)v; }
};
} // namespace mkb_ops
typedef unsigned char u8;

constexpr long long kT = 1721, kD = 512, kN = 8, kH = 64, kW = 12, kC = 24, kU = 144, kF = 13;
constexpr long long kTP = kU * kW, kTK = kT + 12 + kW - 1;

// ---- scalars and the constant local-causal mask (eager builds them on the device each call) ----
// r_softplus_0 = 1.0 / softplus(tensor(0.0)); q_scale = head_dim ** -0.5 * r_softplus_0
MKB_MAP(softplus_of_zero, float, (const float *unused), log1pf(expf(0.0f)))
MKB_MAP(rdiv_one, float, (const float *a), 1.0f / a[i])
MKB_MAP(scale_scalar, float, (const float *a, float s), s * a[i])
MKB_MAP(fill_true, u8, (const u8 *unused), 1)
// out-of-place tril(x, diagonal) of a rows x cols boolean matrix
MKB_MAP(tril_u8, u8, (const u8 *x, int cols, int diagonal), (i % cols) - (i / cols) <= diagonal ? x[i] : 0)
// local [W, C] * lower.T, with lower stored [C, W]
MKB_MAP(and_transposed_u8, u8, (const u8 *a, const u8 *lower), a[i] && lower[(i % kC) * kW + i / kC])
MKB_MAP(and_u8, u8, (const u8 *a, const u8 *b), a[i] && b[i])

// ---- query scaling ----
// softplus(x) = log1p(exp(x)) below PyTorch's threshold 20
MKB_MAP(softplus_f32, float, (const float *x), x[i] > 20.0f ? x[i] : log1pf(expf(x[i])))
MKB_MAP(mul_scalar_tensor, float, (const float *a, const float *s), a[i] * s[0])
MKB_MAP(mul_per_dim, float, (const float *a, const float *sp), a[i] * sp[i % kH])

// ---- blocking ----
// query_blocks: F.pad(q, frames to TP) -> [B, TP, D]
MKB_MAP(pad_queries, float, (const float *q),
        ((i / kD) % kTP) < kT ? q[(i / (kTP * kD)) * kT * kD + ((i / kD) % kTP) * kD + i % kD] : 0.0f)
// F.pad(k, (12 before, W - 1 after) frames) -> [B, TK, D]
MKB_MAP(pad_context, float, (const float *src),
        ((i / kD) % kTK) >= 12 && ((i / kD) % kTK) < 12 + kT
            ? src[(i / (kTK * kD)) * kT * kD + (((i / kD) % kTK) - 12) * kD + i % kD] : 0.0f)
// unfold(1, C, W) + movedim + contiguous -> [B, U, C, D]
MKB_MAP(unfold_context, float, (const float *kp),
        kp[(i / (kU * kC * kD)) * kTK * kD + (((i / (kC * kD)) % kU) * kW + (i / kD) % kC) * kD + i % kD])
// the same for the [B, T] boolean valid mask (~mask, pad with False, unfold) -> [B, U, C]
MKB_MAP(not_u8, u8, (const u8 *m), !m[i])
MKB_MAP(pad_valid, u8, (const u8 *v), (i % kTK) >= 12 && (i % kTK) < 12 + kT ? v[(i / kTK) * kT + (i % kTK) - 12] : 0)
MKB_MAP(unfold_valid, u8, (const u8 *vp), vp[(i / (kU * kC)) * kTK + ((i / kC) % kU) * kW + i % kC])
// condition [B, 1, U, W, C] = valid[B, 1, U, 1, C] & local_causal[1, 1, 1, W, C]
MKB_MAP(condition_u8, u8, (const u8 *vb, const u8 *local),
        vb[(i / (kU * kW * kC)) * kU * kC + ((i / (kW * kC)) % kU) * kC + i % kC] && local[i % (kW * kC)])

// ---- relative-position table ----
// pos_indices = arange(12, -1, -1) (int64); .float(); [F, 1] * inv_timescales [1, 256]; sin; cos; cat
MKB_MAP(arange_desc, long long, (long long start), start - i)
MKB_MAP(to_float_i64, float, (const long long *p), (float)p[i])
MKB_MAP(outer_mul, float, (const float *p, const float *inv, int half), p[i / half] * inv[i % half])
MKB_MAP(sin_f32, float, (const float *a), sinf(a[i]))
MKB_MAP(cos_f32, float, (const float *a), cosf(a[i]))
MKB_MAP(cat_halves, float, (const float *s, const float *c, int half),
        (i % (2 * half)) < half ? s[(i / (2 * half)) * half + i % (2 * half)] : c[(i / (2 * half)) * half + i % (2 * half) - half])

// ---- logits ----
// queries.permute(0, 3, 1, 2, 4) [B, N, U, W, H] made contiguous (matmul's reshape)
MKB_MAP(permute_queries, float, (const float *qb),
        qb[(i / (kN * kTP * kH)) * kTP * kD + ((i / kH) % kTP) * kD + ((i / (kTP * kH)) % kN) * kH + i % kH])
// keys.permute(0, 3, 1, 4, 2) [B, N, U, H, C] made contiguous
MKB_MAP(permute_keys_t, float, (const float *kc),
        kc[(i / (kN * kU * kH * kC)) * kU * kC * kD + ((i / (kH * kC)) % kU) * kC * kD + (i % kC) * kD +
           ((i / (kU * kH * kC)) % kN) * kH + (i / kC) % kH])
// sin_emb [F, N, H].permute(1, 2, 0) expanded over B: [B * N, H, F]
MKB_MAP(expand_pos, float, (const float *semb), semb[(i % kF) * kD + ((i / (kH * kF)) % kN) * kH + (i / kF) % kH])
// relative shift: pad F -> C + 1 zeros, view [.., W * (C + 1)], keep W * C, view [W, C]
MKB_MAP(pad_rel, float, (const float *bd), (i % (kC + 1)) < kF ? bd[(i / (kC + 1)) * kF + i % (kC + 1)] : 0.0f)
MKB_MAP(shift_rel, float, (const float *bp), bp[(i / (kW * kC)) * kW * (kC + 1) + i % (kW * kC)])
MKB_MAP(add_f32, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(div_scalar, float, (const float *a, float s), a[i] / s)
MKB_MAP(tanh_f32, float, (const float *a), tanhf(a[i]))
MKB_MAP(mul_scalar, float, (const float *a, float s), a[i] * s)
// where(condition [B, 1, U, W, C], logits [B, N, U, W, C], finfo(fp32).min)
MKB_MAP(where_valid, float, (const float *l, const u8 *cond),
        cond[(i / (kN * kU * kW * kC)) * kU * kW * kC + i % (kU * kW * kC)] ? l[i] : -3.4028234663852886e38f)

// softmax over the last axis (C = 24): one warp per row, exp(x - max) / sum
extern "C" __global__ void softmax_rows_24(float *out, const float *x, long long rows) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float v = lane < kC ? x[row * kC + lane] : -__int_as_float(0x7f800000);
  float m = v;
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  const float e = lane < kC ? expf(v - m) : 0.0f;
  float s = e;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane < kC) out[row * kC + lane] = e / s;
}

// ---- context ----
// probabilities.permute(0, 2, 1, 3, 4) -> [B, U, N, W, C]
MKB_MAP(permute_probs, float, (const float *p),
        p[(i / (kU * kN * kW * kC)) * kN * kU * kW * kC + ((i / (kW * kC)) % kN) * kU * kW * kC +
          ((i / (kN * kW * kC)) % kU) * kW * kC + i % (kW * kC)])
// value_blocks.permute(0, 1, 3, 2, 4) -> [B, U, N, C, H]
MKB_MAP(permute_values, float, (const float *vc),
        vc[(i / (kN * kC * kH)) * kC * kD + ((i / kH) % kC) * kD + ((i / (kC * kH)) % kN) * kH + i % kH])
// [B, U, N, W, H] -> permute(0, 1, 3, 2, 4) -> [B, U * W, N, H] -> [:, :T]  (output [B, T, N, H])
MKB_MAP(gather_context, float, (const float *r),
        r[(i / (kT * kD)) * kU * kN * kW * kH + (((i / kD) % kT) / kW) * kN * kW * kH + ((i % kD) / kH) * kW * kH +
          (((i / kD) % kT) % kW) * kH + i % kH])

/* mkb:plan
# sizes: rows = B*T = 110144; QB = B*TP*D; KP = B*TK*D; KC = B*U*C*D; L = B*N*U*W*C logits
scratch sc0 fp32[1]
scratch sc1 fp32[1]
scratch qsc fp32[1]
scratch lo_ones uint8[context_size * chunk_size]
scratch lo uint8[context_size * chunk_size]
scratch up_ones uint8[chunk_size * context_size]
scratch up uint8[chunk_size * context_size]
scratch loc_ones uint8[chunk_size * context_size]
scratch loc2 uint8[chunk_size * context_size]
scratch loc uint8[chunk_size * context_size]
scratch q_raw fp32[batch_size * seq_len * hidden_size]
scratch k_raw fp32[batch_size * seq_len * hidden_size]
scratch v_raw fp32[batch_size * seq_len * hidden_size]
scratch sp fp32[head_dim]
scratch q1 fp32[batch_size * seq_len * hidden_size]
scratch q2 fp32[batch_size * seq_len * hidden_size]
scratch qb fp32[batch_size * num_blocks * chunk_size * hidden_size]
scratch kp fp32[batch_size * (seq_len + 23) * hidden_size]
scratch kc fp32[batch_size * num_blocks * context_size * hidden_size]
scratch vp fp32[batch_size * (seq_len + 23) * hidden_size]
scratch vc fp32[batch_size * num_blocks * context_size * hidden_size]
scratch vm uint8[batch_size * seq_len]
scratch vmp uint8[batch_size * (seq_len + 23)]
scratch vmb uint8[batch_size * num_blocks * context_size]
scratch cond uint8[batch_size * num_blocks * chunk_size * context_size]
scratch pidx int64[num_rel_positions]
scratch pf fp32[num_rel_positions]
scratch st fp32[num_rel_positions * num_timescales]
scratch ssin fp32[num_rel_positions * num_timescales]
scratch scos fp32[num_rel_positions * num_timescales]
scratch sig fp32[num_rel_positions * hidden_size]
scratch semb fp32[num_rel_positions * hidden_size]
scratch qp fp32[batch_size * num_blocks * chunk_size * hidden_size]
scratch kt fp32[batch_size * num_blocks * context_size * hidden_size]
scratch ac fp32[batch_size * num_heads * num_blocks * chunk_size * context_size]
scratch qr fp32[batch_size * num_blocks * chunk_size * hidden_size]
scratch sx fp32[batch_size * num_heads * head_dim * num_rel_positions]
scratch bdu fp32[batch_size * num_heads * num_blocks * chunk_size * num_rel_positions]
scratch bdp fp32[batch_size * num_heads * num_blocks * chunk_size * (context_size + 1)]
scratch bds fp32[batch_size * num_heads * num_blocks * chunk_size * context_size]
scratch lg0 fp32[batch_size * num_heads * num_blocks * chunk_size * context_size]
scratch lg1 fp32[batch_size * num_heads * num_blocks * chunk_size * context_size]
scratch prob fp32[batch_size * num_heads * num_blocks * chunk_size * context_size]
scratch pb fp32[batch_size * num_heads * num_blocks * chunk_size * context_size]
scratch vb fp32[batch_size * num_blocks * context_size * hidden_size]
scratch res fp32[batch_size * num_blocks * chunk_size * hidden_size]
# q_scale = head_dim ** -0.5 / softplus(0)
launch softplus_of_zero grid(1) block(256) args(sc0, sc0, i64(1))
launch rdiv_one grid(1) block(256) args(sc1, sc0, i64(1))
launch scale_scalar grid(1) block(256) args(qsc, sc1, f32(0.125), i64(1))
# local causal mask: tril(ones(C, W)).T * tril(ones(W, C), 12) * ones(W, C)
launch fill_true grid(1) block(256) args(lo_ones, lo_ones, i64(context_size * chunk_size))
launch tril_u8 grid(1) block(256) args(lo, lo_ones, i32(chunk_size), i32(0), i64(context_size * chunk_size))
launch fill_true grid(1) block(256) args(up_ones, up_ones, i64(chunk_size * context_size))
launch tril_u8 grid(1) block(256) args(up, up_ones, i32(context_size), i32(max_backward), i64(chunk_size * context_size))
launch fill_true grid(1) block(256) args(loc_ones, loc_ones, i64(chunk_size * context_size))
launch and_transposed_u8 grid(1) block(256) args(loc2, loc_ones, lo, i64(chunk_size * context_size))
launch and_u8 grid(1) block(256) args(loc, loc2, up, i64(chunk_size * context_size))
# projections
matmul c(q_raw) a(hidden_states) b(q_proj_weight) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
matmul c(k_raw) a(hidden_states) b(k_proj_weight) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
matmul c(v_raw) a(hidden_states) b(v_proj_weight) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
# q = q * q_scale * softplus(per_dim_scale)
launch softplus_f32 grid(1) block(256) args(sp, per_dim_scale, i64(head_dim))
launch mul_scalar_tensor grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(q1, q_raw, qsc, i64(batch_size * seq_len * hidden_size))
launch mul_per_dim grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(q2, q1, sp, i64(batch_size * seq_len * hidden_size))
# blocks
launch pad_queries grid(ceil_div(batch_size * num_blocks * chunk_size * hidden_size, 1024)) block(256)
  args(qb, q2, i64(batch_size * num_blocks * chunk_size * hidden_size))
launch pad_context grid(ceil_div(batch_size * (seq_len + 23) * hidden_size, 1024)) block(256)
  args(kp, k_raw, i64(batch_size * (seq_len + 23) * hidden_size))
launch unfold_context grid(ceil_div(batch_size * num_blocks * context_size * hidden_size, 1024)) block(256)
  args(kc, kp, i64(batch_size * num_blocks * context_size * hidden_size))
launch pad_context grid(ceil_div(batch_size * (seq_len + 23) * hidden_size, 1024)) block(256)
  args(vp, v_raw, i64(batch_size * (seq_len + 23) * hidden_size))
launch unfold_context grid(ceil_div(batch_size * num_blocks * context_size * hidden_size, 1024)) block(256)
  args(vc, vp, i64(batch_size * num_blocks * context_size * hidden_size))
launch not_u8 grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(vm, mask, i64(batch_size * seq_len))
launch pad_valid grid(ceil_div(batch_size * (seq_len + 23), 1024)) block(256) args(vmp, vm, i64(batch_size * (seq_len + 23)))
launch unfold_valid grid(ceil_div(batch_size * num_blocks * context_size, 1024)) block(256)
  args(vmb, vmp, i64(batch_size * num_blocks * context_size))
launch condition_u8 grid(ceil_div(batch_size * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(cond, vmb, loc, i64(batch_size * num_blocks * chunk_size * context_size))
# relative-position table sin_emb [F, D] = cat(sin, cos)(pos * inv) @ pos_proj_weight^T
launch arange_desc grid(1) block(256) args(pidx, i64(max_backward), i64(num_rel_positions))
launch to_float_i64 grid(1) block(256) args(pf, pidx, i64(num_rel_positions))
launch outer_mul grid(ceil_div(num_rel_positions * num_timescales, 1024)) block(256)
  args(st, pf, inv_timescales, i32(num_timescales), i64(num_rel_positions * num_timescales))
launch sin_f32 grid(ceil_div(num_rel_positions * num_timescales, 1024)) block(256) args(ssin, st, i64(num_rel_positions * num_timescales))
launch cos_f32 grid(ceil_div(num_rel_positions * num_timescales, 1024)) block(256) args(scos, st, i64(num_rel_positions * num_timescales))
launch cat_halves grid(ceil_div(num_rel_positions * hidden_size, 1024)) block(256)
  args(sig, ssin, scos, i32(num_timescales), i64(num_rel_positions * hidden_size))
matmul c(semb) a(sig) b(pos_proj_weight) m(num_rel_positions) n(hidden_size) k(hidden_size) transpose_b
# term_ac = queries [B,N,U,W,H] @ keys^T [B,N,U,H,C]
launch permute_queries grid(ceil_div(batch_size * num_blocks * chunk_size * hidden_size, 1024)) block(256)
  args(qp, qb, i64(batch_size * num_blocks * chunk_size * hidden_size))
launch permute_keys_t grid(ceil_div(batch_size * num_blocks * context_size * hidden_size, 1024)) block(256)
  args(kt, kc, i64(batch_size * num_blocks * context_size * hidden_size))
matmul c(ac) a(qp) b(kt) m(chunk_size) n(context_size) k(head_dim) batch(batch_size * num_heads * num_blocks)
# term_bd = queries [B,N,U*W,H] @ sin_emb.permute(1, 2, 0) [N,H,F], then the relative shift
launch permute_queries grid(ceil_div(batch_size * num_blocks * chunk_size * hidden_size, 1024)) block(256)
  args(qr, qb, i64(batch_size * num_blocks * chunk_size * hidden_size))
launch expand_pos grid(ceil_div(batch_size * num_heads * head_dim * num_rel_positions, 1024)) block(256)
  args(sx, semb, i64(batch_size * num_heads * head_dim * num_rel_positions))
matmul c(bdu) a(qr) b(sx) m(num_blocks * chunk_size) n(num_rel_positions) k(head_dim) batch(batch_size * num_heads)
launch pad_rel grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * (context_size + 1), 1024)) block(256)
  args(bdp, bdu, i64(batch_size * num_heads * num_blocks * chunk_size * (context_size + 1)))
launch shift_rel grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(bds, bdp, i64(batch_size * num_heads * num_blocks * chunk_size * context_size))
# logits = term_ac + term_bd; soft cap; mask; softmax
launch add_f32 grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(lg0, ac, bds, i64(batch_size * num_heads * num_blocks * chunk_size * context_size))
launch div_scalar grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(lg1, lg0, f32(attention_logits_soft_cap), i64(batch_size * num_heads * num_blocks * chunk_size * context_size))
launch tanh_f32 grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(lg0, lg1, i64(batch_size * num_heads * num_blocks * chunk_size * context_size))
launch mul_scalar grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(lg1, lg0, f32(attention_logits_soft_cap), i64(batch_size * num_heads * num_blocks * chunk_size * context_size))
launch where_valid grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(lg0, lg1, cond, i64(batch_size * num_heads * num_blocks * chunk_size * context_size))
launch softmax_rows_24 grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size, 8)) block(256)
  args(prob, lg0, i64(batch_size * num_heads * num_blocks * chunk_size))
# context = probabilities [B*U*N, W, C] @ values [B*U*N, C, H]
launch permute_probs grid(ceil_div(batch_size * num_heads * num_blocks * chunk_size * context_size, 1024)) block(256)
  args(pb, prob, i64(batch_size * num_heads * num_blocks * chunk_size * context_size))
launch permute_values grid(ceil_div(batch_size * num_blocks * context_size * hidden_size, 1024)) block(256)
  args(vb, vc, i64(batch_size * num_blocks * context_size * hidden_size))
matmul c(res) a(pb) b(vb) m(chunk_size) n(head_dim) k(context_size) batch(batch_size * num_blocks * num_heads)
launch gather_context grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(context_vectors, res, i64(batch_size * seq_len * hidden_size))
*/
