// The eager baseline: one launch per operation of the reconstructed reference as eager PyTorch runs it
// (eager.py is that computation): three projections, each converting and quantizing x and its weight
// anew as the original's helper does, the fp32 products as cuBLAS matmul steps (no TF32), the bias,
// the bf16 cast; then the RMSNorm of q and k op by op. The returned tensors are transposed views in
// eager; here the last operation of each output writes its [b, h, s, d] layout (no extra launch).
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

// Element i of a [batch, heads, seq, 128] tensor read from its [batch * seq, heads * 128] source.
__device__ __forceinline__ unsigned bhsd_source(long long i, unsigned heads, unsigned seq) {
  const unsigned u = (unsigned)i, d = u % 128u, s = (u / 128u) % seq, h = (u / 128u / seq) % heads, b = u / 128u / seq / heads;
  return ((b * seq + s) * heads + h) * 128u + d;
}

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
// .to(x.dtype)
MKB_MAP(to_bf16, bf16, (const float *y), y[i])
// .to(x.dtype) of the v projection, written as the [b, h, s, d] layout of the returned view
MKB_MAP(to_bf16_bhsd, bf16, (const float *y, unsigned heads, unsigned seq), y[bhsd_source(i, heads, seq)])
// RMSNorm: x.pow(2)
MKB_MAP(square, float, (const float *x), x[i] * x[i])
// .mean(dim=-1, keepdim=True) over each head's 128 values
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *q), q[r * cols + c], acc / cols)
// variance + eps
MKB_MAP(add_scalar, float, (const float *v, float e), v[i] + e)
// torch.rsqrt
MKB_MAP(rsqrt_map, float, (const float *v), rsqrtf(v[i]))
// x * rsqrt(...), broadcast over the head's 128 values
MKB_MAP(scale_rows, float, (const float *x, const float *r), x[i] * r[(unsigned)i / 128u])
// weight * x.to(input_dtype): a bf16 product, written as the [b, h, s, d] layout of the returned view
MKB_MAP(weight_mul_bhsd, bf16, (const bf16 *w, const bf16 *x, unsigned heads, unsigned seq),
        f32(w[(unsigned)i % 128u]) * f32(x[bhsd_source(i, heads, seq)]))

