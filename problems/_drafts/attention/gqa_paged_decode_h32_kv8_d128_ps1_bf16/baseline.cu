// The eager baseline: the device work of the original's reference(), one launch per eager operation.
// The reference loops over the 64 requests in Python (with .item() host syncs); a plan has no loops, so
// each operation of the loop body is one launch over all requests at once, every per-request tensor
// laid out as the concatenation of the per-request tensors (request b's part starts where the tokens
// before it end: kv_indptr[b] tokens in). Kernels find a position's request from kv_indptr on the
// device. Intermediates are at eager's dtypes: fp32 from the first conversion on, bf16 only at the end.
#include "mkb_ops.cuh"

constexpr int kBatch = 64, kHeads = 32, kKvHeads = 8, kGroup = kHeads / kKvHeads, kDim = 128;
constexpr int kTokenRow = kKvHeads * kDim;  // one token of k_cache or v_cache (page size 1)
constexpr int kHeadRows = kHeads * kDim;    // one token of a [32, T, 128] tensor

namespace mkb_ops {
template <> struct store_as<long long> {
  __device__ static long long from(int v) { return v; }
};
} // namespace mkb_ops

// The request owning position `unit` (in tokens): the last b with kv_indptr[b] <= unit.
__device__ __forceinline__ int request_of(const int *kv_indptr, long long unit) {
  int lo = 0, hi = kBatch;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (__ldg(kv_indptr + mid) <= unit) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Element i of the concatenated [32, T_b, 128] repeat_interleave(4, dim=0) of the permuted [8, T_b, 128]
// view of a gathered fp32 [T_b, 8, 128] tensor.
__device__ __forceinline__ float repeat_source(const float *src, const int *kv_indptr, long long i) {
  const int b = request_of(kv_indptr, i / kHeadRows);
  const int start = __ldg(kv_indptr + b), length = __ldg(kv_indptr + b + 1) - start;
  const long long local = i - (long long)start * kHeadRows;  // (h * T_b + j) * 128 + d
  const int row = (int)(local / kDim), d = (int)(local % kDim);
  const int h = row / length, j = row % length;
  return src[((long long)(start + j) * kKvHeads + h / kGroup) * kDim + d];
}

// The (request, head) row of element i of the concatenated [32, T_b] logits.
__device__ __forceinline__ int logit_row(const int *kv_indptr, long long i) {
  const int b = request_of(kv_indptr, i / kHeads);
  const int start = __ldg(kv_indptr + b), length = __ldg(kv_indptr + b + 1) - start;
  return b * kHeads + (int)((i - (long long)start * kHeads) / length);
}

// output = zeros(...), lse = full(..., -inf)
MKB_MAP(fill_bf16, bf16, (float value), value)
MKB_MAP(fill_neg_inf, float, (int unused), -__int_as_float(0x7f800000))
// q_wide = q.to(fp32)
MKB_MAP(to_f32_bf16, float, (const bf16 *x), f32(x[i]))
// idx = kv_indices[ps:pe].to(torch.long)
MKB_MAP(to_i64, long long, (const int *x), x[i])
// k_flat[idx], v_flat[idx]: bf16 [T, 8, 128] gathers
MKB_MAP(gather_rows, bf16, (const bf16 *cache, const long long *idx), cache[idx[i / kTokenRow] * kTokenRow + i % kTokenRow])
// .to(compute_dtype)
MKB_MAP(to_f32_gathered, float, (const bf16 *x), f32(x[i]))
// .permute(1, 0, 2).repeat_interleave(4, dim=0): one contiguous copy of the expanded view
MKB_MAP(repeat_heads, float, (const float *src, const int *kv_indptr), repeat_source(src, kv_indptr, i))
// * sm_scale (fp32 multiplication by the scalar rounded to fp32)
MKB_MAP(mul_scalar, float, (const float *x, float scalar), x[i] * scalar)
// logsumexp: maxes.abs(), == inf, masked_fill_(.., 0), self - maxes, exp_, log_, add_(maxes)
MKB_MAP(abs_map, float, (const float *x), fabsf(x[i]))
MKB_MAP(sub_row_max, float, (const float *x, const float *maxes, const int *kv_indptr), x[i] - maxes[logit_row(kv_indptr, i)])
MKB_MAP(exp_map, float, (const float *x), expf(x[i]))
MKB_MAP(log_map, float, (const float *x), logf(x[i]))
MKB_MAP(add_map, float, (const float *a, const float *b), a[i] + b[i])
// / math.log(2.0): PyTorch multiplies by the fp32 reciprocal of a Python-scalar divisor
MKB_MAP(div_scalar, float, (const float *x, float divisor), x[i] * (1.0f / divisor))
// lse[b] = ..., output[b] = ...: copies into the preallocated results
MKB_MAP(copy_f32, float, (const float *x), x[i])
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
MKB_MAP(copy_bf16, bf16, (const bf16 *x), x[i])

extern "C" __global__ void eq_inf(bool *out, const float *x, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] == __int_as_float(0x7f800000);
}

