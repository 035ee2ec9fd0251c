// Causal multi-scale retention, fused on the tensor cores (mma.sync m16n8k16 bf16, fp32 accumulation).
// One 128-thread block per (64 query rows, 128 value channels, b * h): 4096 blocks. Warp w owns query rows
// q0 + 16w .. + 15 and accumulates their 16 x 128 output in registers. For each key tile of 64 keys at or
// before the query tile (causal: later tiles are skipped), the block stages K (64 x 256) and V^T (128 x 64)
// in shared memory; each warp computes its 16 x 64 scores S = Q K^T (exact bf16 products, fp32 sums),
// multiplies by 1/16 (exact) and the decay 2^((i - j) * s_h) (zero above the diagonal), rounds the
// probabilities to bf16 in registers (the accumulator layout of one product is the operand layout of the
// next) and accumulates S V. Shared rows are padded by 8 elements so fragment loads are conflict-free.
#include <cuda_bf16.h>

constexpr int kSeq = 1024, kKey = 256, kValue = 512, kHeads = 8;
constexpr int kTileQ = 64, kTileK = 64, kCols = 128, kThreads = 128;
constexpr int kQStride = kKey + 8;     // bf16 elements per staged Q / K row
constexpr int kVStride = kTileK + 8;   // bf16 elements per staged V^T row

__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  const __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);  // .x = lo (lower address), .y = hi
  return *reinterpret_cast<const unsigned *>(&p);
}

__device__ __forceinline__ unsigned load32(const __nv_bfloat16 *p) { return *reinterpret_cast<const unsigned *>(p); }

extern "C" __global__ void __launch_bounds__(kThreads)
retention_fused(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
                const __nv_bfloat16 *__restrict__ v, __nv_bfloat16 *__restrict__ o, float scale) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *sQ = reinterpret_cast<__nv_bfloat16 *>(smem);            // [64][kQStride]
  __nv_bfloat16 *sK = sQ + kTileQ * kQStride;                              // [64][kQStride]
  __nv_bfloat16 *sV = sK + kTileK * kQStride;                              // [128][kVStride]: V^T
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, grp = lane / 4, quad = lane % 4;
  const int qt = blockIdx.x, c0 = blockIdx.y * kCols, bh = blockIdx.z, h = bh % kHeads;
  const int q0 = qt * kTileQ;
  const long long base_qk = (long long)bh * kSeq * kKey, base_v = (long long)bh * kSeq * kValue;
  // s_h = log2(1 - 2^(-5 - h)) as the reference computes it in fp32
  const float s_h = log2f(1.0f - powf(2.0f, -5.0f - (float)h));

  for (int e = tid; e < kTileQ * kKey / 8; e += kThreads) {
    const int r = e / (kKey / 8), c = (e % (kKey / 8)) * 8;
    *reinterpret_cast<uint4 *>(sQ + r * kQStride + c) =
        *reinterpret_cast<const uint4 *>(q + base_qk + (long long)(q0 + r) * kKey + c);
  }

  float acc[kCols / 8][4];
