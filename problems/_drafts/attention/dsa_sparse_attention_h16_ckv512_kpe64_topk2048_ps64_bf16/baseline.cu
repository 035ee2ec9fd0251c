// The eager baseline: the original's reference() as eager PyTorch runs it (it is already batched over
// the 62 tokens: no Python loop), one launch per eager operation at eager's dtypes, cuBLAS (matmul
// steps, fp32) for the three batched products. Every tensor below is named as in the reference.
#include "mkb_ops.cuh"

#define kInf (__int_as_float(0x7f800000))

// invalid_mask = sparse_indices == -1 (bool)
extern "C" __global__ void eq_minus_one(bool *__restrict__ out, const int *__restrict__ x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[i] == -1;
}
// safe_indices = sparse_indices.clone(); safe_indices[invalid_mask] = 0 (eager: index_put_ with a
// boolean mask, i.e. nonzero then a scatter of zeros; here one masked write)
extern "C" __global__ void copy_i32(int *__restrict__ out, const int *__restrict__ x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[i];
}
extern "C" __global__ void put_zero_masked(int *__restrict__ x, const bool *__restrict__ mask, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (mask[i]) x[i] = 0;
}
// safe_indices.long()
extern "C" __global__ void to_long(long long *__restrict__ out, const int *__restrict__ x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[i];
}
// Kc_all[idx], Kp_all[idx] (bf16 gathers), then .to(fp32)
MKB_MAP(gather_rows_512, bf16, (const bf16 *src, const long long *idx), f32(src[idx[i >> 9] * 512 + (i & 511)]))
MKB_MAP(gather_rows_64, bf16, (const bf16 *src, const long long *idx), f32(src[idx[i >> 6] * 64 + (i & 63)]))
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// logits = a + b; logits_scaled = logits * sm_scale; masked_fill_(invalid_mask.unsqueeze(1), -inf)
// (logits_scaled is [62, 16, 2048]; the mask [62, 1, 2048] is broadcast over the heads)
MKB_MAP(add_f32, float, (const float *a, const float *b), a[i] + b[i])
MKB_MAP(mul_scalar, float, (const float *a, float s), a[i] * s)
MKB_MAP(mask_heads, float, (const float *a, const bool *mask), mask[(i >> 15) * 2048 + (i & 2047)] ? -kInf : a[i])
// logsumexp (at::logsumexp): maxes = amax; maxes.masked_fill_(maxes.abs() == inf, 0);
// sum((x - maxes).exp_()).log_().add_(maxes); then / log(2)
MKB_ROW_REDUCE(row_amax, float, float, mkb_ops::max_op, (const float *x), x[r * cols + c], acc)
MKB_MAP(abs_f32, float, (const float *a), fabsf(a[i]))
extern "C" __global__ void eq_inf(bool *__restrict__ out, const float *__restrict__ a, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = a[i] == kInf;
}
MKB_MAP(masked_fill_zero, float, (const float *a, const bool *mask), mask[i] ? 0.0f : a[i])
MKB_MAP(sub_rows, float, (const float *x, const float *m), x[i] - m[i >> 11])
MKB_MAP(exp_f32, float, (const float *a), expf(a[i]))
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc)
MKB_MAP(log_f32, float, (const float *a), logf(a[i]))
MKB_MAP(div_scalar, float, (const float *a, float s), a[i] / s)
// attn = torch.softmax(logits_scaled, dim=-1): max, sum of exp(x - max), exp(x - max) / sum
extern "C" __global__ void row_softmax(float *__restrict__ out, const float *__restrict__ x, int cols) {
  const long long off = (long long)blockIdx.x * cols;
  float m = -kInf;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, x[off + i]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  float s = 0.0f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) s += expf(x[off + i] - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) out[off + i] = expf(x[off + i] - m) / s;
}
// (attn @ Kc).to(q_nope.dtype)
MKB_MAP(to_bf16, bf16, (const float *a), a[i])