extern "C" __global__ void masked_fill(float *x, const bool *mask, float value, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && mask[i]) x[i] = value;
}

// torch.bmm(q_b [32, 1, 128], k.transpose(1, 2) [32, 128, T_b]) for every request: one warp per logit,
// fp32 accumulation (cuBLAS in eager, TF32 off).
extern "C" __global__ void bmm_qk(float *logits, const float *q_wide, const float *k, const int *kv_indptr, long long rows) {
  const long long r = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (r >= rows) return;
  const int b = request_of(kv_indptr, r / kHeads);
  const int start = __ldg(kv_indptr + b), length = __ldg(kv_indptr + b + 1) - start;
  const int h = (int)((r - (long long)start * kHeads) / length);
  const float4 kv = reinterpret_cast<const float4 *>(k + r * kDim)[lane];
  const float4 qv = reinterpret_cast<const float4 *>(q_wide + ((long long)b * kHeads + h) * kDim)[lane];
  float acc = qv.x * kv.x + qv.y * kv.y + qv.z * kv.z + qv.w * kv.w;
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
  if (lane == 0) logits[r] = acc;
}

// amax / sum over the last dim of each request's [32, T_b] logits: one block per (head, request).
extern "C" __global__ void row_amax(float *out, const float *x, const int *kv_indptr) {
  const int h = blockIdx.x, b = blockIdx.y;
  const int start = kv_indptr[b], length = kv_indptr[b + 1] - start;
  const float *row = x + (long long)start * kHeads + (long long)h * length;
  float acc = -__int_as_float(0x7f800000);
  for (int j = threadIdx.x; j < length; j += blockDim.x) acc = mkb_ops::max_op::apply(acc, row[j]);
  acc = mkb_ops::block_reduce<mkb_ops::max_op>(acc);
  if (threadIdx.x == 0) out[b * kHeads + h] = acc;
}

extern "C" __global__ void row_sum(float *out, const float *x, const int *kv_indptr) {
  const int h = blockIdx.x, b = blockIdx.y;
  const int start = kv_indptr[b], length = kv_indptr[b + 1] - start;
  const float *row = x + (long long)start * kHeads + (long long)h * length;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < length; j += blockDim.x) acc += row[j];
  acc = mkb_ops::block_reduce<mkb_ops::sum_op>(acc);
  if (threadIdx.x == 0) out[b * kHeads + h] = acc;
}

// torch.softmax(logits, dim=-1): one block per row, max, sum of exp(x - max), exp(x - max) / sum.
extern "C" __global__ void softmax_rows(float *out, const float *x, const int *kv_indptr) {
  const int h = blockIdx.x, b = blockIdx.y;
  const int start = kv_indptr[b], length = kv_indptr[b + 1] - start;
  const long long offset = (long long)start * kHeads + (long long)h * length;
  float row_max = -__int_as_float(0x7f800000);
  for (int j = threadIdx.x; j < length; j += blockDim.x) row_max = fmaxf(row_max, x[offset + j]);
  row_max = mkb_ops::block_reduce<mkb_ops::max_op>(row_max);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < length; j += blockDim.x) sum += expf(x[offset + j] - row_max);
  sum = mkb_ops::block_reduce<mkb_ops::sum_op>(sum);
  for (int j = threadIdx.x; j < length; j += blockDim.x) out[offset + j] = expf(x[offset + j] - row_max) / sum;
}

