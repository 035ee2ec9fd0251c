// The float64 anchor: h = silu(gate) * up with no rounding; the output is an fp64 buffer.
#include "mkb_ops.cuh"

MKB_MAP(anchor_swiglu, double, (const bf16 *g, const bf16 *u), mkb_silu(f64(g[i])) * f64(u[i]))

/* mkb:plan
launch anchor_swiglu grid(ceil_div(tokens * intermediate, 1024)) block(256) args(h, gate, up, i64(tokens * intermediate))
*/
