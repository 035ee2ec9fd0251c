// The unfused baseline: the eager PyTorch sequence, one launch per operation. F.layer_norm is one eager
// kernel; no mkb_ops block computes a row's mean and variance and then normalizes it in one launch, so it
// is a bespoke kernel (one block per patch row, fp32 statistics, one rounding to bf16). Each F.linear is a
// cuBLAS matmul step into fp32 followed by the bias add that rounds once to bf16, which is what eager
// addmm's bias epilogue computes.
#include "mkb_ops.cuh"

// n = layer_norm(x) * weight + bias, rounded once to bf16; fp32 statistics (biased variance).
extern "C" __global__ void layer_norm_rows(const bf16 *__restrict__ x, const bf16 *__restrict__ weight,
                                           const bf16 *__restrict__ bias, bf16 *__restrict__ y, float eps,
                                           int cols) {
  const bf16 *row = x + (long long)blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += f32(row[c]);
  const float mean = mkb_ops::block_reduce<mkb_ops::sum_op>(sum) / cols;
  float sq = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = f32(row[c]) - mean;
    sq += d * d;
  }
  const float rstd = rsqrtf(mkb_ops::block_reduce<mkb_ops::sum_op>(sq) / cols + eps);
  bf16 *out = y + (long long)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[c] = mkb_ops::store<bf16>((f32(row[c]) - mean) * rstd * f32(weight[c]) + f32(bias[c]));
}

// h = bf16(acc + bias): the bias add of a linear, broadcast over rows
MKB_MAP(add_bias, bf16, (const float *acc, const bf16 *bias, int cols), acc[i] + f32(bias[i % cols]))
// g = gelu(h), erf form
MKB_MAP(gelu, bf16, (const bf16 *h), mkb_gelu(f32(h[i])))

/* mkb:plan
scratch xn bf16[merged * merged_hidden]
scratch acc1 fp32[merged * merged_hidden]
scratch h bf16[merged * merged_hidden]
scratch g bf16[merged * merged_hidden]
scratch acc2 fp32[merged * out_hidden]
launch layer_norm_rows grid(merged * 4) block(256) args(x, ln_weight, ln_bias, xn, f32(eps), i32(hidden))
matmul c(acc1) a(xn) b(fc1_weight) m(merged) n(merged_hidden) k(merged_hidden) transpose_b
launch add_bias grid(ceil_div(merged * merged_hidden, 256)) block(256)
  args(h, acc1, fc1_bias, i32(merged_hidden), i64(merged * merged_hidden))
launch gelu grid(ceil_div(merged * merged_hidden, 256)) block(256) args(g, h, i64(merged * merged_hidden))
matmul c(acc2) a(g) b(fc2_weight) m(merged) n(out_hidden) k(merged_hidden) transpose_b
launch add_bias grid(ceil_div(merged * out_hidden, 256)) block(256)
  args(out, acc2, fc2_bias, i32(out_hidden), i64(merged * out_hidden))
*/
