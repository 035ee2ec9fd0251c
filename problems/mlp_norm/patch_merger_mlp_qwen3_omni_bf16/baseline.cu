// The unfused baseline: one launch per eager PyTorch operation of the reconstructed reference (spec notes).
// LayerNorm as the original writes it out (fp32 compute dtype, one op per launch, one rounding to bf16);
// the merge as eager runs it: per grid, view + permute + reshape is one copy kernel, then torch.cat; each
// F.linear is a cuBLAS matmul step into fp32 followed by the bias add that rounds once to bf16 (what the
// cuBLASLt bias epilogue of eager addmm computes; spec baseline_vs_eager_graph says what that costs).
#include "mkb_ops.cuh"

// hidden_wide = hidden.to(float32)
MKB_MAP(to_float, float, (const bf16 *v), f32(v[i]))
// mean = hidden_wide.mean(-1), var = hidden_wide.var(-1, unbiased=False): one block per patch row
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)
MKB_ROW_REDUCE(row_var, float, float, mkb_ops::sum_op, (const float *x, const float *mean),
               (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]), acc / cols)
// hidden_wide - mean (broadcast over columns)
MKB_MAP(sub_rows, float, (const float *x, const float *m, int cols), x[i] - m[i / cols])
// var + eps
MKB_MAP(add_eps, float, (const float *v, float eps), v[i] + eps)
// torch.rsqrt
MKB_MAP(rsqrt_map, float, (const float *v), rsqrtf(v[i]))
// (..) * rsqrt(..) (broadcast over columns)
MKB_MAP(mul_rows, float, (const float *x, const float *r, int cols), x[i] * r[i / cols])
// normed * ln_weight.to(f32), + ln_bias.to(f32) (broadcast over rows)
MKB_MAP(mul_cols, float, (const float *x, const float *w, int cols), x[i] * w[i % cols])
MKB_MAP(add_cols, float, (const float *x, const float *b, int cols), x[i] + b[i % cols])
// normed.to(bf16)
MKB_MAP(to_bf16, bf16, (const float *v), v[i])

// One grid's view(t, h/2, 2, w/2, 2, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, 4C), copied (eager's
// reshape of a permuted view) into rows moff .. of `out` [*, 4C]; grid_thw is read on the device.
extern "C" __global__ void merge_grid(bf16 *__restrict__ out, const bf16 *__restrict__ ln,
                                      const long long *__restrict__ thw, int g, int cols) {
  long long poff = 0;
  for (int q = 0; q < g; ++q) poff += thw[3 * q] * thw[3 * q + 1] * thw[3 * q + 2];
  const long long h = thw[3 * g + 1], w = thw[3 * g + 2], n = thw[3 * g] * h * w;
  const long long wide = 4LL * cols, total = n * cols;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    const long long mrow = e / wide, j = e % wide, k = j / cols, c = j % cols;
    const long long per_t = (h / 2) * (w / 2), tt = mrow / per_t, rem = mrow % per_t;
    const long long pi = 2 * (rem / (w / 2)) + k / 2, pj = 2 * (rem % (w / 2)) + k % 2;
    out[(poff / 4) * wide + e] = ln[(poff + tt * h * w + pi * w + pj) * cols + c];
  }
}
// torch.cat of the per-grid copies: one more copy
MKB_MAP(copy_bf16, bf16, (const bf16 *v), v[i])
// h = bf16(acc + bias): the bias add of a linear, broadcast over rows
MKB_MAP(add_bias, bf16, (const float *acc, const bf16 *bias, int cols), acc[i] + f32(bias[i % cols]))
// F.gelu, erf form
MKB_MAP(gelu, bf16, (const bf16 *h), mkb_gelu(f32(h[i])))

