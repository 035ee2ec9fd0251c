// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points. Inputs are cast to fp64 scratch for the fp64 `matmul` steps; every output is an fp64 buffer.
#include "mkb_ops.cuh"

MKB_MAP(cast64, double, (const bf16 *v), f64(v[i]))
// h = silu(g) * u
MKB_MAP(swiglu64, double, (const double *g, const double *u), mkb_silu(g[i]) * u[i])
// dg = dh * u * silu'(g)
MKB_MAP(dgate64, double, (const double *dh, const double *g, const double *u), dh[i] * u[i] * mkb_silu_grad(g[i]))
// du = dh * silu(g)
MKB_MAP(dup64, double, (const double *dh, const double *g), dh[i] * mkb_silu(g[i]))

/* mkb:plan
scratch x64 fp64[tokens * hidden]
scratch dy64 fp64[tokens * hidden]
scratch wg64 fp64[intermediate * hidden]
scratch wu64 fp64[intermediate * hidden]
scratch wd64 fp64[hidden * intermediate]
scratch g64 fp64[tokens * intermediate]
scratch u64 fp64[tokens * intermediate]
scratch h64 fp64[tokens * intermediate]
scratch dh64 fp64[tokens * intermediate]
scratch dg64 fp64[tokens * intermediate]
scratch du64 fp64[tokens * intermediate]
launch cast64 grid(ceil_div(tokens * hidden, 256)) block(256) args(x64, x, i64(tokens * hidden))
launch cast64 grid(ceil_div(tokens * hidden, 256)) block(256) args(dy64, dy, i64(tokens * hidden))
launch cast64 grid(ceil_div(intermediate * hidden, 256)) block(256) args(wg64, w_gate, i64(intermediate * hidden))
launch cast64 grid(ceil_div(intermediate * hidden, 256)) block(256) args(wu64, w_up, i64(intermediate * hidden))
launch cast64 grid(ceil_div(hidden * intermediate, 256)) block(256) args(wd64, w_down, i64(hidden * intermediate))
matmul c(g64) a(x64) b(wg64) m(tokens) n(intermediate) k(hidden) transpose_b
matmul c(u64) a(x64) b(wu64) m(tokens) n(intermediate) k(hidden) transpose_b
launch swiglu64 grid(ceil_div(tokens * intermediate, 256)) block(256) args(h64, g64, u64, i64(tokens * intermediate))
matmul c(dh64) a(dy64) b(wd64) m(tokens) n(intermediate) k(hidden)
matmul c(dw_down) a(dy64) b(h64) m(hidden) n(intermediate) k(tokens) transpose_a
launch dgate64 grid(ceil_div(tokens * intermediate, 256)) block(256) args(dg64, dh64, g64, u64, i64(tokens * intermediate))
launch dup64 grid(ceil_div(tokens * intermediate, 256)) block(256) args(du64, dh64, g64, i64(tokens * intermediate))
matmul c(dw_gate) a(dg64) b(x64) m(intermediate) n(hidden) k(tokens) transpose_a
matmul c(dw_up) a(du64) b(x64) m(intermediate) n(hidden) k(tokens) transpose_a
matmul c(dx) a(dg64) b(wg64) m(tokens) n(hidden) k(intermediate)
matmul c(dx) a(du64) b(wu64) m(tokens) n(hidden) k(intermediate) accumulate
*/