// torch.bmm(attn [32, 1, T_b], v [32, T_b, 128]) for every request, fp32: block (piece, head) sums
// 64 consecutive tokens of the concatenated sequence (thread = head dim) and adds each request's part to
// the zeroed result with one atomic add per element (a split-K reduction).
constexpr int kPvPiece = 64;
extern "C" __global__ void bmm_pv(float *out, const float *attn, const float *v, const int *kv_indptr, int total_tokens) {
  const int h = blockIdx.y, d = threadIdx.x;
  const int first = blockIdx.x * kPvPiece, last = min(first + kPvPiece, total_tokens);
  if (first >= last) return;
  int b = request_of(kv_indptr, first);
  int start = kv_indptr[b], end = kv_indptr[b + 1];
  float acc = 0.0f;
#pragma unroll 4
  for (int t = first; t < last; ++t) {
    while (t >= end) {  // crossed into the next request: flush
      atomicAdd(out + ((long long)b * kHeads + h) * kDim + d, acc);
      acc = 0.0f;
      ++b;
      start = end;
      end = kv_indptr[b + 1];
    }
    const long long row = (long long)start * kHeads + (long long)h * (end - start) + (t - start);
    acc += attn[row] * v[row * kDim + d];
  }
  atomicAdd(out + ((long long)b * kHeads + h) * kDim + d, acc);
}

