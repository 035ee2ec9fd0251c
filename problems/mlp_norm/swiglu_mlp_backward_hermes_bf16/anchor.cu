// The float64 anchor: the same semantics with every intermediate exact in double and no rounding points.
// GEMM operands are cast to fp64 scratch (about 37 GB in all); elementwise kernels read the bf16 inputs
// directly. Every output is an fp64 buffer. T = batch_size * seq_len rows.
#include "mkb_ops.cuh"

MKB_MAP(cast64, double, (const bf16 *v), f64(v[i]))
// h = act * up
MKB_MAP(mul64, double, (const bf16 *a, const bf16 *u), f64(a[i]) * f64(u[i]))
// grad_gate = grad_h * up * sig * (1 + gate * (1 - sig)), sig = sigmoid(gate)
MKB_MAP(dgate64, double, (const double *dh, const bf16 *u, const bf16 *g),
        dh[i] * f64(u[i]) * mkb_sigmoid(f64(g[i])) * (1.0 + f64(g[i]) * (1.0 - mkb_sigmoid(f64(g[i])))))
// grad_up = grad_h * act
MKB_MAP(dup64, double, (const double *dh, const bf16 *a), dh[i] * f64(a[i]))

/* mkb:plan
scratch go64 fp64[batch_size * seq_len * hidden_size]
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch wg64 fp64[intermediate_size * hidden_size]
scratch wu64 fp64[intermediate_size * hidden_size]
scratch wd64 fp64[hidden_size * intermediate_size]
scratch dh64 fp64[batch_size * seq_len * intermediate_size]
scratch h64 fp64[batch_size * seq_len * intermediate_size]
scratch dg64 fp64[batch_size * seq_len * intermediate_size]
scratch du64 fp64[batch_size * seq_len * intermediate_size]
launch cast64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(go64, grad_output, i64(batch_size * seq_len * hidden_size))
launch cast64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch cast64 grid(ceil_div(intermediate_size * hidden_size, 1024)) block(256) args(wg64, gate_weight, i64(intermediate_size * hidden_size))
launch cast64 grid(ceil_div(intermediate_size * hidden_size, 1024)) block(256) args(wu64, up_weight, i64(intermediate_size * hidden_size))
launch cast64 grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256) args(wd64, down_weight, i64(hidden_size * intermediate_size))
matmul c(dh64) a(go64) b(wd64) m(batch_size * seq_len) n(intermediate_size) k(hidden_size)
launch mul64 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(h64, act, up, i64(batch_size * seq_len * intermediate_size))
matmul c(grad_down_weight) a(go64) b(h64) m(hidden_size) n(intermediate_size) k(batch_size * seq_len) transpose_a
launch dgate64 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(dg64, dh64, up, gate, i64(batch_size * seq_len * intermediate_size))
launch dup64 grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256) args(du64, dh64, act, i64(batch_size * seq_len * intermediate_size))
matmul c(grad_gate_weight) a(dg64) b(x64) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_up_weight) a(du64) b(x64) m(intermediate_size) n(hidden_size) k(batch_size * seq_len) transpose_a
matmul c(grad_input) a(dg64) b(wg64) m(batch_size * seq_len) n(hidden_size) k(intermediate_size)
matmul c(grad_input) a(du64) b(wu64) m(batch_size * seq_len) n(hidden_size) k(intermediate_size) accumulate
*/