/* mkb:plan
scratch hw fp32[num_patches * hidden_size]
scratch t1 fp32[num_patches * hidden_size]
scratch mean fp32[num_patches]
scratch var fp32[num_patches]
scratch ve fp32[num_patches]
scratch rs fp32[num_patches]
scratch w32 fp32[hidden_size]
scratch b32 fp32[hidden_size]
scratch ln bf16[num_patches * hidden_size]
scratch chunks bf16[num_patches * hidden_size]
scratch merged bf16[num_patches * hidden_size]
scratch acc1 fp32[num_patches / 4 * hidden_size_expanded]
scratch h bf16[num_patches / 4 * hidden_size_expanded]
scratch g bf16[num_patches / 4 * hidden_size_expanded]
scratch acc2 fp32[num_patches / 4 * out_hidden_size]
launch to_float grid(ceil_div(num_patches * hidden_size, 1024)) block(256) args(hw, hidden, i64(num_patches * hidden_size))
launch row_mean grid(num_patches) block(256) args(mean, hw, i32(hidden_size))
launch row_var grid(num_patches) block(256) args(var, hw, mean, i32(hidden_size))
launch sub_rows grid(ceil_div(num_patches * hidden_size, 1024)) block(256) args(t1, hw, mean, i32(hidden_size), i64(num_patches * hidden_size))
launch add_eps grid(ceil_div(num_patches, 1024)) block(256) args(ve, var, f32(eps), i64(num_patches))
launch rsqrt_map grid(ceil_div(num_patches, 1024)) block(256) args(rs, ve, i64(num_patches))
launch mul_rows grid(ceil_div(num_patches * hidden_size, 1024)) block(256) args(hw, t1, rs, i32(hidden_size), i64(num_patches * hidden_size))
launch to_float grid(ceil_div(hidden_size, 1024)) block(256) args(w32, ln_weight, i64(hidden_size))
launch mul_cols grid(ceil_div(num_patches * hidden_size, 1024)) block(256) args(t1, hw, w32, i32(hidden_size), i64(num_patches * hidden_size))
launch to_float grid(ceil_div(hidden_size, 1024)) block(256) args(b32, ln_bias, i64(hidden_size))
launch add_cols grid(ceil_div(num_patches * hidden_size, 1024)) block(256) args(hw, t1, b32, i32(hidden_size), i64(num_patches * hidden_size))
launch to_bf16 grid(ceil_div(num_patches * hidden_size, 1024)) block(256) args(ln, hw, i64(num_patches * hidden_size))
# the merge: one copy per grid (num_grids = 8), then the cat
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(0), i32(hidden_size))
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(1), i32(hidden_size))
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(2), i32(hidden_size))
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(3), i32(hidden_size))
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(4), i32(hidden_size))
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(5), i32(hidden_size))
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(6), i32(hidden_size))
launch merge_grid grid(ceil_div(num_patches * hidden_size, 256 * num_grids)) block(256) args(chunks, ln, grid_thw, i32(7), i32(hidden_size))
launch copy_bf16 grid(ceil_div(num_patches * hidden_size, 1024)) block(256) args(merged, chunks, i64(num_patches * hidden_size))
matmul c(acc1) a(merged) b(fc1_weight) m(num_patches / 4) n(hidden_size_expanded) k(hidden_size_expanded) transpose_b
launch add_bias grid(ceil_div(num_patches / 4 * hidden_size_expanded, 1024)) block(256) args(h, acc1, fc1_bias, i32(hidden_size_expanded), i64(num_patches / 4 * hidden_size_expanded))
launch gelu grid(ceil_div(num_patches / 4 * hidden_size_expanded, 1024)) block(256) args(g, h, i64(num_patches / 4 * hidden_size_expanded))
matmul c(acc2) a(g) b(fc2_weight) m(num_patches / 4) n(out_hidden_size) k(hidden_size_expanded) transpose_b
launch add_bias grid(ceil_div(num_patches / 4 * out_hidden_size, 1024)) block(256) args(output, acc2, fc2_bias, i32(out_hidden_size), i64(num_patches / 4 * out_hidden_size))
*/
