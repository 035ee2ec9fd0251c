// router_dispatch_backward_qwen3_coder_30b_bf16 in four launches:
//   1. grad_logits: one warp per token runs the whole routing backward in registers (fp32, as the
//      reference) and writes the bf16 gradient of the logits, [T, 128] (16.8 MB, small enough that
//      kernels 2 and 4 re-read it, each tile by 8 column CTAs at once, mostly from L2).
//   2. grad_gate_weight partials: a CTA per (256 hidden columns, 4096 tokens) streams hidden_states
//      through a 4-stage cp.async ring into a 128 x 256 fp32 register tile; 64 x 64 per warp, so 8
//      ldmatrix feed 32 mma and shared-memory bandwidth stays below the DRAM time. 16 partials (16 MB,
//      not 64 as 1024-token chunks gave), no atomics: deterministic.
//   3. the 16 partials are summed in range order and rounded to bf16 once.
//   4. grad_hidden_states (K = 128 only): each warp keeps its 32 columns of gate_weight in registers as
//      mma B fragments for the CTA's life, so 16 tokens cost one ldmatrix per k-step and two 16-byte
//      stores per thread. Which physical column each mma column stands for is free: it is chosen so
//      that a thread's four n-tiles land on 8 adjacent columns, with no shuffle or shared staging.
// Splitting the two products costs no DRAM traffic (hidden_states is still read once, grad_hidden_states
// written once), and each kernel gets the registers for its own tile: the fused kernel held both
// (170 registers, one CTA of 8 warps per SM behind a 2-stage ring) and stored 4-byte fragments.
// Tensor-core fragments come from ldmatrix on XOR-swizzled shared tiles (16-byte chunk ^ row % 8).
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

namespace {

constexpr int kExperts = 128;
constexpr int kTopK = 8;
constexpr int kHidden = 2048;
constexpr int kStep = 64;        // tokens per pipeline stage
constexpr int kStages = 4;       // cp.async ring depth of kernels 2 and 4
constexpr int kCols = 256;       // hidden columns per CTA (kernels 2 and 4)
constexpr int kRangeB = 4096;    // tokens per CTA of kernel 2 (one partial each)
constexpr int kRangeH = 2048;    // tokens per CTA of kernel 4
constexpr int kGTile = kStep * kExperts * 2;  // 16 KiB: 64 tokens x 128 experts
constexpr int kXTile = kStep * kCols * 2;     // 32 KiB: 64 tokens x 256 columns
constexpr int kStageB = kGTile + kXTile;      // kernel 2's stage

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async16(void *dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&v);
}
__device__ __forceinline__ unsigned pack_raw(bf16 lo, bf16 hi) {
  return (unsigned)__bfloat16_as_ushort(lo) | ((unsigned)__bfloat16_as_ushort(hi) << 16);
}

// Byte offset of 16-byte chunk `chunk` of row `row` in a tile of `chunks` chunks per row (a multiple of
// 8): the low 3 bits of the chunk are XORed with the row, so 8 rows of one chunk hit 8 bank groups.
template <int chunks> __device__ __forceinline__ unsigned swz(int row, int chunk) {
  return (unsigned)(row * chunks * 16 + ((chunk ^ (row & 7)) << 4));
}

// Copies kStep rows of `chunks` 16-byte chunks (global row stride `stride` elements) into a swizzled tile;
// all 256 threads of the CTA take part.
template <int chunks> __device__ __forceinline__ void load_tile(unsigned char *tile, const bf16 *src, int stride) {
#pragma unroll
  for (int i = 0; i < kStep * chunks / 256; ++i) {
    const int c = threadIdx.x + i * 256, row = c / chunks, chunk = c % chunks;
    cp_async16(tile + swz<chunks>(row, chunk), src + row * stride + chunk * 8);
  }
}

} // namespace

// 1. grad_logits (bf16) of one token per warp; lane holds experts lane + 32 j.
extern "C" __global__ void __launch_bounds__(256) grad_logits_kernel(
    const float *__restrict__ routing_probs, const long long *__restrict__ selected_experts,
    const float *__restrict__ routing_weights_sum, const bf16 *__restrict__ grad_routing_weights,
    const bf16 *__restrict__ grad_expert_mask, const bf16 *__restrict__ grad_router_logits, bf16 *__restrict__ grad_logits,
    int tokens) {
  const int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (t >= tokens) return;
  const float S = routing_weights_sum[t];
  int sel[kTopK];
  float gw[kTopK];
  float grad_sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kTopK; ++k) {
    sel[k] = (int)selected_experts[(long long)t * kTopK + k];
    gw[k] = __bfloat162float(grad_routing_weights[(long long)t * kTopK + k]);
    grad_sum += (gw[k] * routing_probs[(long long)t * kExperts + sel[k]]) / S;
  }
  const float b = grad_sum / S;
  float p[4], gp[4], dot = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int e = lane + 32 * j;
    p[j] = routing_probs[(long long)t * kExperts + e];
    gp[j] = __bfloat162float(grad_router_logits[(long long)t * kExperts + e]);