/* mkb:plan
scratch q_wide fp32[batch_size * num_qo_heads * head_dim]
scratch idx int64[num_kv_indices]
scratch k_gathered bf16[num_kv_indices * num_kv_heads * head_dim]
scratch k_wide fp32[num_kv_indices * num_kv_heads * head_dim]
scratch k_expanded fp32[num_kv_indices * num_qo_heads * head_dim]
scratch v_gathered bf16[num_kv_indices * num_kv_heads * head_dim]
scratch v_wide fp32[num_kv_indices * num_kv_heads * head_dim]
scratch v_expanded fp32[num_kv_indices * num_qo_heads * head_dim]
scratch qk fp32[num_kv_indices * num_qo_heads]
scratch logits fp32[num_kv_indices * num_qo_heads]
scratch maxes fp32[batch_size * num_qo_heads]
scratch max_abs fp32[batch_size * num_qo_heads]
scratch max_inf bool[batch_size * num_qo_heads]
scratch shifted fp32[num_kv_indices * num_qo_heads]
scratch exps fp32[num_kv_indices * num_qo_heads]
scratch sums fp32[batch_size * num_qo_heads]
scratch log_sums fp32[batch_size * num_qo_heads]
scratch lse_e fp32[batch_size * num_qo_heads]
scratch lse_2 fp32[batch_size * num_qo_heads]
scratch attn fp32[num_kv_indices * num_qo_heads]
scratch pv fp32[batch_size * num_qo_heads * head_dim] zeroed
scratch pv_bf16 bf16[batch_size * num_qo_heads * head_dim]
launch fill_bf16 grid(ceil_div(batch_size * num_qo_heads * head_dim, 1024)) block(256) args(output, f32(0), i64(batch_size * num_qo_heads * head_dim))
launch fill_neg_inf grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse, i32(0), i64(batch_size * num_qo_heads))
launch to_f32_bf16 grid(ceil_div(batch_size * num_qo_heads * head_dim, 1024)) block(256) args(q_wide, q, i64(batch_size * num_qo_heads * head_dim))
launch to_i64 grid(ceil_div(num_kv_indices, 1024)) block(256) args(idx, kv_indices, i64(num_kv_indices))
launch gather_rows grid(ceil_div(num_kv_indices * num_kv_heads * head_dim, 1024)) block(256) args(k_gathered, k_cache, idx, i64(num_kv_indices * num_kv_heads * head_dim))
launch to_f32_gathered grid(ceil_div(num_kv_indices * num_kv_heads * head_dim, 1024)) block(256) args(k_wide, k_gathered, i64(num_kv_indices * num_kv_heads * head_dim))
launch repeat_heads grid(ceil_div(num_kv_indices * num_qo_heads * head_dim, 1024)) block(256) args(k_expanded, k_wide, kv_indptr, i64(num_kv_indices * num_qo_heads * head_dim))
launch gather_rows grid(ceil_div(num_kv_indices * num_kv_heads * head_dim, 1024)) block(256) args(v_gathered, v_cache, idx, i64(num_kv_indices * num_kv_heads * head_dim))
launch to_f32_gathered grid(ceil_div(num_kv_indices * num_kv_heads * head_dim, 1024)) block(256) args(v_wide, v_gathered, i64(num_kv_indices * num_kv_heads * head_dim))
launch repeat_heads grid(ceil_div(num_kv_indices * num_qo_heads * head_dim, 1024)) block(256) args(v_expanded, v_wide, kv_indptr, i64(num_kv_indices * num_qo_heads * head_dim))
launch bmm_qk grid(ceil_div(num_kv_indices * num_qo_heads, 8)) block(256) args(qk, q_wide, k_expanded, kv_indptr, i64(num_kv_indices * num_qo_heads))
launch mul_scalar grid(ceil_div(num_kv_indices * num_qo_heads, 1024)) block(256) args(logits, qk, f32(sm_scale), i64(num_kv_indices * num_qo_heads))
launch row_amax grid(num_qo_heads, batch_size) block(256) args(maxes, logits, kv_indptr)
launch abs_map grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(max_abs, maxes, i64(batch_size * num_qo_heads))
launch eq_inf grid(ceil_div(batch_size * num_qo_heads, 256)) block(256) args(max_inf, max_abs, i64(batch_size * num_qo_heads))
launch masked_fill grid(ceil_div(batch_size * num_qo_heads, 256)) block(256) args(maxes, max_inf, f32(0), i64(batch_size * num_qo_heads))
launch sub_row_max grid(ceil_div(num_kv_indices * num_qo_heads, 1024)) block(256) args(shifted, logits, maxes, kv_indptr, i64(num_kv_indices * num_qo_heads))
launch exp_map grid(ceil_div(num_kv_indices * num_qo_heads, 1024)) block(256) args(exps, shifted, i64(num_kv_indices * num_qo_heads))
launch row_sum grid(num_qo_heads, batch_size) block(256) args(sums, exps, kv_indptr)
launch log_map grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(log_sums, sums, i64(batch_size * num_qo_heads))
launch add_map grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse_e, log_sums, maxes, i64(batch_size * num_qo_heads))
launch div_scalar grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse_2, lse_e, f32(0.6931471805599453), i64(batch_size * num_qo_heads))
launch copy_f32 grid(ceil_div(batch_size * num_qo_heads, 1024)) block(256) args(lse, lse_2, i64(batch_size * num_qo_heads))
launch softmax_rows grid(num_qo_heads, batch_size) block(256) args(attn, logits, kv_indptr)
launch bmm_pv grid(ceil_div(num_kv_indices, 64), num_qo_heads) block(128) args(pv, attn, v_expanded, kv_indptr, i32(num_kv_indices))
launch to_bf16 grid(ceil_div(batch_size * num_qo_heads * head_dim, 1024)) block(256) args(pv_bf16, pv, i64(batch_size * num_qo_heads * head_dim))
launch copy_bf16 grid(ceil_div(batch_size * num_qo_heads * head_dim, 1024)) block(256) args(output, pv_bf16, i64(batch_size * num_qo_heads * head_dim))
*/
