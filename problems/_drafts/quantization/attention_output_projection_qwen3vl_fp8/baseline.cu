// The eager baseline: one launch per operation of the reconstructed reference as eager PyTorch runs it
// (eager.py is that computation), every intermediate a tensor in memory at its eager dtype, the fp32
// matrix product a cuBLAS matmul step (no TF32, as eager under the original's reference_numerics).
// Index decompositions are 32-bit (every tensor here has fewer than 2^31 elements), as eager's are.
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

typedef __nv_fp8_e4m3 fp8;
__device__ __forceinline__ float f32(fp8 v) { return float(v); }
namespace mkb_ops {
// .to(torch.float8_e4m3fn): round to nearest even (the values are already clamped to +-448).
template <> struct store_as<fp8> {
  __device__ static fp8 from(float v) {
    fp8 r;
    r.__x = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    return r;
  }
};
} // namespace mkb_ops

// x.to(torch.float32)
MKB_MAP(to_fp32, float, (const bf16 *s), f32(s[i]))
// blocked.abs()
MKB_MAP(abs_map, float, (const float *x), fabsf(x[i]))
// .amax(dim=3): the innermost 128 elements of each block row
MKB_ROW_REDUCE(amax_inner, float, float, mkb_ops::max_op, (const float *a), a[r * cols + c], acc)
// .amax(dim=1) over a dimension of size 1 (1 x 128 blocks): a copy
MKB_MAP(copy_f32, float, (const float *a), a[i])
// .amax(dim=1) over the 128 rows of each 128 x 128 block: input [K/128, 128, N/128]
MKB_COL_REDUCE(amax_rows, float, float, mkb_ops::max_op, (const float *a), a[(b * rows + r) * cols + c], acc)
// amax / E4M3_MAX: a Python float divisor, a multiply by its fp32 reciprocal on the GPU
MKB_MAP(mul_scalar, float, (const float *a, float s), a[i] * s)
// blocked / scale[:, None, :, None] for 1 x 128 blocks
MKB_MAP(div_rows, float, (const float *x, const float *s), x[i] / s[(unsigned)i / 128u])
// blocked / scale[:, None, :, None] for 128 x 128 blocks of a [rows, cols] matrix
MKB_MAP(div_blocks, float, (const float *x, const float *s, unsigned cols),
        x[i] / s[((unsigned)i / cols / 128u) * (cols / 128u) + ((unsigned)i % cols) / 128u])
// .clamp(-E4M3_MAX, E4M3_MAX)
MKB_MAP(clamp_map, float, (const float *x, float lo, float hi), fminf(fmaxf(x[i], lo), hi))
// .to(torch.float8_e4m3fn)
MKB_MAP(to_fp8, fp8, (const float *x), x[i])
// q.to(compute_dtype)
MKB_MAP(fp8_to_fp32, float, (const fp8 *q), f32(q[i]))
// weight.T reshaped (a copy of the transposed view): out [cols, rows] from a [rows, cols] matrix
MKB_MAP(transpose_f32, float, (const float *a, unsigned rows, unsigned cols),
        a[((unsigned)i % rows) * cols + (unsigned)i / rows])
// dequantize 1 x 128 blocks: q * scale
MKB_MAP(mul_rows, float, (const float *q, const float *s), q[i] * s[(unsigned)i / 128u])
// dequantize the [K, N] weight operand, its scales given transposed [N/128, K/128]
MKB_MAP(mul_tblocks, float, (const float *q, const float *st, unsigned k_blocks, unsigned cols),
        q[i] * st[(((unsigned)i % cols) / 128u) * k_blocks + ((unsigned)i / cols) / 128u])
// y + bias
MKB_MAP(add_bias, float, (const float *y, const bf16 *b, unsigned cols), y[i] + f32(b[(unsigned)i % cols]))
// .to(attn_output.dtype)
MKB_MAP(to_bf16, bf16, (const float *y), y[i])

