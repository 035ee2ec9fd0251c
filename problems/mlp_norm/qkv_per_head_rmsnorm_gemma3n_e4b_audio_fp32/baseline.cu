// The unfused baseline: one launch per eager PyTorch operation, fp32 throughout. The three bias-free
// nn.Linear projections are `matmul` steps (cuBLAS fp32 GEMMs, no TF32); each per-head RMSNorm
// (Gemma3nRMSNorm form: x / sqrt(x.pow(2).mean(-1) + eps) * weight) is six launches. Heads are rows of
// head_dim contiguous elements, so [frames, hidden] is [frames * heads, head_dim].
#include "mkb_ops.cuh"

// s = t.pow(2)
MKB_MAP(square_f32, float, (const float *t), t[i] * t[i])
// ms = s.mean(-1): one block per (frame, head) row of head_dim elements
MKB_ROW_REDUCE(row_mean_f32, float, float, mkb_ops::sum_op, (const float *s), s[r * cols + c], acc / cols)
// e = ms + eps
MKB_MAP(add_eps_f32, float, (const float *ms, float eps), ms[i] + eps)
// den = torch.sqrt(e)
MKB_MAP(sqrt_f32, float, (const float *e), sqrtf(e[i]))
// nr = t / den (broadcast over head_dim)
MKB_MAP(div_rows_f32, float, (const float *t, const float *den, int cols), t[i] / den[i / cols])
// out = nr * weight (weight broadcast over frames and heads)
MKB_MAP(mul_weight_f32, float, (const float *nr, const float *w, int cols), nr[i] * w[i % cols])

/* mkb:plan
scratch q_raw fp32[frames * hidden]
scratch k_raw fp32[frames * hidden]
scratch sq fp32[frames * hidden]
scratch ms fp32[frames * heads]
scratch e fp32[frames * heads]
scratch den fp32[frames * heads]
scratch nrm fp32[frames * hidden]
matmul c(q_raw) a(x) b(q_weight) m(frames) n(hidden) k(hidden) transpose_b
matmul c(k_raw) a(x) b(k_weight) m(frames) n(hidden) k(hidden) transpose_b
matmul c(v) a(x) b(v_weight) m(frames) n(hidden) k(hidden) transpose_b
launch square_f32 grid(ceil_div(frames * hidden, 256)) block(256) args(sq, q_raw, i64(frames * hidden))
launch row_mean_f32 grid(frames * heads) block(64) args(ms, sq, i32(head_dim))
launch add_eps_f32 grid(ceil_div(frames * heads, 256)) block(256) args(e, ms, f32(eps), i64(frames * heads))
launch sqrt_f32 grid(ceil_div(frames * heads, 256)) block(256) args(den, e, i64(frames * heads))
launch div_rows_f32 grid(ceil_div(frames * hidden, 256)) block(256) args(nrm, q_raw, den, i32(head_dim), i64(frames * hidden))
launch mul_weight_f32 grid(ceil_div(frames * hidden, 256)) block(256) args(q, nrm, q_norm_weight, i32(head_dim), i64(frames * hidden))
launch square_f32 grid(ceil_div(frames * hidden, 256)) block(256) args(sq, k_raw, i64(frames * hidden))
launch row_mean_f32 grid(frames * heads) block(64) args(ms, sq, i32(head_dim))
launch add_eps_f32 grid(ceil_div(frames * heads, 256)) block(256) args(e, ms, f32(eps), i64(frames * heads))
launch sqrt_f32 grid(ceil_div(frames * heads, 256)) block(256) args(den, e, i64(frames * heads))
launch div_rows_f32 grid(ceil_div(frames * hidden, 256)) block(256) args(nrm, k_raw, den, i32(head_dim), i64(frames * hidden))
launch mul_weight_f32 grid(ceil_div(frames * hidden, 256)) block(256) args(k, nrm, k_norm_weight, i32(head_dim), i64(frames * hidden))
*/