/* mkb:plan
scratch invalid bool[num_tokens * topk]
scratch safe int32[num_tokens * topk]
scratch idx int64[num_tokens * topk]
scratch kc_g bf16[num_tokens * topk * head_dim_ckv]
scratch kc fp32[num_tokens * topk * head_dim_ckv]
scratch kp_g bf16[num_tokens * topk * head_dim_kpe]
scratch kp fp32[num_tokens * topk * head_dim_kpe]
scratch qn fp32[num_tokens * num_qo_heads * head_dim_ckv]
scratch qp fp32[num_tokens * num_qo_heads * head_dim_kpe]
scratch l1 fp32[num_tokens * num_qo_heads * topk]
scratch l2 fp32[num_tokens * num_qo_heads * topk]
scratch logits fp32[num_tokens * num_qo_heads * topk]
scratch scaled fp32[num_tokens * num_qo_heads * topk]
scratch masked fp32[num_tokens * num_qo_heads * topk]
scratch mx fp32[num_tokens * num_qo_heads]
scratch mx_abs fp32[num_tokens * num_qo_heads]
scratch mx_inf bool[num_tokens * num_qo_heads]
scratch mx0 fp32[num_tokens * num_qo_heads]
scratch diff fp32[num_tokens * num_qo_heads * topk]
scratch ex fp32[num_tokens * num_qo_heads * topk]
scratch se fp32[num_tokens * num_qo_heads]
scratch lg fp32[num_tokens * num_qo_heads]
scratch lse_e fp32[num_tokens * num_qo_heads]
scratch attn fp32[num_tokens * num_qo_heads * topk]
scratch out_f fp32[num_tokens * num_qo_heads * head_dim_ckv]
launch eq_minus_one grid(ceil_div(num_tokens * topk, 256)) block(256) args(invalid, sparse_indices, i64(num_tokens * topk))
launch copy_i32 grid(ceil_div(num_tokens * topk, 256)) block(256) args(safe, sparse_indices, i64(num_tokens * topk))
launch put_zero_masked grid(ceil_div(num_tokens * topk, 256)) block(256) args(safe, invalid, i64(num_tokens * topk))
launch to_long grid(ceil_div(num_tokens * topk, 256)) block(256) args(idx, safe, i64(num_tokens * topk))
launch gather_rows_512 grid(ceil_div(num_tokens * topk * head_dim_ckv, 1024)) block(256) args(kc_g, ckv_cache, idx, i64(num_tokens * topk * head_dim_ckv))
launch to_f32 grid(ceil_div(num_tokens * topk * head_dim_ckv, 1024)) block(256) args(kc, kc_g, i64(num_tokens * topk * head_dim_ckv))
launch gather_rows_64 grid(ceil_div(num_tokens * topk * head_dim_kpe, 1024)) block(256) args(kp_g, kpe_cache, idx, i64(num_tokens * topk * head_dim_kpe))
launch to_f32 grid(ceil_div(num_tokens * topk * head_dim_kpe, 1024)) block(256) args(kp, kp_g, i64(num_tokens * topk * head_dim_kpe))
launch to_f32 grid(ceil_div(num_tokens * num_qo_heads * head_dim_ckv, 1024)) block(256) args(qn, q_nope, i64(num_tokens * num_qo_heads * head_dim_ckv))
launch to_f32 grid(ceil_div(num_tokens * num_qo_heads * head_dim_kpe, 1024)) block(256) args(qp, q_pe, i64(num_tokens * num_qo_heads * head_dim_kpe))
matmul c(l1) a(qn) b(kc) m(num_qo_heads) n(topk) k(head_dim_ckv) batch(num_tokens) transpose_b
matmul c(l2) a(qp) b(kp) m(num_qo_heads) n(topk) k(head_dim_kpe) batch(num_tokens) transpose_b
launch add_f32 grid(ceil_div(num_tokens * num_qo_heads * topk, 1024)) block(256) args(logits, l1, l2, i64(num_tokens * num_qo_heads * topk))
launch mul_scalar grid(ceil_div(num_tokens * num_qo_heads * topk, 1024)) block(256) args(scaled, logits, f32(sm_scale), i64(num_tokens * num_qo_heads * topk))
launch mask_heads grid(ceil_div(num_tokens * num_qo_heads * topk, 1024)) block(256) args(masked, scaled, invalid, i64(num_tokens * num_qo_heads * topk))
launch row_amax grid(num_tokens * num_qo_heads) block(256) args(mx, masked, i32(topk))
launch abs_f32 grid(ceil_div(num_tokens * num_qo_heads, 1024)) block(256) args(mx_abs, mx, i64(num_tokens * num_qo_heads))
launch eq_inf grid(ceil_div(num_tokens * num_qo_heads, 256)) block(256) args(mx_inf, mx_abs, i64(num_tokens * num_qo_heads))
launch masked_fill_zero grid(ceil_div(num_tokens * num_qo_heads, 1024)) block(256) args(mx0, mx, mx_inf, i64(num_tokens * num_qo_heads))
launch sub_rows grid(ceil_div(num_tokens * num_qo_heads * topk, 1024)) block(256) args(diff, masked, mx0, i64(num_tokens * num_qo_heads * topk))
launch exp_f32 grid(ceil_div(num_tokens * num_qo_heads * topk, 1024)) block(256) args(ex, diff, i64(num_tokens * num_qo_heads * topk))
launch row_sum grid(num_tokens * num_qo_heads) block(256) args(se, ex, i32(topk))
launch log_f32 grid(ceil_div(num_tokens * num_qo_heads, 1024)) block(256) args(lg, se, i64(num_tokens * num_qo_heads))
launch add_f32 grid(ceil_div(num_tokens * num_qo_heads, 1024)) block(256) args(lse_e, lg, mx0, i64(num_tokens * num_qo_heads))
launch div_scalar grid(ceil_div(num_tokens * num_qo_heads, 1024)) block(256) args(lse, lse_e, f32(0.6931471805599453), i64(num_tokens * num_qo_heads))
launch row_softmax grid(num_tokens * num_qo_heads) block(256) args(attn, masked, i32(topk))
matmul c(out_f) a(attn) b(kc) m(num_qo_heads) n(head_dim_ckv) k(topk) batch(num_tokens)
launch to_bf16 grid(ceil_div(num_tokens * num_qo_heads * head_dim_ckv, 1024)) block(256) args(output, out_f, i64(num_tokens * num_qo_heads * head_dim_ckv))
*/
