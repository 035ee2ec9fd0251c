// The float64 anchor: the text embeddings gathered exactly; the vision features' NVFP4 quantization
// computed exactly as the reference does (its fp32 amax, scales, divisions and roundings), both operands
// dequantized exactly in double, the projection as an fp64 matmul step, the bias added in double, and
// each sequence's vision rows written at its masked positions in order.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

__device__ __forceinline__ float e2m1(unsigned code) {
  const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  return (code & 8u) ? -mag[code & 7u] : mag[code & 7u];
}
__device__ __forceinline__ float e4m3_value(unsigned char b) {
  __nv_fp8_e4m3 v;
  v.__x = b;
  return float(v);
}
// The e2m1 code of v (already clamped to +-6): nearest, ties to even, -0 for [-0.25, 0).
__device__ __forceinline__ unsigned e2m1_code(float v) {
  const float a = fabsf(v);
  const unsigned m = a <= 0.25f ? 0u : a < 0.75f ? 1u : a <= 1.25f ? 2u : a < 1.75f ? 3u : a <= 2.5f ? 4u : a < 3.5f ? 5u : a <= 5.0f ? 6u : 7u;
  return m | (v < 0.0f ? 8u : 0u);
}

} // namespace

extern "C" __global__ void anchor_gather(const long long *ids, const __nv_bfloat16 *table, double *out, long long n, int hidden) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (double)__bfloat162float(table[ids[i / hidden] * hidden + i % hidden]);
}

// The vision features' amax, as the bits of a non-negative float (ordered as integers) in *amax_bits (zeroed).
extern "C" __global__ void anchor_amax(const __nv_bfloat16 *x, int *amax_bits, long long n) {
  __shared__ float partial[256];
  float m = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    m = fmaxf(m, fabsf(__bfloat162float(x[i])));
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax(amax_bits, __float_as_int(partial[0]));
}

// One thread per 16-element block of the vision features: the NVFP4 quantization and the dequantized values.
extern "C" __global__ void anchor_act_nvfp4(const __nv_bfloat16 *x, const int *amax_bits, double *dq, long long blocks) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const float amax = __int_as_float(*amax_bits);
  const float encode = amax > 0.0f ? __fdiv_rn(2688.0f, amax) : 1.0f;
  const float decode = __frcp_rn(encode);
  float v[16], bmax = 0.0f;
  for (int j = 0; j < 16; ++j) {
    v[j] = __bfloat162float(x[b * 16 + j]);
    bmax = fmaxf(bmax, fabsf(v[j]));
  }
  const float s = fminf(fmaxf(__fmul_rn(__fmul_rn(bmax, 1.0f / 6.0f), encode), -448.0f), 448.0f);
  const float d = __fmul_rn(e4m3_value((unsigned char)__nv_cvt_float_to_fp8(s, __NV_SATFINITE, __NV_E4M3)), decode);
  for (int j = 0; j < 16; ++j) {
    const float q = fminf(fmaxf(__fdiv_rn(v[j], d), -6.0f), 6.0f);
    dq[b * 16 + j] = (double)e2m1(e2m1_code(q)) * (double)d;
  }
}

// The weight dequantized from its packed codes (element 2i low nibble), block scales and decode scale.
extern "C" __global__ void anchor_weight_nvfp4(const unsigned char *packed, const unsigned char *scale, const float *decode,
                                               double *dq, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const unsigned byte = packed[i / 2], code = (i & 1) ? byte >> 4 : byte & 15u;
    const float d = __fmul_rn(e4m3_value(scale[i / 16]), *decode);
    dq[i] = (double)e2m1(code) * (double)d;
  }
}

// Per sequence (a block): its masked positions in order; output[b, p_j] = vision[b, j] + bias for
// j < min(count, vision_tokens).
extern "C" __global__ void anchor_scatter(const bool *mask, const double *vision, const __nv_bfloat16 *bias, double *out,
                                          int seq, int vision_tokens, int hidden) {
  __shared__ int pos[1024];
  __shared__ int count;
  const int b = blockIdx.x;
  if (threadIdx.x == 0) {
    int c = 0;
    for (int s = 0; s < seq; ++s)
      if (mask[(long long)b * seq + s] && c < vision_tokens) pos[c++] = s;
    count = c;
  }
  __syncthreads();
  for (long long e = threadIdx.x; e < (long long)count * hidden; e += blockDim.x) {
    const long long j = e / hidden, n = e % hidden;
    out[((long long)b * seq + pos[j]) * hidden + n] =
        vision[((long long)b * vision_tokens + j) * hidden + n] + (double)__bfloat162float(bias[n]);
  }
}

/* mkb:plan
scratch amax_bits int32[1] zeroed
scratch dqa fp64[batch_size * num_vision_tokens * vision_hidden_size]
scratch dqw fp64[hidden_size * vision_hidden_size]
scratch vision fp64[batch_size * num_vision_tokens * hidden_size]
launch anchor_gather grid(8192) block(256) args(input_ids, embed_weight, output, i64(batch_size * seq_len * hidden_size), i32(hidden_size))
launch anchor_amax grid(1024) block(256) args(vision_features, amax_bits, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch anchor_act_nvfp4 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 256)) block(256)
  args(vision_features, amax_bits, dqa, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch anchor_weight_nvfp4 grid(4096) block(256)
  args(vision_proj_weight_fp4, vision_proj_weight_scale, vision_proj_global_decode, dqw, i64(hidden_size * vision_hidden_size))
matmul c(vision) a(dqa) b(dqw) m(batch_size * num_vision_tokens) n(hidden_size) k(vision_hidden_size) transpose_b
launch anchor_scatter grid(batch_size) block(1024)
  args(vision_token_mask, vision, vision_proj_bias, output, i32(seq_len), i32(num_vision_tokens), i32(hidden_size))
*/
