// grouped_routing_block_scale_deepseek_fp8, fused:
//   1. routing, a warp per token (fp32, as the reference): the token's local experts get a row in their
//      list (atomic slots; the order inside an expert is immaterial) and their weight;
//   2. offsets of each expert's rows in the compact per-pair buffers;
//   3. GEMM1 on the FP8 tensor cores (mma.sync m16n8k32 e4m3, exact fp8 products): each 128-wide K block
//      is accumulated on its own and added into fp32 with its two scales (the token's activation scale
//      times the weight block's scale), up and gate tiles computed together (64 + 64 rows of W13
//      interleaved by 8), h = silu(gate) * up stored in bf16;
//   4. GEMM2 on the bf16 tensor cores: W2's fp8 values are converted to bf16 with their block scale
//      folded in (one rounding) while forming fragments; the result times the routing weight in bf16;
//   5. per token, its local experts' rows summed in fp32, rounded once (zero for a token with none).
// Fragments come from 128-bit shared loads: within a K block the MMA's k order is a fixed permutation of
// the stored order, the same for A and B, which leaves every dot product unchanged.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

typedef __nv_bfloat16 bf16;

namespace {

constexpr int kExperts = 256, kLocal = 32, kOffset = 32, kTopK = 8;
constexpr int kHidden = 7168, kInter = 2048;
constexpr float kScaling = 2.5f;

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp4(unsigned dst, const void *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
__device__ __forceinline__ uint4 lds128(unsigned addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}
__device__ __forceinline__ void mma_fp8(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_bf16(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
// two e4m3 bytes (low byte first) -> bf16x2 of value * s
__device__ __forceinline__ unsigned fp8x2_bf16x2(unsigned short v, float s) {
  const __half2_raw hr = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)v, __NV_E4M3);
  __half2 h;
  *reinterpret_cast<__half2_raw *>(&h) = hr;
  const float2 f = __half22float2(h);
  const __nv_bfloat162 b = __floats2bfloat162_rn(f.x * s, f.y * s);
  return *reinterpret_cast<const unsigned *>(&b);
}
__device__ __forceinline__ unsigned reg(const uint4 &v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// 128-byte rows: chunk c (0..7) of row r, the upper half swapped on odd rows (conflict-free 128-bit loads)
__device__ __forceinline__ unsigned swz128(int r, int c) { return (unsigned)(r * 128 + ((c ^ ((r & 1) << 2)) << 4)); }
// 256-byte rows: chunk c (0..15) of row r, neighbours swapped on odd rows
__device__ __forceinline__ unsigned swz256(int r, int c) { return (unsigned)(r * 256 + ((c ^ (r & 1)) << 4)); }

// Finds the expert and tile of this CTA: experts in order, n-tiles, m-tiles fastest.
__device__ __forceinline__ bool locate(const int *count, int nt, int &e, int &m0, int &n_tile) {
  int id = blockIdx.x;
  for (e = 0; e < kLocal; ++e) {
    const int mt = (count[e] + 127) / 128;
    if (id < mt * nt) {
      n_tile = id / mt;
      m0 = (id % mt) * 128;
      return true;
    }
    id -= mt * nt;
  }
  return false;
}

} // namespace

// 1. routing: lane l holds experts 8 l .. 8 l + 7 (group l / 4)
extern "C" __global__ void route_kernel(const float *__restrict__ logits, const bf16 *__restrict__ bias, int *__restrict__ count,
                                        int *__restrict__ list, float *__restrict__ pw, int *__restrict__ pair_of, int tokens) {
  const int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (t >= tokens) return;
  float s[8], sb[8];
  for (int i = 0; i < 8; ++i) {
    s[i] = 1.0f / (1.0f + expf(-logits[(long long)t * kExperts + 8 * lane + i]));
    sb[i] = s[i] + __bfloat162float(bias[8 * lane + i]);
  }
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
  float gs[8];
  for (int j = 0; j < 8; ++j) gs[j] = __shfl_sync(0xffffffffu, a + b, 4 * j);
  const int mg = lane >> 2;
  int rank = 0;
  for (int j = 0; j < 8; ++j) rank += (gs[j] > gs[mg]) || (gs[j] == gs[mg] && j < mg);
  float v[8];
  for (int i = 0; i < 8; ++i) v[i] = rank < 4 ? sb[i] : -__int_as_float(0x7f800000);
  int my_e = -1;
  float my_s = 0.0f, total = 0.0f;
  for (int k = 0; k < kTopK; ++k) {
    float best = -__int_as_float(0x7f800000);
    int where = 1 << 30;
    for (int i = 0; i < 8; ++i)
      if (v[i] > best) { best = v[i]; where = 8 * lane + i; }
    for (int o = 16; o > 0; o >>= 1) {
      const float ob = __shfl_xor_sync(0xffffffffu, best, o);
      const int ow = __shfl_xor_sync(0xffffffffu, where, o);
      if (ob > best || (ob == best && ow < where)) { best = ob; where = ow; }
    }
    float sv = 0.0f;
    if ((where >> 3) == lane) {
      sv = s[where & 7];
      v[where & 7] = -__int_as_float(0x7f800000);
    }
    sv = __shfl_sync(0xffffffffu, sv, where >> 3);
    total += sv;
    if (lane == k) { my_e = where; my_s = sv; }
  }
  if (lane < kTopK) {
    int slot = -1;
    const int le = my_e - kOffset;
    if (le >= 0 && le < kLocal) {
      const int pos = atomicAdd(&count[le], 1);
      list[(long long)le * tokens + pos] = t;
      pw[(long long)le * tokens + pos] = my_s / (total + 1e-20f) * kScaling;
      slot = le * tokens + pos;
    }
    pair_of[t * kTopK + lane] = slot;
  }
}

// 2. off[e]: rows before expert e in the compact buffers
extern "C" __global__ void offsets_kernel(const int *count, int *off) {
  if (threadIdx.x != 0) return;
  int o = 0;
  for (int e = 0; e < kLocal; ++e) {
    off[e] = o;
    o += count[e];
  }
  off[kLocal] = o;
}

// 3. GEMM1 + SwiGLU. 256 threads (4 x 2 warps of 32 rows x (32 up + 32 gate)), 128 rows x 64 columns,
//    K blocks of 128 fp8, 4 stages of 32 KiB + the blocks' activation scales.
extern "C" __global__ void __launch_bounds__(256, 1) gemm1_swiglu(const unsigned char *__restrict__ hidden,
                                                                  const float *__restrict__ hs_scale,
                                                                  const unsigned char *__restrict__ w13,
                                                                  const float *__restrict__ s13, const int *count,
                                                                  const int *list, const int *off, bf16 *__restrict__ inter,
                                                                  int tokens) {
  constexpr int kStages = 4, kStage = 32768 + 512;
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ int tok[128];
  int e, m0, nt_id;
  if (!locate(count, kInter / 64, e, m0, nt_id)) return;
  const int n0 = nt_id * 64;
  const int rows = min(128, count[e] - m0);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
  if (tid < 128) tok[tid] = list[(long long)e * tokens + m0 + min(tid, rows - 1)];
  __syncthreads();
  const unsigned sbase = smem_u32(smem);
  const unsigned char *wb = w13 + (long long)e * 2 * kInter * kHidden;
  auto load = [&](int stage, int kb) {
    const unsigned sa = sbase + stage * kStage, sb = sa + 16384, ss = sa + 32768;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = tid + 256 * i, r = c >> 3, ch = c & 7;
      cp16(sa + swz128(r, ch), hidden + (long long)tok[r] * kHidden + kb * 128 + ch * 16);
      // B row r: up rows n0 + (r / 16) * 8 + r % 8 when (r / 8) is even, the same gate rows (+2048) when odd
      const int wrow = ((r >> 3) & 1) * kInter + n0 + (r >> 4) * 8 + (r & 7);
      cp16(sb + swz128(r, ch), wb + (long long)wrow * kHidden + kb * 128 + ch * 16);
    }
    if (tid < 128) cp4(ss + tid * 4, hs_scale + (long long)kb * tokens + tok[tid]);
  };
  float acc[2][8][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;
  constexpr int KB = kHidden / 128;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    load(s, s);
    cp_commit();
  }
  const int wm = (warp >> 1) * 32, wn = (warp & 1) * 64;
  const float *sw = s13 + (long long)e * (2 * kInter / 128) * (kHidden / 128);
  const int up_blk = n0 / 128, gate_blk = (kInter + n0) / 128;
  for (int kb = 0; kb < KB; ++kb) {
    cp_wait<kStages - 2>();
    __syncthreads();
    if (kb + kStages - 1 < KB) load((kb + kStages - 1) % kStages, kb + kStages - 1);
    cp_commit();
    const unsigned sa = sbase + (kb % kStages) * kStage, sb = sa + 16384;
    // acc += (the block's fp8 dot products) * activation scale (per row) * weight block scale (up or gate),
    // applied per half of the K block (chunk q: steps 0, 1; chunk q + 4: steps 2, 3): the scale is the
    // same for both halves.
    const float su = sw[up_blk * (kHidden / 128) + kb], sg = sw[gate_blk * (kHidden / 128) + kb];
    const float *sas = reinterpret_cast<const float *>(smem + (kb % kStages) * kStage + 32768);
#pragma unroll 1
    for (int half = 0; half < 2; ++half) {
      uint4 rb[8];
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) rb[nt] = lds128(sb + swz128(wn + nt * 8 + g, q + 4 * half));
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        const uint4 x0 = lds128(sa + swz128(wm + mt * 16 + g, q + 4 * half));
        const uint4 x1 = lds128(sa + swz128(wm + mt * 16 + g + 8, q + 4 * half));
        float part[8][4];
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
#pragma unroll
          for (int v = 0; v < 4; ++v) part[nt][v] = 0.0f;
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
#pragma unroll
          for (int s = 0; s < 2; ++s)
            mma_fp8(part[nt], reg(x0, 2 * s), reg(x1, 2 * s), reg(x0, 2 * s + 1), reg(x1, 2 * s + 1), reg(rb[nt], 2 * s),
                    reg(rb[nt], 2 * s + 1));
        const float a0 = sas[wm + mt * 16 + g], a1 = sas[wm + mt * 16 + g + 8];
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) {
          const float ws = (nt & 1) ? sg : su;
          acc[mt][nt][0] += part[nt][0] * (a0 * ws);
          acc[mt][nt][1] += part[nt][1] * (a0 * ws);
          acc[mt][nt][2] += part[nt][2] * (a1 * ws);
          acc[mt][nt][3] += part[nt][3] * (a1 * ws);
        }
      }
    }
  }
  cp_wait<0>();
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = wm + mt * 16 + g + 8 * h;
      if (r >= rows) continue;
      bf16 *c = inter + ((long long)off[e] + m0 + r) * kInter + n0 + wn / 2 + 2 * q;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float u0 = acc[mt][2 * j][2 * h], u1 = acc[mt][2 * j][2 * h + 1];
        const float g0 = acc[mt][2 * j + 1][2 * h], g1 = acc[mt][2 * j + 1][2 * h + 1];
        *reinterpret_cast<__nv_bfloat162 *>(c + 8 * j) =
            __floats2bfloat162_rn(g0 / (1.0f + expf(-g0)) * u0, g1 / (1.0f + expf(-g1)) * u1);
      }
    }
}

