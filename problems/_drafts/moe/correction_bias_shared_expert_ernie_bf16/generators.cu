// Inputs of correction_bias_shared_expert_ernie_bf16 drawn as the original's make_inputs draws them:
//   gate_weight             = randn(64, 8192) fp32 / sqrt(8192)
//   e_score_correction_bias = randn(1, 64) fp32 * 0.02
//   hidden_states           = randn(64, 128, 8192) bf16, and every token whose routing is within
//                             DECISION_MARGIN of a tie redrawn: the gap between the 8th and 9th largest
//                             softmax(hidden @ gate_weight.T) + bias (fp32) must be at least 1e-4.
// hidden_states' redraw needs gate_weight and the bias, which are other inputs: the harness hands each
// generator only its own seed, derive_seed(draw, index) = mix64(draw ^ mix64(index + 1))
// (src/core/random.hpp); mix64 is a bijection, so every generator recovers the draw's seed and
// recomputes the values it needs. (Should derive_seed change, the inputs stay valid draws but the
// margin would be measured against other weights: the anchor would still be right, only the margin
// guarantee lost.)
// Candidate c of token t (c = 0 .. REDRAW_LIMIT) is drawn from its own counters; the first stable one is
// the token. The original redraws all unstable rows of the draw up to 16 times and raises if any is
// left; a token still unstable after 16 redraws keeps its 17th candidate here (about 1e-13 per token).
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {

constexpr int kHidden = 8192;
constexpr int kExperts = 64;
constexpr int kTopK = 8;
constexpr int kRedrawLimit = 16;
constexpr float kMargin = 1e-4f;
constexpr unsigned kStreamHidden = 31, kStreamGate = 32, kStreamBias = 33;
constexpr unsigned long long kIndexHidden = 0, kIndexGate = 1, kIndexBias = 2;

__device__ unsigned long long mix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ unsigned long long unmix64(unsigned long long x) {
  x ^= (x >> 31) ^ (x >> 62);
  x *= 0x319642b2d24d8ec3ull;  // inverse of 0x94d049bb133111eb mod 2^64
  x ^= (x >> 27) ^ (x >> 54);
  x *= 0x96de1b173f119089ull;  // inverse of 0xbf58476d1ce4e5b9
  x ^= (x >> 30) ^ (x >> 60);
  return x - 0x9e3779b97f4a7c15ull;
}

__device__ unsigned long long draw_seed(unsigned long long input_seed, unsigned long long index) {
  return unmix64(input_seed) ^ mix64(index + 1);
}

// Four standard normals from one Philox block: elements 4 g .. 4 g + 3 of a stream.
__device__ void normals4(unsigned long long draw, unsigned long long g, unsigned stream, float (&z)[4]) {
  const mkb_random::u32x4 w = mkb_random::random_words(draw, g, stream);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z[0], &z[1]);
  mkb_random::box_muller(mkb_random::uniform_open(w.v[2]), mkb_random::uniform_open(w.v[3]), &z[2], &z[3]);
}

// gate_weight[e, k] for k = 4 g4 .. 4 g4 + 3 of row e: fp32(z / 90.50967) (torch divides by sqrt(8192)).
__device__ void gate4(unsigned long long draw, int e, int g4, float (&w)[4]) {
  normals4(draw, (unsigned long long)e * (kHidden / 4) + g4, kStreamGate, w);
  for (int i = 0; i < 4; ++i) w[i] = __fdiv_rn(w[i], 90.50966799187808f);
}

// Candidate c of hidden_states[t, 4 g4 .. 4 g4 + 3], each randn rounded to bf16.
__device__ void hidden4(unsigned long long draw, long long t, int c, int g4, float (&x)[4]) {
  normals4(draw, ((unsigned long long)t * (kRedrawLimit + 1) + c) * (kHidden / 4) + g4, kStreamHidden, x);
  for (int i = 0; i < 4; ++i) x[i] = mkb_ops::round_to<bf16>(x[i]);
}

__device__ float bias_of(unsigned long long draw, int e) {
  float z[4];
  normals4(draw, (unsigned long long)(e / 4), kStreamBias, z);
  return __fmul_rn(z[e % 4], 0.02f);
}

} // namespace

