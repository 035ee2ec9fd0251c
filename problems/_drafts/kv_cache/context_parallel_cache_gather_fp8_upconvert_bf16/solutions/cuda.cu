// Paged gather + FP8 upconversion in one launch: one warp per output row (token). Lane l reads the 16
// e4m3 bytes [16 l, 16 l + 16) of the entry with one 16-byte load (they lie in group l / 8), widens them
// exactly (e4m3 -> half2 -> float2), multiplies by the group's fp32 scale in fp32, rounds to bf16 (the
// two roundings of reference.md) and writes 32 bytes; lanes 0..7 also copy the 128 rope bytes.
// Entries are 656 = 16 * 41 bytes, so every 16-byte access is aligned.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

constexpr int kNumRequests = 3, kBlockSize = 64, kEntryBytes = 656, kTableWidth = 10;
constexpr int kNope = 512, kRopeOffset = 528, kOut = 576;

__device__ __forceinline__ float2 e4m3x2_to_float2(unsigned short pair) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)pair, __NV_E4M3);
  return __half22float2(*reinterpret_cast<const __half2 *>(&h));
}

// Four e4m3 values (one 32-bit word) times the scale, as two packed bf16 pairs.
__device__ __forceinline__ uint2 dequant4(unsigned word, float scale) {
  const float2 a = e4m3x2_to_float2((unsigned short)(word & 0xffffu));
  const float2 b = e4m3x2_to_float2((unsigned short)(word >> 16));
  const __nv_bfloat162 lo = __floats2bfloat162_rn(a.x * scale, a.y * scale);
  const __nv_bfloat162 hi = __floats2bfloat162_rn(b.x * scale, b.y * scale);
  return make_uint2(*reinterpret_cast<const unsigned *>(&lo), *reinterpret_cast<const unsigned *>(&hi));
}

extern "C" __global__ void __launch_bounds__(128)
gather_upconvert(const unsigned char *__restrict__ cache, const int *__restrict__ block_table,
                 const int *__restrict__ seq_lens, __nv_bfloat16 *__restrict__ gathered, int total_tokens) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= total_tokens) return;
  int first = 0, r = 0;
  while (r < kNumRequests - 1 && row >= first + __ldg(seq_lens + r)) first += __ldg(seq_lens + r++);
  const int p = row - first;
  const long long block = __ldg(block_table + r * kTableWidth + p / kBlockSize);
  const unsigned char *entry = cache + (block * kBlockSize + p % kBlockSize) * kEntryBytes;
  const uint4 raw = __ldg(reinterpret_cast<const uint4 *>(entry) + lane);
  const float scale = __ldg(reinterpret_cast<const float *>(entry + kNope) + lane / 8);
  uint4 rope;
  if (lane < 8) rope = __ldg(reinterpret_cast<const uint4 *>(entry + kRopeOffset) + lane);
  const uint2 a = dequant4(raw.x, scale), b = dequant4(raw.y, scale), c = dequant4(raw.z, scale),
              d = dequant4(raw.w, scale);
  uint4 *out = reinterpret_cast<uint4 *>(gathered + (long long)row * kOut);
  out[2 * lane] = make_uint4(a.x, a.y, b.x, b.y);
  out[2 * lane + 1] = make_uint4(c.x, c.y, d.x, d.y);
  if (lane < 8) out[kNope / 8 + lane] = rope;
}

/* mkb:plan
launch gather_upconvert grid(ceil_div(total_tokens, 4)) block(128) args(cache, block_table, seq_lens, gathered, i32(total_tokens))
*/