// 4. GEMM2: y = (h @ (W2 * block scale).T) * routing weight, bf16. 256 threads (4 x 2 warps of 32 x 64),
//    128 rows x 128 columns, K blocks of 128, 3 stages of 48 KiB.
extern "C" __global__ void __launch_bounds__(256, 1) gemm2_weighted(const bf16 *__restrict__ inter, const unsigned char *__restrict__ w2,
                                                                    const float *__restrict__ s2, const int *count, const float *pw,
                                                                    const int *off, bf16 *__restrict__ y, int tokens) {
  constexpr int kStages = 3, kStage = 49152;
  extern __shared__ __align__(1024) unsigned char smem[];
  int e, m0, nt_id;
  if (!locate(count, kHidden / 128, e, m0, nt_id)) return;
  const int n0 = nt_id * 128;
  const int rows = min(128, count[e] - m0);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
  const long long row0 = (long long)off[e] + m0;
  const unsigned sbase = smem_u32(smem);
  const unsigned char *wb = w2 + ((long long)e * kHidden + n0) * kInter;
  auto load = [&](int stage, int kb) {
    const unsigned sa = sbase + stage * kStage, sb = sa + 32768;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int c = tid + 256 * i, r = c >> 4, ch = c & 15;
      cp16(sa + swz256(r, ch), inter + (row0 + min(r, rows - 1)) * kInter + kb * 128 + ch * 8);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = tid + 256 * i, r = c >> 3, ch = c & 7;
      cp16(sb + swz128(r, ch), wb + (long long)r * kInter + kb * 128 + ch * 16);
    }
  };
  float acc[2][8][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;
  constexpr int KB = kInter / 128;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    load(s, s);
    cp_commit();
  }
  const int wm = (warp >> 1) * 32, wn = (warp & 1) * 64;
  const float *scale = s2 + ((long long)e * (kHidden / 128) + nt_id) * (kInter / 128);
  for (int kb = 0; kb < KB; ++kb) {
    cp_wait<kStages - 2>();
    __syncthreads();
    if (kb + kStages - 1 < KB) load((kb + kStages - 1) % kStages, kb + kStages - 1);
    cp_commit();
    const unsigned sa = sbase + (kb % kStages) * kStage, sb = sa + 32768;
    const float ws = scale[kb];
    // A: rows g and g + 8 of each m-tile, chunks 2q, 2q + 1, 8 + 2q, 9 + 2q (32 bf16 = 8 k16 steps)
    uint4 ra[2][2][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = wm + mt * 16 + g + 8 * h;
#pragma unroll
        for (int j = 0; j < 4; ++j) ra[mt][h][j] = lds128(sa + swz256(r, (j >> 1) * 8 + 2 * q + (j & 1)));
      }
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      const int r = wn + nt * 8 + g;
      const uint4 rb0 = lds128(sb + swz128(r, q)), rb1 = lds128(sb + swz128(r, q + 4));
#pragma unroll
      for (int s = 0; s < 8; ++s) {
        const unsigned bw = reg(s < 4 ? rb0 : rb1, s & 3);  // 4 fp8: physical k p0..p3
        const unsigned b0 = fp8x2_bf16x2((unsigned short)(bw & 0xffffu), ws);
        const unsigned b1 = fp8x2_bf16x2((unsigned short)(bw >> 16), ws);
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          const uint4 &x0 = ra[mt][0][s >> 1], &x1 = ra[mt][1][s >> 1];
          mma_bf16(acc[mt][nt], reg(x0, (s & 1) * 2), reg(x1, (s & 1) * 2), reg(x0, (s & 1) * 2 + 1),
                   reg(x1, (s & 1) * 2 + 1), b0, b1);
        }
      }
    }
  }
  cp_wait<0>();
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = wm + mt * 16 + g + 8 * h;
      if (r >= rows) continue;
      const float wgt = pw[(long long)e * tokens + m0 + r];
      bf16 *c = y + (row0 + r) * kHidden + n0 + wn + 2 * q;
