// Structured inputs of dsa_topk_indexer_h64_d128_topk2048_ps64_fp8, pure functions of (count, seed):
//   seq_lens          the original's fixed SEQ_LENS tuple (31 sequences);
//   block_table       randperm(NUM_PAGES - 1) + 1 handed out page by page in sequence order, 0 past a
//                     sequence's pages (a seeded Feistel bijection stands for randperm);
//   k_index_cache     per 64-token page: 64 x 128 e4m3 bytes of randn, then 64 fp32 scales rand*0.5+0.5.
#include <cuda_fp8.h>
#include "mkb_random.cuh"

namespace {

constexpr int kBatch = 31;
constexpr int kPageSize = 64;
constexpr int kMaxNumPages = 43;
constexpr unsigned long long kNumPages = 11923;
constexpr int kHeadDim = 128;
constexpr int kPageBytes = kPageSize * (kHeadDim + 4);  // 8448
constexpr int kValueBytes = kPageSize * kHeadDim;       // 8192

__device__ const int kSeqLens[kBatch] = {63, 9,  2693, 212, 11,   25, 6,  50,  77,   22,  25, 10, 52,  76, 11, 30,
                                         1822, 25, 1034, 1811, 7, 13, 23, 1896, 13, 285, 18, 166, 16, 1421, 12};

__device__ unsigned long long grid_start() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ unsigned long long grid_step() { return (unsigned long long)gridDim.x * blockDim.x; }

} // namespace

extern "C" __global__ void gen_seq_lens(void *out, unsigned long long count, unsigned long long seed) {
  int *lens = static_cast<int *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) lens[i] = kSeqLens[i % kBatch];
}

extern "C" __global__ void gen_block_table(void *out, unsigned long long count, unsigned long long seed) {
  int *table = static_cast<int *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    const unsigned long long b = i / kMaxNumPages, slot = i % kMaxNumPages;
    int value = 0;
    if (b < kBatch) {
      unsigned long long cursor = 0;  // pages handed to the sequences before b
      for (unsigned long long s = 0; s < b; ++s) cursor += (kSeqLens[s] + kPageSize - 1) / kPageSize;
      const unsigned long long pages = (kSeqLens[b] + kPageSize - 1) / kPageSize;
      if (slot < pages) value = (int)mkb_random::permute_index(cursor + slot, kNumPages - 1, seed, 0) + 1;
    }
    table[i] = value;
  }
}

extern "C" __global__ void gen_k_index_cache(void *out, unsigned long long count, unsigned long long seed) {
  unsigned char *bytes = static_cast<unsigned char *>(out);
  for (unsigned long long i = grid_start(); i < count; i += grid_step()) {
    const unsigned long long page = i / kPageBytes;
    const unsigned o = (unsigned)(i % kPageBytes);
    unsigned char byte;
    if (o < kValueBytes) {
      // randn(...).to(float8_e4m3fn): one normal per value, rounded to nearest e4m3.
      const mkb_random::u32x4 w = mkb_random::random_words(seed, page * kValueBytes + o, 1);
      float z0, z1;
      mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z0, &z1);
      byte = (unsigned char)__nv_cvt_float_to_fp8(z0, __NV_SATFINITE, __NV_E4M3);
    } else {
      // rand() * 0.5 + 0.5 in fp32, stored little-endian: byte j of token t's scale.
      const unsigned token = (o - kValueBytes) / 4, j = (o - kValueBytes) % 4;
      const mkb_random::u32x4 w = mkb_random::random_words(seed, page * kPageSize + token, 2);
      const float u = (float)(w.v[0] >> 8) * 0x1p-24f;  // [0, 1)
      const float scale = u * 0.5f + 0.5f;
      byte = (unsigned char)((__float_as_uint(scale) >> (8 * j)) & 0xffu);
    }
    bytes[i] = byte;
  }
}
