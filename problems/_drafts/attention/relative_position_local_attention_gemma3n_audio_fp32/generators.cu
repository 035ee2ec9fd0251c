// Structured inputs of relative_position_local_attention_gemma3n_audio_fp32.
//   mask:           valid_len[b] = randint(seq_len - max_backward, seq_len + 1); mask[b, t] = t >= valid_len[b]
//                   (True = padded frame), as the original's make_inputs draws it.
//   inv_timescales: deterministic, min_timescale * exp(arange(256) * -log(max / min) / max(256 - 1, 1)) in fp32.
#include "mkb_random.cuh"

namespace {
constexpr unsigned long long kSeqLen = 1721;
constexpr unsigned kMaxBackward = 12;
}

// One byte per element (bool): 1 where the frame is padding.
extern "C" __global__ void gemma3n_audio_padding_mask(void *out, unsigned long long count, unsigned long long seed) {
  unsigned char *m = static_cast<unsigned char *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long b = i / kSeqLen, t = i % kSeqLen;
    const mkb_random::u32x4 w = mkb_random::random_words(seed, b, 0x6d61736bu);
    const unsigned long long valid_len = kSeqLen - kMaxBackward + w.v[0] % (kMaxBackward + 1);  // in [1709, 1721]
    m[i] = t >= valid_len ? 1 : 0;
  }
}

// fp32, as torch computes it: the increment is a python float (double) used as an fp32 scalar,
// arange(256) * -increment rounds once, exp in fp32, times min_timescale = 1.0.
extern "C" __global__ void gemma3n_audio_inv_timescales(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  float *v = static_cast<float *>(out);
  const double increment = log(10000.0 / 1.0) / (double)(count > 1 ? count - 1 : 1);
  const float neg_inc = (float)(-increment);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    v[i] = 1.0f * expf((float)i * neg_inc);
}
