// The unfused eager baseline (eager.py's op sequence): bf16 inputs cast to fp32 tensors, every op in fp32
// with its result an fp32 tensor in memory, each projection a cuBLAS SGEMM (the plan's matmul step on the
// fp32 copies, no TF32), one cast back to bf16 at the end. Stream 1's and stream 2's blocks are launched one
// after the other, as eager runs them.
#include "mkb_ops.cuh"

// x.to(float32) of one [rows, hidden] slice of a bf16 tensor (offset in elements)
MKB_MAP(to_fp32, float, (const bf16 *x, long long offset), f32(x[i + offset]))
MKB_MAP(square, float, (const float *x), x[i] * x[i])          // x ** 2
MKB_MAP(sqrt_, float, (const float *x), sqrtf(x[i]))             // ** 0.5 and torch.sqrt
MKB_MAP(clamp_min, float, (const float *x, float lo), fmaxf(x[i], lo))
// broadcast of a per-row [rows, 1] tensor over the hidden axis
MKB_MAP(mul_row, float, (const float *x, const float *v, int cols), x[i] * v[i / cols])
MKB_MAP(div_row, float, (const float *x, const float *v, int cols), x[i] / v[i / cols])
// torch.stack of three [rows, hidden] tensors into [3, rows, hidden] (one cat kernel in eager)
MKB_MAP(stack3, float, (const float *a, const float *b, const float *c, long long slab),
        i < slab ? a[i] : (i < 2 * slab ? b[i - slab] : c[i - 2 * slab]))
// mean over dim 0 of [3, rows, hidden]: fp32 sum times fp32(1/3), as PyTorch's mean reduction
MKB_MAP(mean3, float, (const float *s, long long slab), (s[i] + s[i + slab] + s[i + 2 * slab]) * (1.0f / 3.0f))
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
// mean over the last axis: the fp32 sum times fp32(1 / cols), as PyTorch's mean reduction
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *x), x[(long long)r * cols + c], acc * (1.0f / cols))

/* mkb:plan
scratch x0 fp32[batch_size * seq_len * hidden_size]
scratch x fp32[batch_size * seq_len * hidden_size]
scratch w fp32[hidden_size * hidden_size]
scratch sq fp32[batch_size * seq_len * hidden_size]
scratch p fp32[batch_size * seq_len * hidden_size]
scratch u fp32[batch_size * seq_len * hidden_size]
scratch c1 fp32[batch_size * seq_len * hidden_size]
scratch c2 fp32[batch_size * seq_len * hidden_size]
scratch ms fp32[batch_size * seq_len]
scratch mc fp32[batch_size * seq_len]
scratch tm fp32[batch_size * seq_len]
scratch nm fp32[batch_size * seq_len]
scratch stacked fp32[3 * batch_size * seq_len * hidden_size]
scratch mean fp32[batch_size * seq_len * hidden_size]
# target = mean(x0 ** 2, -1, keepdim) ** 0.5
launch to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x0, hidden_states, i64(0), i64(batch_size * seq_len * hidden_size))
launch square grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(sq, x0, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(ms, sq, i32(hidden_size))
launch sqrt_ grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(tm, ms, i64(batch_size * seq_len))
# stream 1: p = x1 @ W1^T; new = sqrt(max(mean(p ** 2), eps)); c1 = p * target / new
launch to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x, hidden_states, i64(batch_size * seq_len * hidden_size), i64(batch_size * seq_len * hidden_size))
launch to_fp32 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(w, unembed_weight_1, i64(0), i64(hidden_size * hidden_size))
matmul c(p) a(x) b(w) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
launch square grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(sq, p, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(ms, sq, i32(hidden_size))
launch clamp_min grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(mc, ms, f32(eps), i64(batch_size * seq_len))
launch sqrt_ grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(nm, mc, i64(batch_size * seq_len))
launch mul_row grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(u, p, tm, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch div_row grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(c1, u, nm, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
# stream 2: the same block with W2
launch to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x, hidden_states, i64(2 * batch_size * seq_len * hidden_size), i64(batch_size * seq_len * hidden_size))
launch to_fp32 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(w, unembed_weight_2, i64(0), i64(hidden_size * hidden_size))
matmul c(p) a(x) b(w) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
launch square grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(sq, p, i64(batch_size * seq_len * hidden_size))
launch row_mean grid(batch_size * seq_len) block(256) args(ms, sq, i32(hidden_size))
launch clamp_min grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(mc, ms, f32(eps), i64(batch_size * seq_len))
launch sqrt_ grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(nm, mc, i64(batch_size * seq_len))
launch mul_row grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(u, p, tm, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
launch div_row grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(c2, u, nm, i32(hidden_size), i64(batch_size * seq_len * hidden_size))
# stack, mean over the streams, cast to bf16
launch stack3 grid(ceil_div(3 * batch_size * seq_len * hidden_size, 1024)) block(256) args(stacked, x0, c1, c2, i64(batch_size * seq_len * hidden_size), i64(3 * batch_size * seq_len * hidden_size))
launch mean3 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(mean, stacked, i64(batch_size * seq_len * hidden_size), i64(batch_size * seq_len * hidden_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(out, mean, i64(batch_size * seq_len * hidden_size))
*/
