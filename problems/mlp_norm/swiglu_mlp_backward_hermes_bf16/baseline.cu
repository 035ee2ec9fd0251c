// The unfused baseline: one launch per eager PyTorch operation of the reconstructed reference (spec notes),
// intermediates in memory at the dtype eager keeps them (bf16, fp32 for the SiLU-derivative chain), one
// rounding per op. GEMMs are `matmul` steps (cuBLAS, fp32 accumulation, one rounding). T = batch_size * seq_len
// rows; fp32 scratch buffers are reused once dead (eager's caching allocator does the same).
#include "mkb_ops.cuh"

// p = l * r (bf16): h = act * up, grad_act = grad_h * up, grad_up = grad_h * act
MKB_MAP(mul_bf16, bf16, (const bf16 *l, const bf16 *r), f32(l[i]) * f32(r[i]))
// gate.to(float32), grad_act.to(float32)
MKB_MAP(to_float, float, (const bf16 *v), f32(v[i]))
// sig = torch.sigmoid(g)
MKB_MAP(sigmoid_map, float, (const float *g), mkb_sigmoid(g[i]))
// 1.0 - sig
MKB_MAP(rsub_one, float, (const float *s), 1.0f - s[i])
// 1.0 + t
MKB_MAP(add_one, float, (const float *t), 1.0f + t[i])
// l * r (fp32)
MKB_MAP(mul_f32, float, (const float *l, const float *r), l[i] * r[i])
// .to(bf16)
MKB_MAP(to_bf16, bf16, (const float *v), v[i])
// grad_input = dx_gate + dx_up (bf16)
MKB_MAP(add_bf16, bf16, (const bf16 *l, const bf16 *r), f32(l[i]) + f32(r[i]))

/* mkb:plan
scratch grad_h bf16[batch_size * seq_len * intermediate_size]
scratch h bf16[batch_size * seq_len * intermediate_size]
scratch grad_act bf16[batch_size * seq_len * intermediate_size]
scratch grad_up bf16[batch_size * seq_len * intermediate_size]
scratch grad_gate bf16[batch_size * seq_len * intermediate_size]
scratch fa fp32[batch_size * seq_len * intermediate_size]
scratch fb fp32[batch_size * seq_len * intermediate_size]
scratch fc fp32[batch_size * seq_len * intermediate_size]
scratch fd fp32[batch_size * seq_len * intermediate_size]
scratch dxg bf16[batch_size * seq_len * hidden_size]
scratch dxu bf16[batch_size * seq_len * hidden_size]
matmul c(grad_h) a(grad_output) b(down_weight) m(batch_size * seq_len) n(intermediate_size) k(hidden_size)
launch mul_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(h, act, up, i64(batch_size * seq_len * intermediate_size))
matmul c(grad_down_weight) a(grad_output) b(h) m(hidden_size) n(intermediate_size) k(batch_size * seq_len) transpose_a
launch mul_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(grad_act, grad_h, up, i64(batch_size * seq_len * intermediate_size))
launch mul_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(grad_up, grad_h, act, i64(batch_size * seq_len * intermediate_size))
# sig = sigmoid(gate.float()); g = gate.float(); dsilu = sig * (1 + g * (1 - sig))
launch to_float grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fa, gate, i64(batch_size * seq_len * intermediate_size))
launch sigmoid_map grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fb, fa, i64(batch_size * seq_len * intermediate_size))
launch to_float grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fa, gate, i64(batch_size * seq_len * intermediate_size))
launch rsub_one grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fc, fb, i64(batch_size * seq_len * intermediate_size))
launch mul_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fd, fa, fc, i64(batch_size * seq_len * intermediate_size))
launch add_one grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fc, fd, i64(batch_size * seq_len * intermediate_size))
launch mul_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fa, fb, fc, i64(batch_size * seq_len * intermediate_size))
# grad_gate = (grad_act.float() * dsilu).to(bf16)
launch to_float grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fb, grad_act, i64(batch_size * seq_len * intermediate_size))
launch mul_f32 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(fc, fb, fa, i64(batch_size * seq_len * intermediate_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(grad_gate, fc, i64(batch_size * seq_len * intermediate_size))
matmul c(grad_gate_weight) a(grad_gate) b(hidden_states) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_up_weight) a(grad_up) b(hidden_states) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(dxg) a(grad_gate) b(gate_weight) m(batch_size * seq_len) n(hidden_size) k(intermediate_size)
matmul c(dxu) a(grad_up) b(up_weight) m(batch_size * seq_len) n(hidden_size) k(intermediate_size)
launch add_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(grad_input, dxg, dxu, i64(batch_size * seq_len * hidden_size))
*/
