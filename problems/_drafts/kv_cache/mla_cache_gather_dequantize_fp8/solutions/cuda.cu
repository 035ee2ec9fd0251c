// Paged MLA cache gather + e4m3 dequantization in one launch. Thread i handles 8 consecutive bytes
// (chunk c = i % 72) of output row t = i / 72: it finds the row's request from the prefix sums of
// seq_lens (computed once per CTA in shared memory), reads the 8 e4m3 bytes of the entry with one
// 8-byte load, widens them to fp32 exactly (e4m3 -> half2 -> float2), multiplies by the fp32 scale
// (one rounding, as reference.md) and writes 32 bytes with two 16-byte stores.
#include <cuda_fp16.h>
#include <cuda_fp8.h>

constexpr int kNumRequests = 8, kBlockSize = 16, kEntry = 576, kTableWidth = 1024;
constexpr int kChunk = 8, kChunks = kEntry / kChunk;  // 72 chunks of 8 bytes per entry

__device__ __forceinline__ float2 e4m3x2_to_float2(unsigned short pair) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)pair, __NV_E4M3);
  return __half22float2(*reinterpret_cast<const __half2 *>(&h));
}

extern "C" __global__ void __launch_bounds__(256)
gather_dequant(const unsigned char *__restrict__ src_cache, const int *__restrict__ block_table,
               const int *__restrict__ seq_lens, float *__restrict__ gathered, float scale, int total_items) {
  __shared__ int bounds[kNumRequests + 1];
  if (threadIdx.x == 0) {
    int s = 0;
    bounds[0] = 0;
    for (int r = 0; r < kNumRequests; ++r) bounds[r + 1] = (s += seq_lens[r]);
  }
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total_items) return;
  const int t = i / kChunks, c = i - t * kChunks;
  int r = 0;
#pragma unroll
  for (int k = 1; k < kNumRequests; ++k) r += t >= bounds[k];
  const int p = t - bounds[r];
  const long long block = __ldg(block_table + r * kTableWidth + p / kBlockSize);
  const long long entry = block * kBlockSize + p % kBlockSize;
  const uint2 raw = __ldg(reinterpret_cast<const uint2 *>(src_cache + entry * kEntry) + c);
  const float2 a = e4m3x2_to_float2((unsigned short)(raw.x & 0xffffu));
  const float2 b = e4m3x2_to_float2((unsigned short)(raw.x >> 16));
  const float2 d = e4m3x2_to_float2((unsigned short)(raw.y & 0xffffu));
  const float2 e = e4m3x2_to_float2((unsigned short)(raw.y >> 16));
  float4 *out = reinterpret_cast<float4 *>(gathered + (long long)t * kEntry + c * kChunk);
  out[0] = make_float4(a.x * scale, a.y * scale, b.x * scale, b.y * scale);
  out[1] = make_float4(d.x * scale, d.y * scale, e.x * scale, e.y * scale);
}

/* mkb:plan
launch gather_dequant grid(ceil_div(total_tokens * 72, 256)) block(256)
  args(src_cache, block_table, seq_lens, gathered, f32(scale), i32(total_tokens * 72))
*/
