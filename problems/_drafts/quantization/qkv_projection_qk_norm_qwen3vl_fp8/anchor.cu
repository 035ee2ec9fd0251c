// The float64 anchor: the blockwise FP8 quantization computed exactly as the reference does (fp32 scale
// and division, e4m3 rounding), the dequantized operands formed exactly in double, the three products
// as fp64 matmul steps; then in double the bias, the model's bf16 rounding of each projection, the
// per-head RMSNorm of q and k with its bf16 rounding before the weight, and the [b, h, s, d] layout.
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

// y = y + bias in double; rounded to bf16 (the projection's output dtype) when `round` is set.
extern "C" __global__ void anchor_bias(double *y, const __nv_bfloat16 *bias, long long n, int cols, int round) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double v = y[i] + (double)bf(bias[i % cols]);
    y[i] = round ? (double)__bfloat162float(__double2bfloat16(v)) : v;
  }
}

// Per-head RMSNorm of y [tokens, heads * 128] (bf16 values held in double), one thread per
// (token, head); out [batch, heads, seq, 128]: weight * bf16(v / sqrt(mean(v^2) + eps)).
extern "C" __global__ void anchor_head_norm(const double *y, const __nv_bfloat16 *weight, double *out, int heads, int seq,
                                            long long rows, double eps) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const long long t = r / heads, h = r % heads, b = t / seq, s = t % seq;
  const double *v = y + r * 128;
  double ss = 0.0;
  for (int d = 0; d < 128; ++d) ss += v[d] * v[d];
  const double inv = 1.0 / sqrt(ss / 128.0 + eps);
  double *o = out + ((b * heads + h) * seq + s) * 128;
  for (int d = 0; d < 128; ++d) o[d] = (double)bf(weight[d]) * (double)__bfloat162float(__double2bfloat16(v[d] * inv));
}

// v [batch, heads, seq, 128] from y [tokens, heads * 128].
extern "C" __global__ void anchor_to_bhsd(const double *y, double *out, int heads, int seq, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long d = i % 128, s = (i / 128) % seq, h = (i / 128 / seq) % heads, b = i / 128 / seq / heads;
    out[i] = y[((b * seq + s) * heads + h) * 128 + d];
  }
}

/* mkb:plan
scratch dqx fp64[batch_size * seq_len * hidden_size]
scratch dqwq fp64[q_size * hidden_size]
scratch dqwk fp64[kv_size * hidden_size]
scratch dqwv fp64[kv_size * hidden_size]
scratch yq fp64[batch_size * seq_len * q_size]
scratch yk fp64[batch_size * seq_len * kv_size]
scratch yv fp64[batch_size * seq_len * kv_size]
launch anchor_quant_rows grid(ceil_div(batch_size * seq_len * hidden_size / 128, 256)) block(256)
  args(hidden_states, dqx, i64(batch_size * seq_len * hidden_size / 128))
launch anchor_quant_blocks grid(hidden_size / 128, q_size / 128) block(256) args(q_weight, dqwq, i32(hidden_size))
launch anchor_quant_blocks grid(hidden_size / 128, kv_size / 128) block(256) args(k_weight, dqwk, i32(hidden_size))
launch anchor_quant_blocks grid(hidden_size / 128, kv_size / 128) block(256) args(v_weight, dqwv, i32(hidden_size))
matmul c(yq) a(dqx) b(dqwq) m(batch_size * seq_len) n(q_size) k(hidden_size) transpose_b
matmul c(yk) a(dqx) b(dqwk) m(batch_size * seq_len) n(kv_size) k(hidden_size) transpose_b
matmul c(yv) a(dqx) b(dqwv) m(batch_size * seq_len) n(kv_size) k(hidden_size) transpose_b
launch anchor_bias grid(4096) block(256) args(yq, q_bias, i64(batch_size * seq_len * q_size), i32(q_size), i32(1))
launch anchor_bias grid(4096) block(256) args(yk, k_bias, i64(batch_size * seq_len * kv_size), i32(kv_size), i32(1))
launch anchor_bias grid(4096) block(256) args(yv, v_bias, i64(batch_size * seq_len * kv_size), i32(kv_size), i32(0))
launch anchor_head_norm grid(ceil_div(batch_size * seq_len * num_attention_heads, 256)) block(256)
  args(yq, q_norm_weight, q, i32(num_attention_heads), i32(seq_len), i64(batch_size * seq_len * num_attention_heads), f64(eps))
launch anchor_head_norm grid(ceil_div(batch_size * seq_len * num_key_value_heads, 256)) block(256)
  args(yk, k_norm_weight, k, i32(num_key_value_heads), i32(seq_len), i64(batch_size * seq_len * num_key_value_heads), f64(eps))
launch anchor_to_bhsd grid(4096) block(256) args(yv, v, i32(num_key_value_heads), i32(seq_len), i64(batch_size * seq_len * kv_size))
*/
