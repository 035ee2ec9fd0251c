// The rotary tables of problem #10 (make_inputs of the original): for positions s = 0..seq_len-1 and
// d in [0, head_dim), with half = head_dim / 2 = 64,
//   inv_freq[i] = 1 / rope_theta^(i / half)          (fp32, as torch computes it)
//   freq        = fp32(s * inv_freq[d % half])       (torch.outer, then cat((freqs, freqs), -1))
//   cos[b, s, d] = cos(freq), sin[b, s, d] = sin(freq), the same for every batch row b.
// Deterministic: the seed is not used. The fp32 steps are emulated (theta^e and the reciprocal rounded
// to fp32, the product rounded to fp32); cos and sin of the fp32 angle are computed in double and rounded
// once, so a table entry may differ from eager PyTorch's fp32 cos by an ulp, an input difference only.
// The extents are the spec's: head_dim = 128, seq_len = 256, rope_theta = 1e6 (generators see only
// (count, seed)); count = batch_size * seq_len * head_dim.

namespace {
constexpr int kHeadDim = 128, kHalf = 64, kSeqLen = 256;
constexpr double kRopeTheta = 1000000.0;

__device__ float rope_angle(unsigned long long i) {
  const int d = (int)(i % kHeadDim);
  const int s = (int)((i / kHeadDim) % kSeqLen);
  const float e = (float)(d % kHalf) / (float)kHalf;             // idx / half_dim, exact
  const float p = (float)pow(kRopeTheta, (double)e);             // ROPE_THETA ** e, rounded to fp32
  const float inv_freq = __frcp_rn(p);                           // 1.0 / p, rounded to fp32
  return __fmul_rn((float)s, inv_freq);                          // outer product, rounded to fp32
}
} // namespace

extern "C" __global__ void rope_cos_table(void *out, unsigned long long count, unsigned long long seed) {
  float *o = static_cast<float *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    o[i] = (float)cos((double)rope_angle(i));
}

extern "C" __global__ void rope_sin_table(void *out, unsigned long long count, unsigned long long seed) {
  float *o = static_cast<float *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    o[i] = (float)sin((double)rope_angle(i));
}
