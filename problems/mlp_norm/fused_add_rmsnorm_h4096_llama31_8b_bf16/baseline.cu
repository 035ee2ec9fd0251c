// The unfused baseline: one launch per eager PyTorch operation of the reference, each a plain kernel
// with fp32 intermediates in memory, as an eager framework runs the subgraph.
#include <cuda_bf16.h>

typedef long long i64;

// residual = bf16(x + residual)
extern "C" __global__ void add_bf16(const __nv_bfloat16 *x, __nv_bfloat16 *residual, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) residual[i] = __float2bfloat16_rn(__bfloat162float(x[i]) + __bfloat162float(residual[i]));
}

// h = s.float()
extern "C" __global__ void to_float(const __nv_bfloat16 *s, float *h, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = __bfloat162float(s[i]);
}

// q = h.pow(2)
extern "C" __global__ void square(const float *h, float *q, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = h[i] * h[i];
}

// ms = q.mean(-1): one block per row
extern "C" __global__ void row_mean(const float *q, float *ms, int cols) {
  __shared__ float partial[256];
  const float *row = q + (i64)blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += row[c];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) ms[blockIdx.x] = partial[0] / cols;
}

// r = rsqrt(ms + eps)
extern "C" __global__ void add_rsqrt(const float *ms, float *r, float eps, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) r[i] = rsqrtf(ms[i] + eps);
}

// h = h * r (broadcast over columns)
extern "C" __global__ void scale_rows(float *h, const float *r, int cols, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h[i] = h[i] * r[i / cols];
}

// n = h.to(bf16)
extern "C" __global__ void to_bf16(const float *h, __nv_bfloat16 *b, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __float2bfloat16_rn(h[i]);
}

// y = weight * n (broadcast over rows), bf16
extern "C" __global__ void mul_weight(const __nv_bfloat16 *b, const __nv_bfloat16 *w, __nv_bfloat16 *y, int cols, i64 n) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16_rn(__bfloat162float(w[i % cols]) * __bfloat162float(b[i]));
}

/* mkb:plan
scratch h fp32[tokens * hidden]
scratch q fp32[tokens * hidden]
scratch ms fp32[tokens]
scratch r fp32[tokens]
scratch nb bf16[tokens * hidden]
launch add_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(x, residual, i64(tokens * hidden))
launch to_float grid(ceil_div(tokens * hidden, 256)) block(256) args(residual, h, i64(tokens * hidden))
launch square grid(ceil_div(tokens * hidden, 256)) block(256) args(h, q, i64(tokens * hidden))
launch row_mean grid(tokens) block(256) args(q, ms, i32(hidden))
launch add_rsqrt grid(ceil_div(tokens, 256)) block(256) args(ms, r, f32(eps), i32(tokens))
launch scale_rows grid(ceil_div(tokens * hidden, 256)) block(256) args(h, r, i32(hidden), i64(tokens * hidden))
launch to_bf16 grid(ceil_div(tokens * hidden, 256)) block(256) args(h, nb, i64(tokens * hidden))
launch mul_weight grid(ceil_div(tokens * hidden, 256)) block(256) args(nb, weight, y, i32(hidden), i64(tokens * hidden))
*/