#pragma unroll
  for (int n = 0; n < kCols / 8; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
  const int row_a = warp * 16 + grp;  // this lane's rows in the tile: row_a and row_a + 8

  for (int kt = 0; kt <= qt; ++kt) {
    const int k0 = kt * kTileK;
    __syncthreads();  // the previous tile's K and V^T are no longer read (and Q is staged)
    for (int e = tid; e < kTileK * kKey / 8; e += kThreads) {
      const int r = e / (kKey / 8), c = (e % (kKey / 8)) * 8;
      *reinterpret_cast<uint4 *>(sK + r * kQStride + c) =
          *reinterpret_cast<const uint4 *>(k + base_qk + (long long)(k0 + r) * kKey + c);
    }
    for (int e = tid; e < kTileK * kCols / 8; e += kThreads) {
      const int r = e / (kCols / 8), c = (e % (kCols / 8)) * 8;  // key r, value channels c .. c + 7
      const uint4 raw = *reinterpret_cast<const uint4 *>(v + base_v + (long long)(k0 + r) * kValue + c0 + c);
      const __nv_bfloat16 *x = reinterpret_cast<const __nv_bfloat16 *>(&raw);
#pragma unroll
      for (int i = 0; i < 8; ++i) sV[(c + i) * kVStride + r] = x[i];
    }
    __syncthreads();

    // S = Q K^T for this warp's 16 rows and the tile's 64 keys: 8 n-tiles of 8 keys.
    float s[kTileK / 8][4];
#pragma unroll
    for (int n = 0; n < kTileK / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll 4
    for (int kc = 0; kc < kKey / 16; ++kc) {
      const int d = kc * 16 + quad * 2;
      unsigned a[4];
      a[0] = load32(sQ + row_a * kQStride + d);
      a[1] = load32(sQ + (row_a + 8) * kQStride + d);
      a[2] = load32(sQ + row_a * kQStride + d + 8);
      a[3] = load32(sQ + (row_a + 8) * kQStride + d + 8);
#pragma unroll
      for (int n = 0; n < kTileK / 8; ++n) {
        const __nv_bfloat16 *kr = sK + (n * 8 + grp) * kQStride + d;
        mma_bf16(s[n], a, load32(kr), load32(kr + 8));
      }
    }

    // scale, decay and the causal mask, then bf16 operands for P V.
    const int i0 = q0 + row_a, i1 = i0 + 8;
    unsigned p[kTileK / 16][4];
#pragma unroll
    for (int n = 0; n < kTileK / 8; ++n) {
      const int j = k0 + n * 8 + quad * 2;
      float w[4];
      w[0] = j <= i0 ? (s[n][0] * scale) * exp2f((float)(i0 - j) * s_h) : 0.0f;
      w[1] = j + 1 <= i0 ? (s[n][1] * scale) * exp2f((float)(i0 - j - 1) * s_h) : 0.0f;
      w[2] = j <= i1 ? (s[n][2] * scale) * exp2f((float)(i1 - j) * s_h) : 0.0f;
      w[3] = j + 1 <= i1 ? (s[n][3] * scale) * exp2f((float)(i1 - j - 1) * s_h) : 0.0f;
      // n-tile n is keys 8n .. 8n+7: k-chunk n / 2, low (even n) or high (odd n) half of the operand
      p[n / 2][(n % 2) * 2 + 0] = pack_bf16(w[0], w[1]);
      p[n / 2][(n % 2) * 2 + 1] = pack_bf16(w[2], w[3]);
    }

    // O += P V: 4 k-chunks of 16 keys, 16 n-tiles of 8 value channels.
#pragma unroll
    for (int kc = 0; kc < kTileK / 16; ++kc) {
      const int key = kc * 16 + quad * 2;
#pragma unroll
      for (int n = 0; n < kCols / 8; ++n) {
        const __nv_bfloat16 *vr = sV + (n * 8 + grp) * kVStride + key;
        mma_bf16(acc[n], p[kc], load32(vr), load32(vr + 8));
      }
    }
  }

  const long long out0 = base_v + (long long)(q0 + row_a) * kValue + c0;
#pragma unroll
  for (int n = 0; n < kCols / 8; ++n) {
    const int c = n * 8 + quad * 2;
    *reinterpret_cast<unsigned *>(o + out0 + c) = pack_bf16(acc[n][0], acc[n][1]);
    *reinterpret_cast<unsigned *>(o + out0 + 8LL * kValue + c) = pack_bf16(acc[n][2], acc[n][3]);
  }
}

/* mkb:plan
launch retention_fused grid(seq_len / 64, value_dim / 128, batch_size * num_heads) block(128)
  shared((64 * (key_dim + 8) * 2 + 128 * 72) * 2)
  args(q, k, v, o, f32(scale))
*/
