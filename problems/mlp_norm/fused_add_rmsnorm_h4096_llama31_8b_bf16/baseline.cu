// The eager baseline: one launch per operation of the original's reference() as eager PyTorch runs
// it, every intermediate an fp32 tensor in memory (eager.py is that computation).
#include "mkb_ops.cuh"

// a = hidden_states.to(fp32); b = residual.to(fp32); w = weight.to(fp32)
MKB_MAP(to_fp32, float, (const bf16 *s), f32(s[i]))
// x = a + b
MKB_MAP(add, float, (const float *a, const float *b), a[i] + b[i])
// q = x.pow(2)
MKB_MAP(square, float, (const float *x), x[i] * x[i])
// ms = q.mean(dim=-1, keepdim=True)
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *q), q[(long long)r * cols + c], acc / cols)
// v = ms + eps
MKB_MAP(add_scalar, float, (const float *ms, float eps), ms[i] + eps)
// inv_rms = rsqrt(v)
MKB_MAP(rsqrt_map, float, (const float *v), rsqrtf(v[i]))
// normed = x * inv_rms (inv_rms broadcast along the row). The broadcast index is 32-bit, as eager
// PyTorch indexes a tensor of fewer than 2^31 elements: a 64-bit division per element would make the
// baseline slower than the eager program it stands for.
MKB_MAP(scale_rows, float, (const float *x, const float *inv, unsigned cols), x[i] * inv[(unsigned)i / cols])
// m = normed * w (w broadcast along the columns)
MKB_MAP(mul_columns, float, (const float *normed, const float *w, unsigned cols), normed[i] * w[(unsigned)i % cols])
// y = m.to(bf16)
MKB_MAP(to_bf16, bf16, (const float *m), m[i])

/* mkb:plan
scratch a fp32[batch_size * hidden_size]
scratch b fp32[batch_size * hidden_size]
scratch x fp32[batch_size * hidden_size]
scratch q fp32[batch_size * hidden_size]
scratch ms fp32[batch_size]
scratch v fp32[batch_size]
scratch inv fp32[batch_size]
scratch normed fp32[batch_size * hidden_size]
scratch w fp32[hidden_size]
scratch m fp32[batch_size * hidden_size]
launch to_fp32 grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(a, hidden_states, i64(batch_size * hidden_size))
launch to_fp32 grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(b, residual, i64(batch_size * hidden_size))
launch add grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(x, a, b, i64(batch_size * hidden_size))
launch square grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(q, x, i64(batch_size * hidden_size))
launch row_mean grid(batch_size) block(256) args(ms, q, i32(hidden_size))
launch add_scalar grid(ceil_div(batch_size, 1024)) block(256) args(v, ms, f32(eps), i64(batch_size))
launch rsqrt_map grid(ceil_div(batch_size, 1024)) block(256) args(inv, v, i64(batch_size))
launch scale_rows grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(normed, x, inv, u32(hidden_size), i64(batch_size * hidden_size))
launch to_fp32 grid(ceil_div(hidden_size, 1024)) block(256) args(w, weight, i64(hidden_size))
launch mul_columns grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(m, normed, w, u32(hidden_size), i64(batch_size * hidden_size))
launch to_bf16 grid(ceil_div(batch_size * hidden_size, 1024)) block(256) args(y, m, i64(batch_size * hidden_size))
*/
