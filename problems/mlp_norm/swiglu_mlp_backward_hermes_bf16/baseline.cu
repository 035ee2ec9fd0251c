// The unfused baseline: eager PyTorch autograd in bf16 for the Llama MLP
// y = down_proj(silu(gate_proj(x)) * up_proj(x)), with the forward recomputed from the saved input x.
// One launch per eager operation; GEMMs are `matmul` steps (cuBLAS, fp32 accumulation, one rounding).
#include "mkb_ops.cuh"

// a = silu(g)
MKB_MAP(silu_map, bf16, (const bf16 *g), mkb_silu(f32(g[i])))
// p = l * r (the three products of the forward and the mul backward)
MKB_MAP(mul_map, bf16, (const bf16 *l, const bf16 *r), f32(l[i]) * f32(r[i]))
// dg = silu_backward(da, g) = da * sigmoid(g) * (1 + g * (1 - sigmoid(g))), in fp32, rounded once
MKB_MAP(silu_backward_map, bf16, (const bf16 *da, const bf16 *g), f32(da[i]) * mkb_silu_grad(f32(g[i])))
// dx = dx_gate + dx_up (autograd accumulating the two contributions to x's gradient)
MKB_MAP(add_map, bf16, (const bf16 *l, const bf16 *r), f32(l[i]) + f32(r[i]))

/* mkb:plan
scratch g bf16[tokens * intermediate]
scratch u bf16[tokens * intermediate]
scratch a bf16[tokens * intermediate]
scratch h bf16[tokens * intermediate]
scratch dh bf16[tokens * intermediate]
scratch da bf16[tokens * intermediate]
scratch du bf16[tokens * intermediate]
scratch dg bf16[tokens * intermediate]
scratch dxg bf16[tokens * hidden]
scratch dxu bf16[tokens * hidden]
# forward recomputation: g = x W_gate^T, u = x W_up^T, a = silu(g), h = a * u
matmul c(g) a(x) b(w_gate) m(tokens) n(intermediate) k(hidden) transpose_b
matmul c(u) a(x) b(w_up) m(tokens) n(intermediate) k(hidden) transpose_b
launch silu_map grid(ceil_div(tokens * intermediate, 256)) block(256) args(a, g, i64(tokens * intermediate))
launch mul_map grid(ceil_div(tokens * intermediate, 256)) block(256) args(h, a, u, i64(tokens * intermediate))
# down_proj backward: dh = dy W_down, dW_down = dy^T h
matmul c(dh) a(dy) b(w_down) m(tokens) n(intermediate) k(hidden)
matmul c(dw_down) a(dy) b(h) m(hidden) n(intermediate) k(tokens) transpose_a
# mul backward: da = dh * u, du = dh * a; silu backward: dg
launch mul_map grid(ceil_div(tokens * intermediate, 256)) block(256) args(da, dh, u, i64(tokens * intermediate))
launch mul_map grid(ceil_div(tokens * intermediate, 256)) block(256) args(du, dh, a, i64(tokens * intermediate))
launch silu_backward_map grid(ceil_div(tokens * intermediate, 256)) block(256) args(dg, da, g, i64(tokens * intermediate))
# up_proj and gate_proj backward: weight gradients and the two input-gradient contributions
matmul c(dw_up) a(du) b(x) m(intermediate) n(hidden) k(tokens) transpose_a
matmul c(dxu) a(du) b(w_up) m(tokens) n(hidden) k(intermediate)
matmul c(dw_gate) a(dg) b(x) m(intermediate) n(hidden) k(tokens) transpose_a
matmul c(dxg) a(dg) b(w_gate) m(tokens) n(hidden) k(intermediate)
launch add_map grid(ceil_div(tokens * hidden, 256)) block(256) args(dx, dxg, dxu, i64(tokens * hidden))
*/
