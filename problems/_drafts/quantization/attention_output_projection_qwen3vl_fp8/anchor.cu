// The float64 anchor: the blockwise FP8 quantization computed exactly as the reference does (fp32 scale
// and division, e4m3 rounding), the dequantized operands formed exactly in double (an e4m3 value times
// an fp32 scale fits in 53 bits), their product as an fp64 matmul step, the bias added in double.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

__device__ __forceinline__ float bf(const __nv_bfloat16 v) { return __bfloat162float(v); }

// The e4m3 code of x / scale, clamped to +-448, as a float.
__device__ __forceinline__ float quantized(float x, float scale) {
  const float v = fminf(fmaxf(__fdiv_rn(x, scale), -448.0f), 448.0f);
  __nv_fp8_e4m3 q;
  q.__x = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
  return float(q);
}

} // namespace

// 1 x 128 blocks of a row-major bf16 matrix: one thread per block.
extern "C" __global__ void anchor_quant_rows(const __nv_bfloat16 *x, double *dq, long long blocks) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const __nv_bfloat16 *src = x + b * 128;
  float amax = 0.0f;
  for (int c = 0; c < 128; ++c) amax = fmaxf(amax, fabsf(bf(src[c])));
  const float scale = __fmul_rn(amax, 1.0f / 448.0f);
  for (int c = 0; c < 128; ++c) dq[b * 128 + c] = (double)quantized(bf(src[c]), scale) * (double)scale;
}

// 128 x 128 blocks of a row-major bf16 matrix with `cols` columns: one 256-thread block per block,
// grid (cols / 128, rows / 128).
extern "C" __global__ void anchor_quant_blocks(const __nv_bfloat16 *w, double *dq, int cols) {
  __shared__ float partial[256];
  const long long r0 = (long long)blockIdx.y * 128, c0 = (long long)blockIdx.x * 128;
  float amax = 0.0f;
  for (int e = threadIdx.x; e < 128 * 128; e += blockDim.x)
    amax = fmaxf(amax, fabsf(bf(w[(r0 + e / 128) * cols + c0 + e % 128])));
  partial[threadIdx.x] = amax;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  const float scale = __fmul_rn(partial[0], 1.0f / 448.0f);
  for (int e = threadIdx.x; e < 128 * 128; e += blockDim.x) {
    const long long i = (r0 + e / 128) * cols + c0 + e % 128;
    dq[i] = (double)quantized(bf(w[i]), scale) * (double)scale;
  }
}

extern "C" __global__ void anchor_add_bias(double *y, const __nv_bfloat16 *bias, long long n, int cols) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    y[i] += (double)bf(bias[i % cols]);
}

/* mkb:plan
scratch dqx fp64[num_tokens * input_dim]
scratch dqw fp64[hidden_size * input_dim]
launch anchor_quant_rows grid(ceil_div(num_tokens * input_dim / 128, 256)) block(256)
  args(attn_output, dqx, i64(num_tokens * input_dim / 128))
launch anchor_quant_blocks grid(input_dim / 128, hidden_size / 128) block(256) args(o_proj_weight, dqw, i32(input_dim))
matmul c(output) a(dqx) b(dqw) m(num_tokens) n(hidden_size) k(input_dim) transpose_b
launch anchor_add_bias grid(4096) block(256) args(output, o_proj_bias, i64(num_tokens * hidden_size), i32(hidden_size))
*/