/* mkb:plan
scratch x32 fp32[num_tokens * input_dim]
scratch xabs fp32[num_tokens * input_dim]
scratch xmax3 fp32[num_tokens * input_dim / 128]
scratch xmax1 fp32[num_tokens * input_dim / 128]
scratch sx fp32[num_tokens * input_dim / 128]
scratch xdiv fp32[num_tokens * input_dim]
scratch xclamp fp32[num_tokens * input_dim]
scratch qx uint8[num_tokens * input_dim]
scratch w32 fp32[hidden_size * input_dim]
scratch wt fp32[hidden_size * input_dim]
scratch wabs fp32[hidden_size * input_dim]
scratch wmax3 fp32[hidden_size * input_dim / 128]
scratch wmax1 fp32[hidden_size * input_dim / 16384]
scratch sw fp32[hidden_size * input_dim / 16384]
scratch wdiv fp32[hidden_size * input_dim]
scratch wclamp fp32[hidden_size * input_dim]
scratch qw uint8[hidden_size * input_dim]
scratch swt fp32[hidden_size * input_dim / 16384]
scratch xq32 fp32[num_tokens * input_dim]
scratch dqa fp32[num_tokens * input_dim]
scratch wq32 fp32[hidden_size * input_dim]
scratch dqb fp32[hidden_size * input_dim]
scratch y fp32[num_tokens * hidden_size]
scratch yb fp32[num_tokens * hidden_size]
# x = attn_output.to(compute_dtype); w = o_proj_weight.to(compute_dtype)
launch to_fp32 grid(ceil_div(num_tokens * input_dim, 1024)) block(256) args(x32, attn_output, i64(num_tokens * input_dim))
launch to_fp32 grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(w32, o_proj_weight, i64(hidden_size * input_dim))
# activation quantizer, 1 x 128 blocks of x [T, K]
launch abs_map grid(ceil_div(num_tokens * input_dim, 1024)) block(256) args(xabs, x32, i64(num_tokens * input_dim))
launch amax_inner grid(num_tokens * input_dim / 128) block(128) args(xmax3, xabs, i32(128))
launch copy_f32 grid(ceil_div(num_tokens * input_dim / 128, 1024)) block(256) args(xmax1, xmax3, i64(num_tokens * input_dim / 128))
launch mul_scalar grid(ceil_div(num_tokens * input_dim / 128, 1024)) block(256) args(sx, xmax1, f32(1.0 / 448), i64(num_tokens * input_dim / 128))
launch div_rows grid(ceil_div(num_tokens * input_dim, 1024)) block(256) args(xdiv, x32, sx, i64(num_tokens * input_dim))
launch clamp_map grid(ceil_div(num_tokens * input_dim, 1024)) block(256) args(xclamp, xdiv, f32(-448), f32(448), i64(num_tokens * input_dim))
launch to_fp8 grid(ceil_div(num_tokens * input_dim, 1024)) block(256) args(qx, xclamp, i64(num_tokens * input_dim))
# weight quantizer, 128 x 128 blocks of weight_t = w.T [K, N] (the reshape copies the transposed view)
launch transpose_f32 grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(wt, w32, u32(hidden_size), u32(input_dim), i64(hidden_size * input_dim))
launch abs_map grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(wabs, wt, i64(hidden_size * input_dim))
launch amax_inner grid(hidden_size * input_dim / 128) block(128) args(wmax3, wabs, i32(128))
launch amax_rows grid(ceil_div(hidden_size / 128, 32), input_dim / 128) block(32, 8) args(wmax1, wmax3, i32(128), i32(hidden_size / 128))
launch mul_scalar grid(1) block(256) args(sw, wmax1, f32(1.0 / 448), i64(hidden_size * input_dim / 16384))
launch div_blocks grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(wdiv, wt, sw, u32(hidden_size), i64(hidden_size * input_dim))
launch clamp_map grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(wclamp, wdiv, f32(-448), f32(448), i64(hidden_size * input_dim))
launch to_fp8 grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(qw, wclamp, i64(hidden_size * input_dim))
# the weight scales passed transposed and contiguous, [N/128, K/128]
launch transpose_f32 grid(1) block(256) args(swt, sw, u32(input_dim / 128), u32(hidden_size / 128), i64(hidden_size * input_dim / 16384))
# _scaled_mm: dequantize both operands in fp32, multiply, add the bias
launch fp8_to_fp32 grid(ceil_div(num_tokens * input_dim, 1024)) block(256) args(xq32, qx, i64(num_tokens * input_dim))
launch mul_rows grid(ceil_div(num_tokens * input_dim, 1024)) block(256) args(dqa, xq32, sx, i64(num_tokens * input_dim))
launch fp8_to_fp32 grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(wq32, qw, i64(hidden_size * input_dim))
launch mul_tblocks grid(ceil_div(hidden_size * input_dim, 1024)) block(256) args(dqb, wq32, swt, u32(input_dim / 128), u32(hidden_size), i64(hidden_size * input_dim))
matmul c(y) a(dqa) b(dqb) m(num_tokens) n(hidden_size) k(input_dim)
launch add_bias grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(yb, y, o_proj_bias, u32(hidden_size), i64(num_tokens * hidden_size))
launch to_bf16 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(output, yb, i64(num_tokens * hidden_size))
*/
