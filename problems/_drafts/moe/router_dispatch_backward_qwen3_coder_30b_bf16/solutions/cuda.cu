// router_dispatch_backward_qwen3_coder_30b_bf16, fused in three launches:
//   1. grad_logits: one warp per token runs the whole routing backward in registers (fp32, as the
//      reference) and writes the bf16 gradient of the logits, [T, 128] (16.8 MB).
//   2. one kernel per (chunk of 1024 tokens, 128 hidden columns): for each 64-token sub-tile it computes
//      grad_hidden_states[sub, cols] = grad_logits[sub, :] @ gate_weight[:, cols] (bf16 tensor cores,
//      written at once) and accumulates grad_logits[sub, :].T @ hidden_states[sub, cols] into a 128 x 128
//      fp32 tile kept in registers; hidden_states is read exactly once and grad_hidden_states written
//      once. The tile goes to a per-chunk partial (no atomics: deterministic).
//   3. the 64 partials of grad_gate_weight are summed and rounded to bf16.
// Tensor-core fragments come from ldmatrix on XOR-swizzled shared tiles of 128 bf16 per row.
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

namespace {

constexpr int kExperts = 128;
constexpr int kTopK = 8;
constexpr int kHidden = 2048;
constexpr int kChunk = 1024;  // tokens per CTA of kernel 2
constexpr int kSub = 64;      // tokens per pipeline stage
constexpr int kCols = 128;    // hidden columns per CTA

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

// Byte offset of the 16-byte chunk `chunk` (8 bf16) of row `row` in a tile of 128 bf16 per row.
__device__ __forceinline__ unsigned swz(int row, int chunk) { return (unsigned)(row * 256 + ((chunk ^ (row & 7)) << 4)); }

// Copies `rows` rows of 128 bf16 (global row stride `stride` elements) into a swizzled tile.
__device__ __forceinline__ void load_tile(unsigned char *tile, const bf16 *src, long long stride, int rows) {
  for (int c = threadIdx.x; c < rows * 16; c += blockDim.x) {
    const int row = c >> 4, chunk = c & 15;
    cp_async16(tile + swz(row, chunk), src + row * stride + chunk * 8);
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

// 2. grid (hidden / 128, tokens / 1024), 256 threads (8 warps), 96 KiB of dynamic shared memory.
extern "C" __global__ void __launch_bounds__(256) router_backward_gemms(
    const bf16 *__restrict__ grad_logits, const bf16 *__restrict__ gate_weight, const bf16 *__restrict__ hidden_states,
    bf16 *__restrict__ grad_hidden_states, float *__restrict__ partial) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char *ws = smem;                  // gate_weight[:, cols]: 128 experts x 128 columns
  unsigned char *gs[2] = {smem + 32768, smem + 32768 + 16384};  // grad_logits: 64 tokens x 128 experts
  unsigned char *xs[2] = {smem + 65536, smem + 65536 + 16384};  // hidden_states: 64 tokens x 128 columns
  const int nb = blockIdx.x, chunk = blockIdx.y;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const long long tok0 = (long long)chunk * kChunk;
  const int col0 = nb * kCols;

  load_tile(ws, gate_weight + col0, kHidden, kExperts);
  load_tile(gs[0], grad_logits + tok0 * kExperts, kExperts, kSub);
  load_tile(xs[0], hidden_states + tok0 * kHidden + col0, kHidden, kSub);
  cp_async_commit();

  float accg[2][8][4];  // grad_gate_weight tile: experts (warp / 2) * 32 .. +32, columns (warp % 2) * 64 .. +64
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) accg[i][j][v] = 0.0f;

  const int mi = lane >> 3, r8 = lane & 7, g = lane >> 2, q = lane & 3;
  for (int sub = 0; sub < kChunk / kSub; ++sub) {
    const int st = sub & 1;
    if (sub + 1 < kChunk / kSub) {
      const long long next = tok0 + (long long)(sub + 1) * kSub;
      load_tile(gs[st ^ 1], grad_logits + next * kExperts, kExperts, kSub);
      load_tile(xs[st ^ 1], hidden_states + next * kHidden + col0, kHidden, kSub);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    const unsigned gbase = smem_u32(gs[st]), xbase = smem_u32(xs[st]), wbase = smem_u32(ws);

    // grad_hidden_states[sub tokens, cols] = G (64 x 128 experts) @ W (128 experts x 128 cols).
    {
      const int wm = warp >> 2, wn = warp & 3;  // 32 tokens x 32 columns per warp
      float acch[2][4][4];
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
          for (int v = 0; v < 4; ++v) acch[i][j][v] = 0.0f;
#pragma unroll
      for (int s = 0; s < kExperts / 16; ++s) {
        unsigned a[2][4], b[2][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) ldsm_x4(a[mt], gbase + swz(wm * 32 + mt * 16 + (lane & 15), s * 2 + (lane >> 4)));
#pragma unroll
        for (int np = 0; np < 2; ++np)
          ldsm_x4_t(b[np], wbase + swz(s * 16 + (mi & 1) * 8 + r8, (wn * 32 + np * 16) / 8 + (mi >> 1)));
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
          for (int nt = 0; nt < 4; ++nt) mma16816(acch[mt][nt], a[mt], b[nt >> 1][(nt & 1) * 2], b[nt >> 1][(nt & 1) * 2 + 1]);
      }
#pragma unroll
      for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          const long long row = tok0 + (long long)sub * kSub + wm * 32 + mt * 16 + g;
          const int col = col0 + wn * 32 + nt * 8 + 2 * q;
          *reinterpret_cast<__nv_bfloat162 *>(grad_hidden_states + row * kHidden + col) =
              __floats2bfloat162_rn(acch[mt][nt][0], acch[mt][nt][1]);
          *reinterpret_cast<__nv_bfloat162 *>(grad_hidden_states + (row + 8) * kHidden + col) =
              __floats2bfloat162_rn(acch[mt][nt][2], acch[mt][nt][3]);
        }
    }

    // grad_gate_weight[:, cols] += G.T (128 experts x 64 tokens) @ X (64 tokens x 128 cols).
    {
      const int wm = warp >> 1, wn = warp & 1;  // 32 experts x 64 columns per warp
#pragma unroll
      for (int s = 0; s < kSub / 16; ++s) {
        unsigned a[2][4], b[4][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
          ldsm_x4_t(a[mt], gbase + swz(s * 16 + (mi >> 1) * 8 + r8, (wm * 32 + mt * 16) / 8 + (mi & 1)));
#pragma unroll
        for (int np = 0; np < 4; ++np)
          ldsm_x4_t(b[np], xbase + swz(s * 16 + (mi & 1) * 8 + r8, (wn * 64 + np * 16) / 8 + (mi >> 1)));
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
          for (int nt = 0; nt < 8; ++nt) mma16816(accg[mt][nt], a[mt], b[nt >> 1][(nt & 1) * 2], b[nt >> 1][(nt & 1) * 2 + 1]);
      }
    }
    __syncthreads();  // the next iteration refills this stage
  }

  const int wm = warp >> 1, wn = warp & 1;
  float *out = partial + (long long)chunk * kExperts * kHidden;
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      const int e = wm * 32 + mt * 16 + g;
      const int col = col0 + wn * 64 + nt * 8 + 2 * q;
      *reinterpret_cast<float2 *>(out + (long long)e * kHidden + col) = make_float2(accg[mt][nt][0], accg[mt][nt][1]);
      *reinterpret_cast<float2 *>(out + (long long)(e + 8) * kHidden + col) = make_float2(accg[mt][nt][2], accg[mt][nt][3]);
    }
}

// 3. grad_gate_weight = bf16(sum over the chunks of the partials).
extern "C" __global__ void reduce_partials(const float *__restrict__ partial, bf16 *__restrict__ grad_gate_weight, int chunks) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kExperts * kHidden) return;
  float s = 0.0f;
  for (int c = 0; c < chunks; ++c) s += partial[(long long)c * kExperts * kHidden + i];
  grad_gate_weight[i] = __float2bfloat16_rn(s);
}

/* mkb:plan
scratch gl bf16[num_tokens * num_experts]
scratch partial fp32[(num_tokens / 1024) * num_experts * hidden_size]
launch grad_logits_kernel grid(ceil_div(num_tokens * 32, 256)) block(256)
  args(routing_probs, selected_experts, routing_weights_sum, grad_routing_weights, grad_expert_mask,
       grad_router_logits, gl, i32(num_tokens))
launch router_backward_gemms grid(hidden_size / 128, num_tokens / 1024) block(256) shared(98304)
  args(gl, gate_weight, hidden_states, grad_hidden_states, partial)
launch reduce_partials grid(ceil_div(num_experts * hidden_size, 256)) block(256)
  args(partial, grad_gate_weight, i32(num_tokens / 1024))
*/