#pragma unroll
    for (int k = 0; k < kTopK; ++k)
      if (sel[k] == e) {
        const float gm = __bfloat162float(grad_expert_mask[((long long)e * kTopK + k) * tokens + t]);
        gp[j] += (gw[k] / S - b) + gm;
      }
    dot += gp[j] * p[j];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
#pragma unroll
  for (int j = 0; j < 4; ++j)
    grad_logits[(long long)t * kExperts + lane + 32 * j] = __float2bfloat16_rn(p[j] * (gp[j] - dot));
}

// 2. grid (hidden / 256, tokens / 4096), 256 threads, 192 KiB of dynamic shared memory (4 stages of
// grad_logits 64 x 128 and hidden_states 64 x 256). partial[range] = grad_logits.T @ hidden_states over
// the range's tokens, for the CTA's 256 columns. Warp (wm, wn) owns experts wm * 64 and columns wn * 64.
extern "C" __global__ void __launch_bounds__(256, 1) grad_gate_partials(
    const bf16 *__restrict__ grad_logits, const bf16 *__restrict__ hidden_states, float *__restrict__ partial) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int col0 = blockIdx.x * kCols, range = blockIdx.y;
  const long long tok0 = (long long)range * kRangeB;
  const bf16 *gsrc = grad_logits + tok0 * kExperts;
  const bf16 *xsrc = hidden_states + tok0 * kHidden + col0;
  constexpr int steps = kRangeB / kStep;

#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    load_tile<16>(smem + i * kStageB, gsrc + (long long)i * kStep * kExperts, kExperts);
    load_tile<32>(smem + i * kStageB + kGTile, xsrc + (long long)i * kStep * kHidden, kHidden);
    cp_async_commit();
  }

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wm = warp >> 2, wn = warp & 3, mi = lane >> 3, r8 = lane & 7, g = lane >> 2, q = lane & 3;
  float acc[4][8][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

  for (int it = 0; it < steps; ++it) {
    cp_async_wait<kStages - 2>();  // this thread's copies of stage `it` have landed
    __syncthreads();               // everyone's have; and the slot refilled below is no longer read
    const int nxt = it + kStages - 1;
    if (nxt < steps) {
      unsigned char *st = smem + (nxt % kStages) * kStageB;
      load_tile<16>(st, gsrc + (long long)nxt * kStep * kExperts, kExperts);
      load_tile<32>(st + kGTile, xsrc + (long long)nxt * kStep * kHidden, kHidden);
    }
    cp_async_commit();
    const unsigned gbase = smem_u32(smem + (it % kStages) * kStageB), xbase = gbase + kGTile;
#pragma unroll
    for (int s = 0; s < kStep / 16; ++s) {
      unsigned a[4][4], b[4][4];
      // A = grad_logits.T (experts x tokens): transposed 8 x 8 blocks (tokens +0/+8, experts +0/+8).
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
        ldsm_x4_t(a[mt], gbase + swz<16>(s * 16 + (mi >> 1) * 8 + r8, (wm * 64 + mt * 16) / 8 + (mi & 1)));
      // B = hidden_states (tokens x columns), two n-tiles per ldmatrix.
#pragma unroll
      for (int np = 0; np < 4; ++np)
        ldsm_x4_t(b[np], xbase + swz<32>(s * 16 + (mi & 1) * 8 + r8, (wn * 64 + np * 16) / 8 + (mi >> 1)));
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) mma16816(acc[mt][nt], a[mt], b[nt >> 1][(nt & 1) * 2], b[nt >> 1][(nt & 1) * 2 + 1]);
    }
  }

  float *out = partial + (long long)range * kExperts * kHidden;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      const int e = wm * 64 + mt * 16 + g;
      const int col = col0 + wn * 64 + nt * 8 + 2 * q;
      *reinterpret_cast<float2 *>(out + (long long)e * kHidden + col) = make_float2(acc[mt][nt][0], acc[mt][nt][1]);
      *reinterpret_cast<float2 *>(out + (long long)(e + 8) * kHidden + col) = make_float2(acc[mt][nt][2], acc[mt][nt][3]);
    }
}

// 3. grad_gate_weight = bf16(sum over the ranges, in order, of the partials); 4 elements per thread.
extern "C" __global__ void __launch_bounds__(256) reduce_partials(const float *__restrict__ partial, bf16 *__restrict__ grad_gate_weight,
                                                                  int ranges) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i >= kExperts * kHidden) return;
  float4 s = *reinterpret_cast<const float4 *>(partial + i);
