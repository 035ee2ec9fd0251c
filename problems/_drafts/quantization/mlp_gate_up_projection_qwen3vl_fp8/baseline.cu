// The eager baseline: one launch per operation of the reconstructed reference as eager PyTorch runs it
// (eager.py is that computation): each _scaled_mm call dequantizes its two operands in fp32 (x twice,
// as the two calls do), the products are fp32 cuBLAS matmul steps (no TF32, as eager under the
// original's reference_numerics), then SiLU, the product and the bf16 cast. Index decompositions are
// 32-bit (every tensor here has fewer than 2^31 elements), as eager's are.
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

typedef __nv_fp8_e4m3 fp8;
__device__ __forceinline__ float f32(fp8 v) { return float(v); }

// q.to(compute_dtype)
MKB_MAP(fp8_to_fp32, float, (const fp8 *q), f32(q[i]))
// dequantize 1 x 128 blocks: q * scale[m, k / 128]
MKB_MAP(mul_rows, float, (const float *q, const float *s), q[i] * s[(unsigned)i / 128u])
// dequantize the [K, N] weight operand, its scales given transposed [N/128, K/128]
MKB_MAP(mul_tblocks, float, (const float *q, const float *st, unsigned k_blocks, unsigned cols),
        q[i] * st[(((unsigned)i % cols) / 128u) * k_blocks + ((unsigned)i / cols) / 128u])
// F.silu(gate_output)
MKB_MAP(silu_map, float, (const float *g), mkb_silu(g[i]))
// silu * up_output
MKB_MAP(mul_map, float, (const float *a, const float *b), a[i] * b[i])
// .to(torch.bfloat16)
MKB_MAP(to_bf16, bf16, (const float *y), y[i])

/* mkb:plan
scratch xq32 fp32[m * hidden_size]
scratch dqx fp32[m * hidden_size]
scratch wq32 fp32[hidden_size * intermediate_size]
scratch dqw fp32[hidden_size * intermediate_size]
scratch gate fp32[m * intermediate_size]
scratch up fp32[m * intermediate_size]
scratch act fp32[m * intermediate_size]
scratch prod fp32[m * intermediate_size]
# gate_output = _scaled_mm(x, gate_proj_weight, scale_x, ..., scale_gate, ..., None, compute_dtype)
launch fp8_to_fp32 grid(ceil_div(m * hidden_size, 1024)) block(256) args(xq32, x, i64(m * hidden_size))
launch mul_rows grid(ceil_div(m * hidden_size, 1024)) block(256) args(dqx, xq32, scale_x, i64(m * hidden_size))
launch fp8_to_fp32 grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256) args(wq32, gate_proj_weight, i64(hidden_size * intermediate_size))
launch mul_tblocks grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256)
  args(dqw, wq32, scale_gate, u32(hidden_size / 128), u32(intermediate_size), i64(hidden_size * intermediate_size))
matmul c(gate) a(dqx) b(dqw) m(m) n(intermediate_size) k(hidden_size)
# up_output = _scaled_mm(x, up_proj_weight, scale_x, ..., scale_up, ..., None, compute_dtype)
launch fp8_to_fp32 grid(ceil_div(m * hidden_size, 1024)) block(256) args(xq32, x, i64(m * hidden_size))
launch mul_rows grid(ceil_div(m * hidden_size, 1024)) block(256) args(dqx, xq32, scale_x, i64(m * hidden_size))
launch fp8_to_fp32 grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256) args(wq32, up_proj_weight, i64(hidden_size * intermediate_size))
launch mul_tblocks grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256)
  args(dqw, wq32, scale_up, u32(hidden_size / 128), u32(intermediate_size), i64(hidden_size * intermediate_size))
matmul c(up) a(dqx) b(dqw) m(m) n(intermediate_size) k(hidden_size)
# (F.silu(gate_output) * up_output).to(torch.bfloat16)
launch silu_map grid(ceil_div(m * intermediate_size, 1024)) block(256) args(act, gate, i64(m * intermediate_size))
launch mul_map grid(ceil_div(m * intermediate_size, 1024)) block(256) args(prod, act, up, i64(m * intermediate_size))
launch to_bf16 grid(ceil_div(m * intermediate_size, 1024)) block(256) args(output, prod, i64(m * intermediate_size))
*/
