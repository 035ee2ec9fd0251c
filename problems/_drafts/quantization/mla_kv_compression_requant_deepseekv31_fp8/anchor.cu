// The float64 anchor: the blockwise FP8 quantizations computed exactly as the reference does (fp32 scale
// and division, e4m3 rounding), the dequantized operands formed exactly in double, both products as
// fp64 matmul steps; in between, in double, the model's bf16 rounding of the kv_a projection, the
// latent's RMSNorm with its two bf16 roundings (the normalized latent, the weight product), and the
// re-quantization of that bf16 latent.
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

__device__ __forceinline__ double round_bf16(double v) { return (double)__bfloat162float(__double2bfloat16(v)); }

// k_pe [T, 64] = c[T, 512:576] (the output, not rounded here).
extern "C" __global__ void anchor_k_pe(const double *c, double *k_pe, long long n, int width, int offset, int rope) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    k_pe[i] = c[(i / rope) * width + offset + i % rope];
}

// Per token: the latent c[t, 0:512] rounded to bf16, RMSNorm in double, n = bf16(v / rms),
// a = bf16(weight * n), then a's 1 x 128 FP8 blocks dequantized into dq [T, 512]. One thread per token.
extern "C" __global__ void anchor_latent_norm_quant(const double *c, const __nv_bfloat16 *weight, double *dq, long long tokens,
                                                    int width, double eps) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const double *row = c + t * width;
  double ss = 0.0;
  for (int j = 0; j < 512; ++j) {
    const double v = round_bf16(row[j]);
    ss += v * v;
  }
  const double inv = 1.0 / sqrt(ss / 512.0 + eps);
  for (int b = 0; b < 4; ++b) {
    float a[128], amax = 0.0f;
    for (int j = 0; j < 128; ++j) {
      const double n = round_bf16(round_bf16(row[128 * b + j]) * inv);
      a[j] = (float)round_bf16((double)bf(weight[128 * b + j]) * n);
      amax = fmaxf(amax, fabsf(a[j]));
    }
    const float scale = __fmul_rn(amax, 1.0f / 448.0f);
    for (int j = 0; j < 128; ++j) dq[t * 512 + 128 * b + j] = (double)quantized(a[j], scale) * (double)scale;
  }
}

/* mkb:plan
scratch dqx fp64[batch_size * seq_len * hidden_size]
scratch dqwa fp64[kv_a_output_dim_padded * hidden_size]
scratch dqwb fp64[kv_b_output_dim * kv_lora_rank]
scratch ckr fp64[batch_size * seq_len * kv_a_output_dim_padded]
scratch dqa fp64[batch_size * seq_len * kv_lora_rank]
launch anchor_quant_rows grid(ceil_div(batch_size * seq_len * hidden_size / 128, 256)) block(256)
  args(hidden_states, dqx, i64(batch_size * seq_len * hidden_size / 128))
launch anchor_quant_blocks grid(hidden_size / 128, kv_a_output_dim_padded / 128) block(256) args(kv_a_proj_weight, dqwa, i32(hidden_size))
launch anchor_quant_blocks grid(kv_lora_rank / 128, kv_b_output_dim / 128) block(256) args(kv_b_proj_weight, dqwb, i32(kv_lora_rank))
matmul c(ckr) a(dqx) b(dqwa) m(batch_size * seq_len) n(kv_a_output_dim_padded) k(hidden_size) transpose_b
launch anchor_k_pe grid(1024) block(256)
  args(ckr, k_pe, i64(batch_size * seq_len * qk_rope_head_dim), i32(kv_a_output_dim_padded), i32(kv_lora_rank), i32(qk_rope_head_dim))
launch anchor_latent_norm_quant grid(ceil_div(batch_size * seq_len, 128)) block(128)
  args(ckr, kv_a_layernorm_weight, dqa, i64(batch_size * seq_len), i32(kv_a_output_dim_padded), f64(eps))
matmul c(kv_expanded) a(dqa) b(dqwb) m(batch_size * seq_len) n(kv_b_output_dim) k(kv_lora_rank) transpose_b
*/