#pragma unroll
      for (int nt = 0; nt < 8; ++nt)
        *reinterpret_cast<__nv_bfloat162 *>(c + 8 * nt) = __floats2bfloat162_rn(acc[mt][nt][2 * h] * wgt, acc[mt][nt][2 * h + 1] * wgt);
    }
}

// 5. output[t] = bf16(sum of the token's local expert rows), 8 columns per thread
extern "C" __global__ void combine_kernel(const bf16 *__restrict__ y, const int *__restrict__ pair_of, const int *__restrict__ off,
                                          bf16 *__restrict__ out, int tokens) {
  const long long n = (long long)tokens * (kHidden / 8);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / (kHidden / 8), c = (i % (kHidden / 8)) * 8;
    float s[8] = {};
#pragma unroll
    for (int k = 0; k < kTopK; ++k) {
      const int p = pair_of[t * kTopK + k];
      if (p < 0) continue;
      const long long row = off[p / tokens] + p % tokens;
      const uint4 v = *reinterpret_cast<const uint4 *>(y + row * kHidden + c);
      const __nv_bfloat162 *b = reinterpret_cast<const __nv_bfloat162 *>(&v);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float2 f = __bfloat1622float2(b[j]);
        s[2 * j] += f.x;
        s[2 * j + 1] += f.y;
      }
    }
    uint4 o;
    __nv_bfloat162 *ob = reinterpret_cast<__nv_bfloat162 *>(&o);
