// The unfused baseline: one launch per eager operation (cast, softmax, top-k, sum, divide, casts).
#include <cuda_bf16.h>

typedef long long i64;

extern "C" __global__ void to_float(const __nv_bfloat16 *in, float *out, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

// softmax over the last axis, one thread per row
extern "C" __global__ void softmax_rows(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = in + (i64)r * cols;
  float m = row[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, row[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += expf(row[c] - m);
  for (int c = 0; c < cols; ++c) out[(i64)r * cols + c] = expf(row[c] - m) / sum;
}

// top-2 values and int64 indices, ties to the lower index, one thread per row
extern "C" __global__ void top2_rows(const float *p, float *values, long long *indices, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = p + (i64)r * cols;
  int best = 0;
  for (int c = 1; c < cols; ++c)
    if (row[c] > row[best]) best = c;
  int second = best == 0 ? 1 : 0;
  for (int c = 0; c < cols; ++c)
    if (c != best && row[c] > row[second]) second = c;
  values[2 * (i64)r] = row[best];
  values[2 * (i64)r + 1] = row[second];
  indices[2 * (i64)r] = best;
  indices[2 * (i64)r + 1] = second;
}

extern "C" __global__ void sum_pairs(const float *values, float *sums, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) sums[r] = values[2 * (i64)r] + values[2 * (i64)r + 1];
}

extern "C" __global__ void divide_pairs(float *values, const float *sums, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] = values[i] / sums[i / 2];
}

extern "C" __global__ void to_bf16(const float *in, __nv_bfloat16 *out, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16_rn(in[i]);
}

extern "C" __global__ void to_int32(const long long *in, int *out, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (int)in[i];
}

/* mkb:plan
scratch lf fp32[tokens * experts]
scratch p fp32[tokens * experts]
scratch values fp32[tokens * top_k]
scratch indices int64[tokens * top_k]
scratch sums fp32[tokens]
launch to_float grid(ceil_div(tokens * experts, 256)) block(256) args(logits, lf, i64(tokens * experts))
launch softmax_rows grid(ceil_div(tokens, 256)) block(256) args(lf, p, i32(tokens), i32(experts))
launch top2_rows grid(ceil_div(tokens, 256)) block(256) args(p, values, indices, i32(tokens), i32(experts))
launch sum_pairs grid(ceil_div(tokens, 256)) block(256) args(values, sums, i32(tokens))
launch divide_pairs grid(ceil_div(tokens * top_k, 256)) block(256) args(values, sums, i64(tokens * top_k))
launch to_bf16 grid(ceil_div(tokens * top_k, 256)) block(256) args(values, expert_weights, i64(tokens * top_k))
launch to_int32 grid(ceil_div(tokens * top_k, 256)) block(256) args(indices, expert_ids, i64(tokens * top_k))
*/