#pragma unroll 4
  for (int r = 1; r < ranges; ++r) {
    const float4 v = *reinterpret_cast<const float4 *>(partial + (long long)r * kExperts * kHidden + i);
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  uint2 o;
  o.x = pack_bf16(s.x, s.y);
  o.y = pack_bf16(s.z, s.w);
  *reinterpret_cast<uint2 *>(grad_gate_weight + i) = o;
}

// 4. grid (hidden / 256, tokens / 2048), 256 threads, 64 KiB of dynamic shared memory (4 stages of
// grad_logits 64 x 128). grad_hidden_states[tokens, cols] = grad_logits @ gate_weight[:, cols]; warp w owns
// the 32 columns cw = 256 blockIdx.x + 32 w on. Its n-tile nt's column n (0..7) is column
// cw + (n / 2) * 8 + nt * 2 + n % 2, so thread (g, q) ends up with columns cw + 8 q .. + 7 of rows g, g + 8.
extern "C" __global__ void __launch_bounds__(256, 2) grad_hidden_kernel(
    const bf16 *__restrict__ grad_logits, const bf16 *__restrict__ gate_weight, bf16 *__restrict__ grad_hidden_states) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const long long tok0 = (long long)blockIdx.y * kRangeH;
  const bf16 *gsrc = grad_logits + tok0 * kExperts;
  constexpr int steps = kRangeH / kStep;

#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    load_tile<16>(smem + i * kGTile, gsrc + (long long)i * kStep * kExperts, kExperts);
    cp_async_commit();
  }

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int cw = blockIdx.x * kCols + warp * 32;
  // gate_weight[:, cw .. cw + 32] as B fragments: wf[s][nt] = rows 16 s + 2 q (+1) and (+8, +9).
  unsigned wf[kExperts / 16][4][2];
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) {
    const bf16 *wc = gate_weight + cw + (g >> 1) * 8 + nt * 2 + (g & 1);
#pragma unroll
    for (int s = 0; s < kExperts / 16; ++s) {
      const int e = s * 16 + 2 * q;
      wf[s][nt][0] = pack_raw(wc[e * kHidden], wc[(e + 1) * kHidden]);
      wf[s][nt][1] = pack_raw(wc[(e + 8) * kHidden], wc[(e + 9) * kHidden]);
    }
  }

  bf16 *out = grad_hidden_states + (tok0 + g) * kHidden + cw + q * 8;
  for (int it = 0; it < steps; ++it) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    const int nxt = it + kStages - 1;
    if (nxt < steps) load_tile<16>(smem + (nxt % kStages) * kGTile, gsrc + (long long)nxt * kStep * kExperts, kExperts);
    cp_async_commit();
    const unsigned gbase = smem_u32(smem + (it % kStages) * kGTile);
#pragma unroll
    for (int mt = 0; mt < kStep / 16; ++mt) {  // one m-tile of 16 tokens at a time
      float acc[4][4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[j][v] = 0.0f;
#pragma unroll
      for (int s = 0; s < kExperts / 16; ++s) {
        unsigned a[4];
        ldsm_x4(a, gbase + swz<16>(mt * 16 + (lane & 15), s * 2 + (lane >> 4)));
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) mma16816(acc[nt], a, wf[s][nt][0], wf[s][nt][1]);
      }
      bf16 *o = out + (long long)(it * kStep + mt * 16) * kHidden;
      const uint4 lo = make_uint4(pack_bf16(acc[0][0], acc[0][1]), pack_bf16(acc[1][0], acc[1][1]),
                                  pack_bf16(acc[2][0], acc[2][1]), pack_bf16(acc[3][0], acc[3][1]));
      const uint4 hi = make_uint4(pack_bf16(acc[0][2], acc[0][3]), pack_bf16(acc[1][2], acc[1][3]),
                                  pack_bf16(acc[2][2], acc[2][3]), pack_bf16(acc[3][2], acc[3][3]));
      __stcs(reinterpret_cast<uint4 *>(o), lo);               // row g: streamed, never re-read
      __stcs(reinterpret_cast<uint4 *>(o + 8 * kHidden), hi);  // row g + 8
    }
  }
}

/* mkb:plan
scratch gl bf16[num_tokens * num_experts]
scratch partial fp32[(num_tokens / 4096) * num_experts * hidden_size]
launch grad_logits_kernel grid(ceil_div(num_tokens * 32, 256)) block(256)
  args(routing_probs, selected_experts, routing_weights_sum, grad_routing_weights, grad_expert_mask,
       grad_router_logits, gl, i32(num_tokens))
launch grad_gate_partials grid(hidden_size / 256, num_tokens / 4096) block(256) shared(196608)
  args(gl, hidden_states, partial)
launch reduce_partials grid(num_experts * hidden_size / 1024) block(256)
  args(partial, grad_gate_weight, i32(num_tokens / 4096))
launch grad_hidden_kernel grid(hidden_size / 256, num_tokens / 2048) block(256) shared(65536)
  args(gl, gate_weight, grad_hidden_states)
*/
