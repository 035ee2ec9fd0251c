// The eager baseline: one launch per operation of the reconstructed reference as eager PyTorch runs it
// (eager.py is that computation): the casts and both quantizers op by op, the kv_a product as an fp32
// cuBLAS matmul step (no TF32), its bf16 cast (which also writes the k_pe output: in eager k_pe is a
// view of that tensor), the latent's RMSNorm op by op, the re-quantization, the kv_b product (a matmul
// step) and its bf16 cast (kv_expanded is a view of it). Index decompositions are 32-bit (every tensor
// has fewer than 2^31 elements), as eager's are.
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
// .to(x.dtype)
MKB_MAP(to_bf16, bf16, (const float *y), y[i])
// compressed_kv_with_rope.to(hidden_states.dtype) [T, 640]; its columns 512..575 are also written to
// the k_pe output (k_pe is a view of this tensor in eager: here its own buffer, written by the same launch)
extern "C" __global__ void to_bf16_with_k_pe(bf16 *__restrict__ out, bf16 *__restrict__ k_pe, const float *__restrict__ y,
                                             unsigned cols, unsigned offset, unsigned rope, long long n) {
  for (long long base = (long long)blockIdx.x * blockDim.x * 4; base < n; base += (long long)gridDim.x * blockDim.x * 4) {
    bf16 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      if (i < n) v[k] = __float2bfloat16_rn(y[i]);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      if (i < n) {
        out[i] = v[k];
        const unsigned c = (unsigned)i % cols;
        if (c >= offset && c < offset + rope) k_pe[((unsigned)i / cols) * rope + c - offset] = v[k];
      }
    }
  }
}
// compressed_kv.to(compute_dtype): the strided view [:, :512] of the [T, 640] tensor, made contiguous
MKB_MAP(slice_to_fp32, float, (const bf16 *c, unsigned width, unsigned cols), f32(c[((unsigned)i / cols) * width + (unsigned)i % cols]))
// RMSNorm: x.pow(2)
MKB_MAP(square, float, (const float *x), x[i] * x[i])
// .mean(-1, keepdim=True) over the latent's 512 values
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *q), q[r * cols + c], acc / cols)
// variance + eps
MKB_MAP(add_scalar, float, (const float *v, float e), v[i] + e)
// torch.rsqrt
MKB_MAP(rsqrt_map, float, (const float *v), rsqrtf(v[i]))
// x * rsqrt(...), broadcast over the row
MKB_MAP(scale_rows_n, float, (const float *x, const float *r, unsigned cols), x[i] * r[(unsigned)i / cols])
// kv_a_layernorm_weight * x.to(hidden_states.dtype): a bf16 product
MKB_MAP(weight_mul, bf16, (const bf16 *w, const bf16 *x, unsigned cols), f32(w[(unsigned)i % cols]) * f32(x[i]))

