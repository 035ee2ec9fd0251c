// Deterministic structured inputs of dual_stream_joint_attention_fibo_fp32, as the original's make_inputs
// computes them (the seed is not used):
//   token = arange(seq_len) over a 4 x 16 x 16 raster; pos_idx_axis0 = token // 256,
//   pos_idx_axis1 = (token // 16) % 16, pos_idx_axis2 = token % 16 (int64)
//   inv_freq[j] = 1 / 10000 ** (j / 64) (fp32), freqs = outer(arange(L), inv_freq), cos / sin (fp32)

namespace {
constexpr long long kGrid1 = 16, kGrid2 = 16;
constexpr int kFreqs = 64;
constexpr float kTheta = 10000.0f;

__device__ float angle(unsigned long long i) {
  const int p = (int)(i / kFreqs), j = (int)(i % kFreqs);
  const float inv = 1.0f / powf(kTheta, (float)j / (float)kFreqs);
  return (float)p * inv;
}
} // namespace

#define FIBO_GEN(name, type, expr)                                                                      \
  extern "C" __global__ void name(void *out, unsigned long long count, unsigned long long seed) {       \
    (void)seed;                                                                                         \
    type *o = static_cast<type *>(out);                                                                 \
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;   \
         i += (unsigned long long)gridDim.x * blockDim.x)                                               \
      o[i] = (expr);                                                                                    \
  }

FIBO_GEN(fibo_pos_idx_axis0, long long, (long long)i / (kGrid1 * kGrid2))
FIBO_GEN(fibo_pos_idx_axis1, long long, ((long long)i / kGrid2) % kGrid1)
FIBO_GEN(fibo_pos_idx_axis2, long long, (long long)i % kGrid2)
FIBO_GEN(fibo_cos_axis0, float, cosf(angle(i)))
FIBO_GEN(fibo_sin_axis0, float, sinf(angle(i)))
FIBO_GEN(fibo_cos_axis1, float, cosf(angle(i)))
FIBO_GEN(fibo_sin_axis1, float, sinf(angle(i)))
FIBO_GEN(fibo_cos_axis2, float, cosf(angle(i)))
FIBO_GEN(fibo_sin_axis2, float, sinf(angle(i)))
