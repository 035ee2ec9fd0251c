// Structured inputs of mla_cache_gather_dequantize_fp8, pure functions of (count, seed).
//   src_cache: the original draws source = randn(fp16) and stores (source / 0.1).clamp(-448, 448)
//              cast to e4m3, as bytes. Per byte: one standard normal (Philox + Box-Muller), rounded to
//              fp16; times 10.0f in fp32 (PyTorch divides a Half tensor by a Python scalar as a product
//              with the fp32 reciprocal, and 1.0f / 0.1f rounds to exactly 10.0f), rounded to fp16;
//              then rounded to nearest-even e4m3. The clamp never acts (|10 z| < 448).
//   seq_lens:  cuts = sorted(randperm(TOTAL_TOKENS - 1)[:NUM_REQUESTS - 1]) + 1, then the differences
//              of [0, cuts, TOTAL_TOKENS]: a random composition of 4096 into 8 positive parts. The
//              first 7 values of a seeded bijection of [0, 4095) (mkb_random::permute_index) stand for
//              randperm's first 7; every thread recomputes and sorts the 7 cuts.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include "mkb_random.cuh"

namespace {
constexpr int kNumRequests = 8;          // NUM_REQUESTS
constexpr unsigned long long kTotalTokens = 4096;  // TOTAL_TOKENS

__device__ unsigned long long grid_start() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned long long grid_step() { return (unsigned long long)gridDim.x * blockDim.x; }
} // namespace

extern "C" __global__ void gen_src_cache(void *out, unsigned long long count, unsigned long long seed) {
  unsigned char *bytes = static_cast<unsigned char *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 1);
    float z0, z1;
    mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
    const __half source = __float2half_rn(z0);                           // randn(..., dtype=float16)
    const __half divided = __float2half_rn(__half2float(source) * 10.0f);  // source / SCALE
    float value = __half2float(divided);
    value = fminf(fmaxf(value, -448.0f), 448.0f);                         // .clamp(-448, 448)
    bytes[i] = (unsigned char)__nv_cvt_float_to_fp8(value, __NV_SATFINITE, __NV_E4M3);
  }
}

extern "C" __global__ void gen_seq_lens(void *out, unsigned long long count, unsigned long long seed) {
  int *lens = static_cast<int *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    long long bounds[kNumRequests + 1];
    bounds[0] = 0;
    bounds[kNumRequests] = (long long)kTotalTokens;
    for (int k = 0; k < kNumRequests - 1; ++k)
      bounds[k + 1] = (long long)mkb_random::permute_index(k, kTotalTokens - 1, seed, 0) + 1;
    for (int a = 1; a < kNumRequests; ++a)  // insertion sort of the cuts bounds[1 .. 7]
      for (int b = a; b > 1 && bounds[b - 1] > bounds[b]; --b) {
        const long long t = bounds[b];
        bounds[b] = bounds[b - 1];
        bounds[b - 1] = t;
      }
    const int r = (int)(i % kNumRequests);
    lens[i] = (int)(bounds[r + 1] - bounds[r]);
  }
}