/* mkb:plan
scratch x32 fp32[batch_size * seq_len * hidden_size]
scratch xabs fp32[batch_size * seq_len * hidden_size]
scratch xmax3 fp32[batch_size * seq_len * hidden_size / 128]
scratch xmax1 fp32[batch_size * seq_len * hidden_size / 128]
scratch sx fp32[batch_size * seq_len * hidden_size / 128]
scratch xdiv fp32[batch_size * seq_len * hidden_size]
scratch xclamp fp32[batch_size * seq_len * hidden_size]
scratch qx uint8[batch_size * seq_len * hidden_size]
scratch xq32 fp32[batch_size * seq_len * hidden_size]
scratch dqx fp32[batch_size * seq_len * hidden_size]
scratch wa32 fp32[kv_a_output_dim_padded * hidden_size]
scratch wat fp32[kv_a_output_dim_padded * hidden_size]
scratch waabs fp32[kv_a_output_dim_padded * hidden_size]
scratch wamax3 fp32[kv_a_output_dim_padded * hidden_size / 128]
scratch wamax1 fp32[kv_a_output_dim_padded * hidden_size / 16384]
scratch swa fp32[kv_a_output_dim_padded * hidden_size / 16384]
scratch wadiv fp32[kv_a_output_dim_padded * hidden_size]
scratch waclamp fp32[kv_a_output_dim_padded * hidden_size]
scratch qwa uint8[kv_a_output_dim_padded * hidden_size]
scratch swat fp32[kv_a_output_dim_padded * hidden_size / 16384]
scratch waq32 fp32[kv_a_output_dim_padded * hidden_size]
scratch dqwa fp32[kv_a_output_dim_padded * hidden_size]
scratch ya fp32[batch_size * seq_len * kv_a_output_dim_padded]
scratch ckr bf16[batch_size * seq_len * kv_a_output_dim_padded]
scratch c32 fp32[batch_size * seq_len * kv_lora_rank]
scratch csq fp32[batch_size * seq_len * kv_lora_rank]
scratch cvar fp32[batch_size * seq_len]
scratch cve fp32[batch_size * seq_len]
scratch crstd fp32[batch_size * seq_len]
scratch cn fp32[batch_size * seq_len * kv_lora_rank]
scratch cnb bf16[batch_size * seq_len * kv_lora_rank]
scratch lat bf16[batch_size * seq_len * kv_lora_rank]
scratch b32 fp32[batch_size * seq_len * kv_lora_rank]
scratch babs fp32[batch_size * seq_len * kv_lora_rank]
scratch bmax3 fp32[batch_size * seq_len * kv_lora_rank / 128]
scratch bmax1 fp32[batch_size * seq_len * kv_lora_rank / 128]
scratch sb fp32[batch_size * seq_len * kv_lora_rank / 128]
scratch bdiv fp32[batch_size * seq_len * kv_lora_rank]
scratch bclamp fp32[batch_size * seq_len * kv_lora_rank]
scratch qb uint8[batch_size * seq_len * kv_lora_rank]
scratch bq32 fp32[batch_size * seq_len * kv_lora_rank]
scratch dqbx fp32[batch_size * seq_len * kv_lora_rank]
scratch wb32 fp32[kv_b_output_dim * kv_lora_rank]
scratch wbt fp32[kv_b_output_dim * kv_lora_rank]
scratch wbabs fp32[kv_b_output_dim * kv_lora_rank]
scratch wbmax3 fp32[kv_b_output_dim * kv_lora_rank / 128]
scratch wbmax1 fp32[kv_b_output_dim * kv_lora_rank / 16384]
scratch swb fp32[kv_b_output_dim * kv_lora_rank / 16384]
scratch wbdiv fp32[kv_b_output_dim * kv_lora_rank]
scratch wbclamp fp32[kv_b_output_dim * kv_lora_rank]
scratch qwb uint8[kv_b_output_dim * kv_lora_rank]
scratch swbt fp32[kv_b_output_dim * kv_lora_rank / 16384]
scratch wbq32 fp32[kv_b_output_dim * kv_lora_rank]
scratch dqwb fp32[kv_b_output_dim * kv_lora_rank]
scratch yb fp32[batch_size * seq_len * kv_b_output_dim]
# x = hidden_states.reshape(-1, hidden).to(compute_dtype); w_a_t = kv_a_proj_weight.to(compute_dtype).T
launch to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x32, hidden_states, i64(batch_size * seq_len * hidden_size))
launch to_fp32 grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(wa32, kv_a_proj_weight, i64(kv_a_output_dim_padded * hidden_size))
# activation quantizer, 1 x 128 blocks of x [T, 7168]
launch abs_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xabs, x32, i64(batch_size * seq_len * hidden_size))
launch amax_inner grid(batch_size * seq_len * hidden_size / 128) block(128) args(xmax3, xabs, i32(128))
launch copy_f32 grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(xmax1, xmax3, i64(batch_size * seq_len * hidden_size / 128))
launch mul_scalar grid(ceil_div(batch_size * seq_len * hidden_size / 128, 1024)) block(256) args(sx, xmax1, f32(1.0 / 448), i64(batch_size * seq_len * hidden_size / 128))
launch div_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xdiv, x32, sx, i64(batch_size * seq_len * hidden_size))
launch clamp_map grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xclamp, xdiv, f32(-448), f32(448), i64(batch_size * seq_len * hidden_size))
launch to_fp8 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(qx, xclamp, i64(batch_size * seq_len * hidden_size))
# weight quantizer, 128 x 128 blocks of kv_a_proj_weight.T [K, N] (the reshape copies the transposed view)
launch transpose_f32 grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(wat, wa32, u32(kv_a_output_dim_padded), u32(hidden_size), i64(kv_a_output_dim_padded * hidden_size))
launch abs_map grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(waabs, wat, i64(kv_a_output_dim_padded * hidden_size))
launch amax_inner grid(kv_a_output_dim_padded * hidden_size / 128) block(128) args(wamax3, waabs, i32(128))
launch amax_rows grid(ceil_div(kv_a_output_dim_padded / 128, 32), hidden_size / 128) block(32, 8) args(wamax1, wamax3, i32(128), i32(kv_a_output_dim_padded / 128))
launch mul_scalar grid(ceil_div(kv_a_output_dim_padded * hidden_size / 16384, 1024)) block(256) args(swa, wamax1, f32(1.0 / 448), i64(kv_a_output_dim_padded * hidden_size / 16384))
launch div_blocks grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(wadiv, wat, swa, u32(kv_a_output_dim_padded), i64(kv_a_output_dim_padded * hidden_size))
launch clamp_map grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(waclamp, wadiv, f32(-448), f32(448), i64(kv_a_output_dim_padded * hidden_size))
launch to_fp8 grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(qwa, waclamp, i64(kv_a_output_dim_padded * hidden_size))
launch transpose_f32 grid(ceil_div(kv_a_output_dim_padded * hidden_size / 16384, 1024)) block(256) args(swat, swa, u32(hidden_size / 128), u32(kv_a_output_dim_padded / 128), i64(kv_a_output_dim_padded * hidden_size / 16384))
# compressed_kv_with_rope = _scaled_mm(...).to(hidden_states.dtype)
launch fp8_to_fp32 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(xq32, qx, i64(batch_size * seq_len * hidden_size))
launch mul_rows grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(dqx, xq32, sx, i64(batch_size * seq_len * hidden_size))
launch fp8_to_fp32 grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(waq32, qwa, i64(kv_a_output_dim_padded * hidden_size))
launch mul_tblocks grid(ceil_div(kv_a_output_dim_padded * hidden_size, 1024)) block(256) args(dqwa, waq32, swat, u32(hidden_size / 128), u32(kv_a_output_dim_padded), i64(kv_a_output_dim_padded * hidden_size))
matmul c(ya) a(dqx) b(dqwa) m(batch_size * seq_len) n(kv_a_output_dim_padded) k(hidden_size)
launch to_bf16_with_k_pe grid(ceil_div(batch_size * seq_len * kv_a_output_dim_padded, 1024)) block(256) args(ckr, k_pe, ya, u32(kv_a_output_dim_padded), u32(kv_lora_rank), u32(qk_rope_head_dim), i64(batch_size * seq_len * kv_a_output_dim_padded))
# RMSNorm of compressed_kv = compressed_kv_with_rope[:, :kv_lora_rank]
launch slice_to_fp32 grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(c32, ckr, u32(kv_a_output_dim_padded), u32(kv_lora_rank), i64(batch_size * seq_len * kv_lora_rank))
launch square grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(csq, c32, i64(batch_size * seq_len * kv_lora_rank))
launch row_mean grid(batch_size * seq_len) block(256) args(cvar, csq, i32(kv_lora_rank))
launch add_scalar grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(cve, cvar, f32(eps), i64(batch_size * seq_len))
launch rsqrt_map grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(crstd, cve, i64(batch_size * seq_len))
launch scale_rows_n grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(cn, c32, crstd, u32(kv_lora_rank), i64(batch_size * seq_len * kv_lora_rank))
launch to_bf16 grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(cnb, cn, i64(batch_size * seq_len * kv_lora_rank))
launch weight_mul grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(lat, kv_a_layernorm_weight, cnb, u32(kv_lora_rank), i64(batch_size * seq_len * kv_lora_rank))
# re-quantization: x_b = normalized.to(compute_dtype); w_b_t = kv_b_proj_weight.to(compute_dtype).T
launch to_fp32 grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(b32, lat, i64(batch_size * seq_len * kv_lora_rank))
launch to_fp32 grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(wb32, kv_b_proj_weight, i64(kv_b_output_dim * kv_lora_rank))
# activation quantizer, 1 x 128 blocks of the normalized latent [T, 512]
launch abs_map grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(babs, b32, i64(batch_size * seq_len * kv_lora_rank))
launch amax_inner grid(batch_size * seq_len * kv_lora_rank / 128) block(128) args(bmax3, babs, i32(128))
launch copy_f32 grid(ceil_div(batch_size * seq_len * kv_lora_rank / 128, 1024)) block(256) args(bmax1, bmax3, i64(batch_size * seq_len * kv_lora_rank / 128))
launch mul_scalar grid(ceil_div(batch_size * seq_len * kv_lora_rank / 128, 1024)) block(256) args(sb, bmax1, f32(1.0 / 448), i64(batch_size * seq_len * kv_lora_rank / 128))
launch div_rows grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(bdiv, b32, sb, i64(batch_size * seq_len * kv_lora_rank))
launch clamp_map grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(bclamp, bdiv, f32(-448), f32(448), i64(batch_size * seq_len * kv_lora_rank))
launch to_fp8 grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(qb, bclamp, i64(batch_size * seq_len * kv_lora_rank))
# weight quantizer, 128 x 128 blocks of kv_b_proj_weight.T [K, N] (the reshape copies the transposed view)
launch transpose_f32 grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(wbt, wb32, u32(kv_b_output_dim), u32(kv_lora_rank), i64(kv_b_output_dim * kv_lora_rank))
launch abs_map grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(wbabs, wbt, i64(kv_b_output_dim * kv_lora_rank))
launch amax_inner grid(kv_b_output_dim * kv_lora_rank / 128) block(128) args(wbmax3, wbabs, i32(128))
launch amax_rows grid(ceil_div(kv_b_output_dim / 128, 32), kv_lora_rank / 128) block(32, 8) args(wbmax1, wbmax3, i32(128), i32(kv_b_output_dim / 128))
launch mul_scalar grid(ceil_div(kv_b_output_dim * kv_lora_rank / 16384, 1024)) block(256) args(swb, wbmax1, f32(1.0 / 448), i64(kv_b_output_dim * kv_lora_rank / 16384))
launch div_blocks grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(wbdiv, wbt, swb, u32(kv_b_output_dim), i64(kv_b_output_dim * kv_lora_rank))
launch clamp_map grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(wbclamp, wbdiv, f32(-448), f32(448), i64(kv_b_output_dim * kv_lora_rank))
launch to_fp8 grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(qwb, wbclamp, i64(kv_b_output_dim * kv_lora_rank))
launch transpose_f32 grid(ceil_div(kv_b_output_dim * kv_lora_rank / 16384, 1024)) block(256) args(swbt, swb, u32(kv_lora_rank / 128), u32(kv_b_output_dim / 128), i64(kv_b_output_dim * kv_lora_rank / 16384))
# kv_expanded_flat = _scaled_mm(...).to(hidden_states.dtype); kv_expanded is its view
launch fp8_to_fp32 grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(bq32, qb, i64(batch_size * seq_len * kv_lora_rank))
launch mul_rows grid(ceil_div(batch_size * seq_len * kv_lora_rank, 1024)) block(256) args(dqbx, bq32, sb, i64(batch_size * seq_len * kv_lora_rank))
launch fp8_to_fp32 grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(wbq32, qwb, i64(kv_b_output_dim * kv_lora_rank))
launch mul_tblocks grid(ceil_div(kv_b_output_dim * kv_lora_rank, 1024)) block(256) args(dqwb, wbq32, swbt, u32(kv_lora_rank / 128), u32(kv_b_output_dim), i64(kv_b_output_dim * kv_lora_rank))
matmul c(yb) a(dqbx) b(dqwb) m(batch_size * seq_len) n(kv_b_output_dim) k(kv_lora_rank)
launch to_bf16 grid(ceil_div(batch_size * seq_len * kv_b_output_dim, 1024)) block(256) args(kv_expanded, yb, i64(batch_size * seq_len * kv_b_output_dim))
*/
