// The eager baseline: F.linear (a cuBLAS fp32 GEMM, the plan's matmul step, no TF32) into h
// [tokens, 2 x intermediate]; h.chunk(2, -1) is a view (no launch): gate = h[:, :I], up = h[:, I:];
// then torch.sigmoid(gate), gate * that, * up (three launches reading the strided halves, each
// rounded to fp32); then F.linear again. Every intermediate is an fp32 tensor in memory.
#include "mkb_ops.cuh"

// element i of a [rows, I] half of h [rows, 2I]: column offset 0 (gate) or I (up)
#define HALF(h, off) h[(i / inter) * 2 * inter + (off) + i % inter]
// s = torch.sigmoid(gate)
MKB_MAP(sigmoid_gate, float, (const float *h, long long inter), mkb_sigmoid(f32(HALF(h, 0))))
// g = gate * s
MKB_MAP(mul_gate, float, (const float *h, const float *s, long long inter), f32(HALF(h, 0)) * f32(s[i]))
// act = g * up
MKB_MAP(mul_up, float, (const float *g, const float *h, long long inter), f32(g[i]) * f32(HALF(h, inter)))

/* mkb:plan
scratch h fp32[batch_size * seq_len * intermediate_size_x2]
scratch s fp32[batch_size * seq_len * intermediate_size]
scratch g fp32[batch_size * seq_len * intermediate_size]
scratch act fp32[batch_size * seq_len * intermediate_size]
matmul c(h) a(x) b(w_gate_up) m(batch_size * seq_len) n(intermediate_size_x2) k(hidden_size) transpose_b
launch sigmoid_gate grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256)
  args(s, h, i64(intermediate_size), i64(batch_size * seq_len * intermediate_size))
launch mul_gate grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256)
  args(g, h, s, i64(intermediate_size), i64(batch_size * seq_len * intermediate_size))
launch mul_up grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256)
  args(act, g, h, i64(intermediate_size), i64(batch_size * seq_len * intermediate_size))
matmul c(out) a(act) b(w_down) m(batch_size * seq_len) n(hidden_size) k(intermediate_size) transpose_b
*/
