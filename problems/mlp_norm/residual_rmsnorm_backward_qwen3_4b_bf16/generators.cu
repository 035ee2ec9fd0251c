// The original draws its four inputs from one forward pass (make_inputs of problem #38):
//   x = randn(B, S, H); x = x * (rand(B, S, 1) * 1.5 + 0.5)             all bf16, each op rounded
//   rstd = rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)                bf16
//   normalized = x * rstd                                               bf16
//   weight = randn(H) * 0.1 + 1.0                                       bf16
//   grad_output = randn(B, S, H) + 0.5 * normalized * weight            bf16
// so grad_output is correlated with normalized * weight, which makes the row term of the backward
// (normalized * mean(grad_output * weight * normalized)) O(1) and a kernel that drops it fail.
// The harness hands each generator only its own seed, derive_seed(draw, index) = mix64(draw ^
// mix64(index + 1)) (src/core/random.hpp); mix64 is a bijection, so every generator recovers the draw's
// seed from its own and all four read the same virtual draw. Should derive_seed change, the inputs stay
// random and valid, only no longer correlated.
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

namespace {

constexpr int kHidden = 2560;

__device__ unsigned long long mix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ unsigned long long unmix64(unsigned long long x) {
  x ^= (x >> 31) ^ (x >> 62);
  x *= 0x319642b2d24d8ec3ull;  // the inverse of 0x94d049bb133111eb modulo 2^64
  x ^= (x >> 27) ^ (x >> 54);
  x *= 0x96de1b173f119089ull;  // the inverse of 0xbf58476d1ce4e5b9
  x ^= (x >> 30) ^ (x >> 60);
  return x - 0x9e3779b97f4a7c15ull;
}

// The draw's seed, from the seed of input `index`.
__device__ unsigned long long draw_seed(unsigned long long input_seed, unsigned long long index) {
  return unmix64(input_seed) ^ mix64(index + 1);
}

// Standard normal number `i` of stream `stream` of the draw, rounded to bf16 (randn(..., dtype=bf16)).
__device__ float normal_bf16(unsigned long long draw, unsigned long long i, unsigned stream) {
  const mkb_random::u32x4 w = mkb_random::random_words(draw, i, stream);
  float z0, z1;
  mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
  return mkb_ops::round_to<bf16>(z0);
}

constexpr unsigned kStreamX = 1, kStreamScale = 2, kStreamWeight = 3, kStreamGrad = 4;

__device__ float weight_at(unsigned long long draw, int c) {
  const float z = normal_bf16(draw, c, kStreamWeight);
  return mkb_ops::round_to<bf16>(mkb_ops::round_to<bf16>(z * 0.1f) + 1.0f);
}

// x[row, c] after the per-token scale: bf16(bf16(randn) * bf16(bf16(rand * 1.5) + 0.5)).
__device__ float x_at(unsigned long long draw, long long row, int c, float scale) {
  return mkb_ops::round_to<bf16>(normal_bf16(draw, (unsigned long long)row * kHidden + c, kStreamX) * scale);
}

__device__ float scale_of(unsigned long long draw, long long row) {
  const mkb_random::u32x4 w = mkb_random::random_words(draw, row, kStreamScale);
  const float u = mkb_ops::round_to<bf16>((float)(w.v[0] >> 8) * 0x1p-24f);  // rand: [0, 1)
  return mkb_ops::round_to<bf16>(mkb_ops::round_to<bf16>(u * 1.5f) + 0.5f);
}

// rstd of a row, computed by one whole warp (every lane gets it): bf16 pow, fp32 mean rounded to bf16,
// bf16 + 1e-6, bf16 rsqrt.
__device__ float rstd_of(unsigned long long draw, long long row, float scale, int lane) {
  float sum = 0.0f;
  for (int c = lane; c < kHidden; c += 32) {
    const float x = x_at(draw, row, c, scale);
    sum += mkb_ops::round_to<bf16>(x * x);
  }
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float mean = mkb_ops::round_to<bf16>(sum / kHidden);
  return mkb_ops::round_to<bf16>(rsqrtf(mkb_ops::round_to<bf16>(mean + 1e-6f)));
}

// One warp per row, rows grid-strided over the launch's warps.
__device__ long long first_warp() { return ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; }
__device__ long long warp_count() { return (long long)gridDim.x * blockDim.x / 32; }

} // namespace

// Input 0: grad_output = bf16(randn + bf16(bf16(0.5 * normalized) * weight)).
extern "C" __global__ void rmsnorm_bwd_grad_output(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, 0);
  bf16 *g = static_cast<bf16 *>(out);
  const int lane = threadIdx.x % 32;
  for (long long row = first_warp(); row < (long long)(count / kHidden); row += warp_count()) {
    const float scale = scale_of(draw, row);
    const float rstd = rstd_of(draw, row, scale, lane);
    for (int c = lane; c < kHidden; c += 32) {
      const float n = mkb_ops::round_to<bf16>(x_at(draw, row, c, scale) * rstd);
      const float nw = mkb_ops::round_to<bf16>(mkb_ops::round_to<bf16>(0.5f * n) * weight_at(draw, c));
      const float z = normal_bf16(draw, (unsigned long long)row * kHidden + c, kStreamGrad);
      g[row * kHidden + c] = mkb_ops::store<bf16>(z + nw);
    }
  }
}

// Input 1: normalized = bf16(x * rstd).
extern "C" __global__ void rmsnorm_bwd_normalized(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, 1);
  bf16 *n = static_cast<bf16 *>(out);
  const int lane = threadIdx.x % 32;
  for (long long row = first_warp(); row < (long long)(count / kHidden); row += warp_count()) {
    const float scale = scale_of(draw, row);
    const float rstd = rstd_of(draw, row, scale, lane);
    for (int c = lane; c < kHidden; c += 32) n[row * kHidden + c] = mkb_ops::store<bf16>(x_at(draw, row, c, scale) * rstd);
  }
}

// Input 2: rstd, one per row.
extern "C" __global__ void rmsnorm_bwd_rstd(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, 2);
  bf16 *r = static_cast<bf16 *>(out);
  const int lane = threadIdx.x % 32;
  for (long long row = first_warp(); row < (long long)count; row += warp_count()) {
    const float rstd = rstd_of(draw, row, scale_of(draw, row), lane);
    if (lane == 0) r[row] = mkb_ops::store<bf16>(rstd);
  }
}

// Input 3: weight = bf16(bf16(randn * 0.1) + 1.0).
extern "C" __global__ void rmsnorm_bwd_weight(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long draw = draw_seed(seed, 3);
  bf16 *w = static_cast<bf16 *>(out);
  for (unsigned long long c = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; c < count;
       c += (unsigned long long)gridDim.x * blockDim.x)
    w[c] = mkb_ops::store<bf16>(weight_at(draw, (int)c));
}