extern "C" __global__ void ernie_gate_weight(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, kIndexGate);
  float *w = static_cast<float *>(out);
  for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; g < count / 4;
       g += (unsigned long long)gridDim.x * blockDim.x) {
    float v[4];
    gate4(draw, (int)(g / (kHidden / 4)), (int)(g % (kHidden / 4)), v);
    for (int i = 0; i < 4; ++i) w[4 * g + i] = v[i];
  }
}

extern "C" __global__ void ernie_correction_bias(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, kIndexBias);
  float *b = static_cast<float *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    b[i] = bias_of(draw, (int)i);
}

// hidden_states: 256 threads, 8 tokens at a time (one per warp). For each round the block regenerates
// gate_weight 128 columns at a time into shared memory and every warp whose token is not settled forms
// its candidate's 64 logits (lane e holds experts e and e + 32), then tests the margin.
extern "C" __global__ void __launch_bounds__(256) ernie_hidden_states(void *out, unsigned long long count, unsigned long long seed) {
  constexpr int kChunk = 128;
  __shared__ float wt[kExperts][kChunk + 1];
  __shared__ float xs[8][kChunk];
  __shared__ int pending;
  const unsigned long long draw = draw_seed(seed, kIndexHidden);
  bf16 *hidden = static_cast<bf16 *>(out);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const long long tokens = (long long)(count / kHidden);
  const float b0 = bias_of(draw, lane), b1 = bias_of(draw, lane + 32);
  for (long long t0 = (long long)blockIdx.x * 8; t0 < tokens; t0 += (long long)gridDim.x * 8) {
    const long long t = t0 + warp;
    const bool mine = t < tokens;
    int c = 0;
    bool done = !mine;
    for (;;) {
      __syncthreads();
      if (threadIdx.x == 0) pending = 0;
      __syncthreads();
      if (!done) atomicAdd(&pending, 1);
      __syncthreads();
      if (pending == 0) break;
      float l0 = 0.0f, l1 = 0.0f;
      for (int k0 = 0; k0 < kHidden; k0 += kChunk) {
        __syncthreads();
        for (int i = threadIdx.x; i < kExperts * kChunk / 4; i += blockDim.x) {
          const int e = i / (kChunk / 4), j = i % (kChunk / 4);
          float v[4];
          gate4(draw, e, (k0 / 4) + j, v);
          for (int q = 0; q < 4; ++q) wt[e][4 * j + q] = v[q];
        }
        if (!done) {
          float v[4];
          hidden4(draw, t, c, k0 / 4 + lane, v);
          for (int q = 0; q < 4; ++q) xs[warp][4 * lane + q] = v[q];
        }
        __syncthreads();
        if (!done)
          for (int k = 0; k < kChunk; ++k) {
            l0 = fmaf(xs[warp][k], wt[lane][k], l0);
            l1 = fmaf(xs[warp][k], wt[lane + 32][k], l1);
          }
      }
      if (!done) {
        float m = fmaxf(l0, l1);
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        float p0 = expf(l0 - m), p1 = expf(l1 - m), s = p0 + p1;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        float v[2] = {p0 / s + b0, p1 / s + b1};
        float eighth = 0.0f, ninth = 0.0f;
        for (int k = 0; k <= kTopK; ++k) {
          float best = -__int_as_float(0x7f800000);
          int where = 1 << 30;
          for (int j = 0; j < 2; ++j)
            if (v[j] > best) { best = v[j]; where = lane + 32 * j; }
          for (int o = 16; o > 0; o >>= 1) {
            const float ob = __shfl_xor_sync(0xffffffffu, best, o);
            const int ow = __shfl_xor_sync(0xffffffffu, where, o);
            if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
          }
          if (k == kTopK - 1) eighth = best;
          if (k == kTopK) ninth = best;
          if ((where & 31) == lane) v[where >> 5] = -__int_as_float(0x7f800000);
        }
        if (eighth - ninth >= kMargin || c == kRedrawLimit) done = true;
        else ++c;
        if (done)
          for (int g4 = lane; g4 < kHidden / 4; g4 += 32) {
            float x[4];
            hidden4(draw, t, c, g4, x);
            for (int q = 0; q < 4; ++q) hidden[t * kHidden + 4 * g4 + q] = __float2bfloat16_rn(x[q]);
          }
      }
    }
  }
}