#pragma unroll
    for (int j = 0; j < 4; ++j) ob[j] = __floats2bfloat162_rn(s[2 * j], s[2 * j + 1]);
    *reinterpret_cast<uint4 *>(out + t * kHidden + c) = o;
  }
}

/* mkb:plan
scratch count int32[num_local_experts] zeroed
scratch list int32[num_local_experts * seq_len]
scratch pw fp32[num_local_experts * seq_len]
scratch pair_of int32[seq_len * top_k]
scratch off int32[num_local_experts + 1]
scratch inter bf16[seq_len * top_k * intermediate_size]
scratch y bf16[seq_len * top_k * hidden_size]
launch route_kernel grid(ceil_div(seq_len * 32, 256)) block(256)
  args(routing_logits, routing_bias, count, list, pw, pair_of, i32(seq_len))
launch offsets_kernel grid(1) block(32) args(count, off)
launch gemm1_swiglu grid((ceil_div(seq_len * top_k, 128) + num_local_experts) * (intermediate_size / 64)) block(256) shared(133120)
  args(hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale, count, list, off, inter, i32(seq_len))
launch gemm2_weighted grid((ceil_div(seq_len * top_k, 128) + num_local_experts) * (hidden_size / 128)) block(256) shared(147456)
  args(inter, gemm2_weights, gemm2_weights_scale, count, pw, off, y, i32(seq_len))
launch combine_kernel grid(8192) block(256) args(y, pair_of, off, output, i32(seq_len))
*/
