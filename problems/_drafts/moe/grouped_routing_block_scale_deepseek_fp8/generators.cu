// Structured inputs of grouped_routing_block_scale_deepseek_fp8, pure functions of (count, seed):
//   routing_bias    the original's fixed table: BIAS_BASE = 4.9375 for every expert, BIAS_HIGH = 4.96875
//                   for the 103 experts of _BIAS_HIGH_EXPERTS (both exact in bf16);
//   routing_logits  per token, randn * LOGITS_STD + LOGITS_MEAN in fp32, rounded to bf16 and back, and
//                   redrawn while the token's routing is within DECISION_MARGIN of a tie: the gap between
//                   the 4th and 5th group score or between the 8th and 9th biased score of the kept
//                   groups (computed in fp32 as the original's _unstable_rows does). Candidate c of a row
//                   (c = 0 .. REDRAW_LIMIT) is drawn from its own counters; the first stable candidate is
//                   the row. The original redraws the unstable rows of the whole draw up to 16 times and
//                   raises if any is left; here a row still unstable after 16 redraws keeps its 17th
//                   candidate (a row needs 17 candidates with probability below 1e-30).
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {

constexpr int kExperts = 256;
constexpr int kGroups = 8;
constexpr int kPerGroup = kExperts / kGroups;  // 32
constexpr int kTopKGroups = 4;
constexpr int kTopK = 8;
constexpr int kRedrawLimit = 16;
constexpr float kLogitsMean = -1.6706f;
constexpr float kLogitsStd = 0.6560f;
constexpr float kDecisionMargin = 1e-4f;
constexpr float kBiasBase = 4.9375f;
constexpr float kBiasHigh = 4.96875f;
constexpr unsigned kStreamLogits = 21;

__device__ const unsigned char kBiasHighExperts[103] = {
    3,   6,   7,   9,   10,  11,  16,  17,  18,  23,  30,  31,  36,  37,  41,  42,  43,  44,  46,  47,  48,
    49,  54,  55,  56,  58,  61,  62,  63,  66,  67,  68,  69,  72,  74,  75,  79,  80,  81,  82,  83,  84,
    87,  90,  92,  96,  100, 101, 102, 104, 105, 108, 109, 110, 112, 114, 119, 120, 123, 125, 126, 127, 131,
    136, 147, 151, 152, 153, 154, 157, 159, 167, 170, 171, 174, 183, 185, 195, 196, 197, 200, 203, 214, 216,
    217, 219, 222, 223, 226, 230, 231, 234, 235, 236, 237, 238, 240, 241, 242, 243, 253};

__device__ float bias_of(int e) {
  for (int i = 0; i < 103; ++i)
    if (kBiasHighExperts[i] == e) return kBiasHigh;
  return kBiasBase;
}

// Candidate `c` of logit [t, e]: bf16(fp32(randn * std) + mean), as fp32.
__device__ float logit_at(unsigned long long seed, long long t, int e, int c) {
  const unsigned long long counter = ((unsigned long long)t * (kRedrawLimit + 1) + c) * kExperts + e;
  const mkb_random::u32x4 w = mkb_random::random_words(seed, counter, kStreamLogits);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return mkb_ops::round_to<bf16>(__fadd_rn(__fmul_rn(z0, kLogitsStd), kLogitsMean));
}

// Lane l of a warp holds experts 8 l .. 8 l + 7, so group j is lanes 4 j .. 4 j + 3.
// Returns whether the candidate's routing keeps DECISION_MARGIN at both cuts (every lane agrees).
__device__ bool stable(const float (&x)[8], const float (&bias)[8], int lane) {
  float sb[8];
  for (int i = 0; i < 8; ++i) sb[i] = 1.0f / (1.0f + expf(-x[i])) + bias[i];
  // Top two of the lane's 8, then of the group's 4 lanes.
  float a = -__int_as_float(0x7f800000), b = a;
  for (int i = 0; i < 8; ++i) {
    if (sb[i] > a) { b = a; a = sb[i]; }
    else if (sb[i] > b) b = sb[i];
  }
  for (int o = 1; o < 4; o <<= 1) {
    const float oa = __shfl_xor_sync(0xffffffffu, a, o), ob = __shfl_xor_sync(0xffffffffu, b, o);
    const float hi = fmaxf(a, oa), lo = fmaxf(fminf(a, oa), fmaxf(b, ob));
    a = hi;
    b = lo;
  }
  // Every lane gathers the 8 group scores (the 4 lanes of a group hold the same value).
  float gs[kGroups];
  for (int j = 0; j < kGroups; ++j) gs[j] = __shfl_sync(0xffffffffu, a + b, 4 * j);
  // Rank the groups: descending score, ties to the lower group (the gap check makes ties irrelevant).
  bool kept[kGroups];
  float sorted4 = 0.0f, sorted5 = 0.0f;
  for (int j = 0; j < kGroups; ++j) {
    int rank = 0;
    for (int i = 0; i < kGroups; ++i) rank += (gs[i] > gs[j]) || (gs[i] == gs[j] && i < j);
    kept[j] = rank < kTopKGroups;
    if (rank == kTopKGroups - 1) sorted4 = gs[j];
    if (rank == kTopKGroups) sorted5 = gs[j];
  }
  const bool group_ok = sorted4 - sorted5 >= kDecisionMargin;
  // 8th and 9th largest biased score over the kept groups' experts.
  const bool mine = kept[lane >> 2];
  float v[8];
  for (int i = 0; i < 8; ++i) v[i] = mine ? sb[i] : -__int_as_float(0x7f800000);
  float eighth = 0.0f, ninth = 0.0f;
  for (int k = 0; k < kTopK + 1; ++k) {
    float best = -__int_as_float(0x7f800000);
    int where = 1 << 30;
    for (int i = 0; i < 8; ++i)
      if (v[i] > best) { best = v[i]; where = 8 * lane + i; }
    for (int o = 16; o > 0; o >>= 1) {
      const float ob = __shfl_xor_sync(0xffffffffu, best, o);
      const int ow = __shfl_xor_sync(0xffffffffu, where, o);
      if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
    }
    if (k == kTopK - 1) eighth = best;
    if (k == kTopK) ninth = best;
    if ((where >> 3) == lane) v[where & 7] = -__int_as_float(0x7f800000);
  }
  return group_ok && (eighth - ninth >= kDecisionMargin);
}

} // namespace

extern "C" __global__ void gen_routing_bias(void *out, unsigned long long count, unsigned long long seed) {
  bf16 *bias = static_cast<bf16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    bias[i] = __float2bfloat16_rn(bias_of((int)(i % kExperts)));
}

// routing_logits [seq_len, 256] fp32: one warp per token.
extern "C" __global__ void gen_routing_logits(void *out, unsigned long long count, unsigned long long seed) {
  float *logits = static_cast<float *>(out);
  const int lane = threadIdx.x & 31;
  float bias[8];
  for (int i = 0; i < 8; ++i) bias[i] = bias_of(8 * lane + i);
  const long long rows = (long long)(count / kExperts);
  for (long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; t < rows;
       t += (long long)gridDim.x * blockDim.x / 32) {
    float x[8];
    for (int c = 0; c <= kRedrawLimit; ++c) {
      for (int i = 0; i < 8; ++i) x[i] = logit_at(seed, t, 8 * lane + i, c);
      if (stable(x, bias, lane)) break;
    }
    for (int i = 0; i < 8; ++i) logits[t * kExperts + 8 * lane + i] = x[i];
  }
}
