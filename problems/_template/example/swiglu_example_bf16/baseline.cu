// The unfused baseline: eager PyTorch's two launches, F.silu(gate) and the product with up, with the
// activation in memory at bf16 between them; fp32 arithmetic and one rounding per operation.
#include "mkb_ops.cuh"

// a = F.silu(gate), bf16
MKB_MAP(silu_map, bf16, (const bf16 *g), mkb_silu(f32(g[i])))
// h = a * up, bf16
MKB_MAP(mul_map, bf16, (const bf16 *a, const bf16 *u), f32(a[i]) * f32(u[i]))

/* mkb:plan
scratch a bf16[tokens * intermediate]
launch silu_map grid(ceil_div(tokens * intermediate, 1024)) block(256) args(a, gate, i64(tokens * intermediate))
launch mul_map grid(ceil_div(tokens * intermediate, 1024)) block(256) args(h, a, up, i64(tokens * intermediate))
*/