/* mkb:plan
scratch x32 fp32[batch_size * seq_len * hidden_size]
scratch xabs fp32[batch_size * seq_len * hidden_size]
scratch xmax3 fp32[batch_size * seq_len * hidden_size / 128]
scratch xmax1 fp32[batch_size * seq_len * hidden_size / 128]
scratch sx fp32[batch_size * seq_len * hidden_size / 128]
scratch xdiv fp32[batch_size * seq_len * hidden_size]
scratch xclamp fp32[batch_size * seq_len * hidden_size]
scratch qx uint8[batch_size * seq_len * hidden_size]
scratch w32 fp32[q_size * hidden_size]
scratch wt fp32[q_size * hidden_size]
scratch wabs fp32[q_size * hidden_size]
scratch wmax3 fp32[q_size * hidden_size / 128]
scratch wmax1 fp32[q_size * hidden_size / 16384]
scratch sw fp32[q_size * hidden_size / 16384]
scratch wdiv fp32[q_size * hidden_size]
scratch wclamp fp32[q_size * hidden_size]
scratch qw uint8[q_size * hidden_size]
scratch swt fp32[q_size * hidden_size / 16384]
scratch xq32 fp32[batch_size * seq_len * hidden_size]
scratch dqa fp32[batch_size * seq_len * hidden_size]
scratch wq32 fp32[q_size * hidden_size]
scratch dqb fp32[q_size * hidden_size]
scratch y fp32[batch_size * seq_len * q_size]
scratch yb fp32[batch_size * seq_len * q_size]
scratch yq bf16[batch_size * seq_len * q_size]
scratch yk bf16[batch_size * seq_len * kv_size]
scratch n32 fp32[batch_size * seq_len * q_size]
scratch nsq fp32[batch_size * seq_len * q_size]
scratch nvar fp32[batch_size * seq_len * num_attention_heads]
scratch nve fp32[batch_size * seq_len * num_attention_heads]
scratch nrstd fp32[batch_size * seq_len * num_attention_heads]
scratch nx fp32[batch_size * seq_len * q_size]
scratch nxb bf16[batch_size * seq_len * q_size]
# q = _project(x, q_weight, q_bias): x.to(compute_dtype), q_weight.to(compute_dtype)
launch to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x32, hidden_states, i64(batch_size * seq_len * hidden_size))
launch to_fp32 grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(w32, q_weight, i64(q_size * hidden_size))
# activation quantizer, 1 x 128 blocks of x [T, K]
launch abs_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xabs, x32, i64(batch_size * seq_len * hidden_size))
launch amax_inner grid(batch_size * seq_len * hidden_size / 128) block(128) args(xmax3, xabs, i32(128))
launch copy_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(xmax1, xmax3, i64(batch_size * seq_len * hidden_size / 128))
launch mul_scalar grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(sx, xmax1, f32(1.0 / 448), i64(batch_size * seq_len * hidden_size / 128))
launch div_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xdiv, x32, sx, i64(batch_size * seq_len * hidden_size))
launch clamp_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xclamp, xdiv, f32(-448), f32(448), i64(batch_size * seq_len * hidden_size))
launch to_fp8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(qx, xclamp, i64(batch_size * seq_len * hidden_size))
# weight quantizer, 128 x 128 blocks of weight_t = w.T [K, N] (the reshape copies the transposed view)
launch transpose_f32 grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(wt, w32, u32(q_size), u32(hidden_size), i64(q_size * hidden_size))
launch abs_map grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(wabs, wt, i64(q_size * hidden_size))
launch amax_inner grid(q_size * hidden_size / 128) block(128) args(wmax3, wabs, i32(128))
launch amax_rows grid(ceil_div(q_size / 128, 32), hidden_size / 128) block(32, 8) args(wmax1, wmax3, i32(128), i32(q_size / 128))
launch mul_scalar grid(1) block(256) args(sw, wmax1, f32(1.0 / 448), i64(q_size * hidden_size / 16384))
launch div_blocks grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(wdiv, wt, sw, u32(q_size), i64(q_size * hidden_size))
launch clamp_map grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(wclamp, wdiv, f32(-448), f32(448), i64(q_size * hidden_size))
launch to_fp8 grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(qw, wclamp, i64(q_size * hidden_size))
launch transpose_f32 grid(1) block(256) args(swt, sw, u32(hidden_size / 128), u32(q_size / 128), i64(q_size * hidden_size / 16384))
# _scaled_mm: dequantize both operands in fp32, multiply, add the bias; .to(x.dtype)
launch fp8_to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xq32, qx, i64(batch_size * seq_len * hidden_size))
launch mul_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dqa, xq32, sx, i64(batch_size * seq_len * hidden_size))
launch fp8_to_fp32 grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(wq32, qw, i64(q_size * hidden_size))
launch mul_tblocks grid(ceil_div(q_size * hidden_size, 1024)) block(256) args(dqb, wq32, swt, u32(hidden_size / 128), u32(q_size), i64(q_size * hidden_size))
matmul c(y) a(dqa) b(dqb) m(batch_size * seq_len) n(q_size) k(hidden_size)
launch add_bias grid(ceil_div(batch_size * seq_len * q_size, 1024)) block(256) args(yb, y, q_bias, u32(q_size), i64(batch_size * seq_len * q_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * q_size, 1024)) block(256) args(yq, yb, i64(batch_size * seq_len * q_size))
# k = _project(x, k_weight, k_bias): x.to(compute_dtype), k_weight.to(compute_dtype)
launch to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x32, hidden_states, i64(batch_size * seq_len * hidden_size))
launch to_fp32 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(w32, k_weight, i64(kv_size * hidden_size))
# activation quantizer, 1 x 128 blocks of x [T, K]
launch abs_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xabs, x32, i64(batch_size * seq_len * hidden_size))
launch amax_inner grid(batch_size * seq_len * hidden_size / 128) block(128) args(xmax3, xabs, i32(128))
launch copy_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(xmax1, xmax3, i64(batch_size * seq_len * hidden_size / 128))
launch mul_scalar grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(sx, xmax1, f32(1.0 / 448), i64(batch_size * seq_len * hidden_size / 128))
launch div_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xdiv, x32, sx, i64(batch_size * seq_len * hidden_size))
launch clamp_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xclamp, xdiv, f32(-448), f32(448), i64(batch_size * seq_len * hidden_size))
launch to_fp8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(qx, xclamp, i64(batch_size * seq_len * hidden_size))
# weight quantizer, 128 x 128 blocks of weight_t = w.T [K, N] (the reshape copies the transposed view)
launch transpose_f32 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wt, w32, u32(kv_size), u32(hidden_size), i64(kv_size * hidden_size))
launch abs_map grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wabs, wt, i64(kv_size * hidden_size))
launch amax_inner grid(kv_size * hidden_size / 128) block(128) args(wmax3, wabs, i32(128))
launch amax_rows grid(ceil_div(kv_size / 128, 32), hidden_size / 128) block(32, 8) args(wmax1, wmax3, i32(128), i32(kv_size / 128))
launch mul_scalar grid(1) block(256) args(sw, wmax1, f32(1.0 / 448), i64(kv_size * hidden_size / 16384))
launch div_blocks grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wdiv, wt, sw, u32(kv_size), i64(kv_size * hidden_size))
launch clamp_map grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wclamp, wdiv, f32(-448), f32(448), i64(kv_size * hidden_size))
launch to_fp8 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(qw, wclamp, i64(kv_size * hidden_size))
launch transpose_f32 grid(1) block(256) args(swt, sw, u32(hidden_size / 128), u32(kv_size / 128), i64(kv_size * hidden_size / 16384))
# _scaled_mm: dequantize both operands in fp32, multiply, add the bias; .to(x.dtype)
launch fp8_to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xq32, qx, i64(batch_size * seq_len * hidden_size))
launch mul_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dqa, xq32, sx, i64(batch_size * seq_len * hidden_size))
launch fp8_to_fp32 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wq32, qw, i64(kv_size * hidden_size))
launch mul_tblocks grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(dqb, wq32, swt, u32(hidden_size / 128), u32(kv_size), i64(kv_size * hidden_size))
matmul c(y) a(dqa) b(dqb) m(batch_size * seq_len) n(kv_size) k(hidden_size)
launch add_bias grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(yb, y, k_bias, u32(kv_size), i64(batch_size * seq_len * kv_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(yk, yb, i64(batch_size * seq_len * kv_size))
# v = _project(x, v_weight, v_bias): x.to(compute_dtype), v_weight.to(compute_dtype)
launch to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x32, hidden_states, i64(batch_size * seq_len * hidden_size))
launch to_fp32 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(w32, v_weight, i64(kv_size * hidden_size))
# activation quantizer, 1 x 128 blocks of x [T, K]
launch abs_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xabs, x32, i64(batch_size * seq_len * hidden_size))
launch amax_inner grid(batch_size * seq_len * hidden_size / 128) block(128) args(xmax3, xabs, i32(128))
launch copy_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(xmax1, xmax3, i64(batch_size * seq_len * hidden_size / 128))
launch mul_scalar grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(sx, xmax1, f32(1.0 / 448), i64(batch_size * seq_len * hidden_size / 128))
launch div_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xdiv, x32, sx, i64(batch_size * seq_len * hidden_size))
launch clamp_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xclamp, xdiv, f32(-448), f32(448), i64(batch_size * seq_len * hidden_size))
launch to_fp8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(qx, xclamp, i64(batch_size * seq_len * hidden_size))
# weight quantizer, 128 x 128 blocks of weight_t = w.T [K, N] (the reshape copies the transposed view)
launch transpose_f32 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wt, w32, u32(kv_size), u32(hidden_size), i64(kv_size * hidden_size))
launch abs_map grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wabs, wt, i64(kv_size * hidden_size))
launch amax_inner grid(kv_size * hidden_size / 128) block(128) args(wmax3, wabs, i32(128))
launch amax_rows grid(ceil_div(kv_size / 128, 32), hidden_size / 128) block(32, 8) args(wmax1, wmax3, i32(128), i32(kv_size / 128))
launch mul_scalar grid(1) block(256) args(sw, wmax1, f32(1.0 / 448), i64(kv_size * hidden_size / 16384))
launch div_blocks grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wdiv, wt, sw, u32(kv_size), i64(kv_size * hidden_size))
launch clamp_map grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wclamp, wdiv, f32(-448), f32(448), i64(kv_size * hidden_size))
launch to_fp8 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(qw, wclamp, i64(kv_size * hidden_size))
launch transpose_f32 grid(1) block(256) args(swt, sw, u32(hidden_size / 128), u32(kv_size / 128), i64(kv_size * hidden_size / 16384))
# _scaled_mm: dequantize both operands in fp32, multiply, add the bias; .to(x.dtype)
launch fp8_to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xq32, qx, i64(batch_size * seq_len * hidden_size))
launch mul_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dqa, xq32, sx, i64(batch_size * seq_len * hidden_size))
launch fp8_to_fp32 grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(wq32, qw, i64(kv_size * hidden_size))
launch mul_tblocks grid(ceil_div(kv_size * hidden_size, 1024)) block(256) args(dqb, wq32, swt, u32(hidden_size / 128), u32(kv_size), i64(kv_size * hidden_size))
matmul c(y) a(dqa) b(dqb) m(batch_size * seq_len) n(kv_size) k(hidden_size)
launch add_bias grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(yb, y, v_bias, u32(kv_size), i64(batch_size * seq_len * kv_size))
launch to_bf16_bhsd grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(v, yb, u32(num_key_value_heads), u32(seq_len), i64(batch_size * seq_len * kv_size))
# q = _rms_norm(q.view(b, s, heads, 128), q_norm_weight, eps, compute_dtype).transpose(1, 2)
launch to_fp32 grid(ceil_div(batch_size * seq_len * q_size, 1024)) block(256) args(n32, yq, i64(batch_size * seq_len * q_size))
launch square grid(ceil_div(batch_size * seq_len * q_size, 1024)) block(256) args(nsq, n32, i64(batch_size * seq_len * q_size))
launch row_mean grid(batch_size * seq_len * num_attention_heads) block(128) args(nvar, nsq, i32(128))
launch add_scalar grid(ceil_div(batch_size * seq_len * num_attention_heads, 1024)) block(256) args(nve, nvar, f32(eps), i64(batch_size * seq_len * num_attention_heads))
launch rsqrt_map grid(ceil_div(batch_size * seq_len * num_attention_heads, 1024)) block(256) args(nrstd, nve, i64(batch_size * seq_len * num_attention_heads))
launch scale_rows grid(ceil_div(batch_size * seq_len * q_size, 1024)) block(256) args(nx, n32, nrstd, i64(batch_size * seq_len * q_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * q_size, 1024)) block(256) args(nxb, nx, i64(batch_size * seq_len * q_size))
launch weight_mul_bhsd grid(ceil_div(batch_size * seq_len * q_size, 1024)) block(256) args(q, q_norm_weight, nxb, u32(num_attention_heads), u32(seq_len), i64(batch_size * seq_len * q_size))
# k = _rms_norm(k.view(b, s, heads, 128), k_norm_weight, eps, compute_dtype).transpose(1, 2)
launch to_fp32 grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(n32, yk, i64(batch_size * seq_len * kv_size))
launch square grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(nsq, n32, i64(batch_size * seq_len * kv_size))
launch row_mean grid(batch_size * seq_len * num_key_value_heads) block(128) args(nvar, nsq, i32(128))
launch add_scalar grid(ceil_div(batch_size * seq_len * num_key_value_heads, 1024)) block(256) args(nve, nvar, f32(eps), i64(batch_size * seq_len * num_key_value_heads))
launch rsqrt_map grid(ceil_div(batch_size * seq_len * num_key_value_heads, 1024)) block(256) args(nrstd, nve, i64(batch_size * seq_len * num_key_value_heads))
launch scale_rows grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(nx, n32, nrstd, i64(batch_size * seq_len * kv_size))
launch to_bf16 grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(nxb, nx, i64(batch_size * seq_len * kv_size))
launch weight_mul_bhsd grid(ceil_div(batch_size * seq_len * kv_size, 1024)) block(256) args(k, k_norm_weight, nxb, u32(num_key_value_heads), u32(seq_len), i64(batch_size * seq_len * kv_size))
*/
