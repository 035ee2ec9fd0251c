// Causal MLA prefill, one CTA per query token: its causal window of the sequence's latent KV (at
// most 423 tokens here) in 64-token tiles, whole in one CTA (no split, no merge). The 16 heads are
// the 16 rows of one m16 tensor-core tile, so each latent row (512 ckv + 64 kpe bf16) is read once per
// query token for all heads; a sequence's latents (under 0.5 MB) stay in L2 across its queries.
// Per 64-token tile:
//   S = [q_nope | q_pe] . [ckv | kpe]^T     mma.sync m16n8k16 bf16, fp32 accumulate (exact products)
//   online softmax in fp32, base 2 (logits scaled by sm_scale * log2(e))
//   O += P . ckv                          P rounded to bf16 for the tensor core, ckv via ldmatrix.trans
// At the end O / sum is written as bf16 and lse = max + log2(sum) (-inf and zeros for an empty window).
#include <cuda_bf16.h>

namespace {

constexpr int kHeads = 16, kCkv = 512, kKpe = 64, kTile = 64, kThreads = 128;
constexpr int kCkvStride = kCkv + 8;  // bf16 elements per smem row: 1040 B, rows land on distinct banks
constexpr int kKpeStride = kKpe + 8;  // 144 B
constexpr int kPStride = kTile + 8;

constexpr int kQnBytes = kHeads * kCkvStride * 2;
constexpr int kQpBytes = kHeads * kKpeStride * 2;
constexpr int kKcBytes = kTile * kCkvStride * 2;
constexpr int kKpBytes = kTile * kKpeStride * 2;
constexpr int kPBytes = kHeads * kPStride * 2;
static_assert(kQnBytes + kQpBytes + kKcBytes + kKpBytes + kPBytes == 97024, "plan shared()");

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async16(void *dst, const void *src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
}

__device__ __forceinline__ unsigned lds32(const __nv_bfloat16 *p) { return *reinterpret_cast<const unsigned *>(p); }

__device__ __forceinline__ void mma_bf16(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                                         unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned &r0, unsigned &r1, unsigned &r2, unsigned &r3, const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_addr(p)));
}

__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&v);
}

#define kNegInf (-__int_as_float(0x7f800000))


} // namespace

// grid(total_q) block(128): query token q = qo_indptr[s] + i of sequence s sees the first
// (kv_len - q_len) + i + 1 tokens of the sequence's KV.
extern "C" __global__ void __launch_bounds__(kThreads, 2)
mla_prefill_query(const __nv_bfloat16 *__restrict__ q_nope, const __nv_bfloat16 *__restrict__ q_pe,
                  const __nv_bfloat16 *__restrict__ ckv, const __nv_bfloat16 *__restrict__ kpe,
                  const int *__restrict__ qo_indptr, const int *__restrict__ kv_indptr,
                  const int *__restrict__ kv_indices, __nv_bfloat16 *__restrict__ output, float *__restrict__ lse,
                  float scale_log2, int batch) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *qn_s = reinterpret_cast<__nv_bfloat16 *>(smem);
  __nv_bfloat16 *qp_s = reinterpret_cast<__nv_bfloat16 *>(smem + kQnBytes);
  __nv_bfloat16 *kc_s = reinterpret_cast<__nv_bfloat16 *>(smem + kQnBytes + kQpBytes);
  __nv_bfloat16 *kp_s = reinterpret_cast<__nv_bfloat16 *>(smem + kQnBytes + kQpBytes + kKcBytes);
  __nv_bfloat16 *p_s = reinterpret_cast<__nv_bfloat16 *>(smem + kQnBytes + kQpBytes + kKcBytes + kKpBytes);
  __shared__ int tok_s[kTile];
  __shared__ float red_max[4][kHeads], red_sum[4][kHeads];

  const int b = blockIdx.x;  // the query token
  int seq = 0;
  while (seq + 1 < batch && qo_indptr[seq + 1] <= b) ++seq;
  const int q_len = qo_indptr[seq + 1] - qo_indptr[seq], kv_len = kv_indptr[seq + 1] - kv_indptr[seq];
  const int begin = kv_indptr[seq];
  const int end = begin + max(0, min(kv_len, kv_len - q_len + (b - qo_indptr[seq]) + 1));

  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;

  // Q of sequence b: 16 heads x (512 + 64).
  {
    const __nv_bfloat16 *qn = q_nope + (long long)b * kHeads * kCkv;
    const __nv_bfloat16 *qp = q_pe + (long long)b * kHeads * kKpe;
    for (int i = tid; i < kHeads * kCkv / 8; i += kThreads) {
      const int r = i / (kCkv / 8), ch = i % (kCkv / 8);
      cp_async16(qn_s + r * kCkvStride + ch * 8, qn + r * kCkv + ch * 8, 16);
    }
    for (int i = tid; i < kHeads * kKpe / 8; i += kThreads) {
      const int r = i / (kKpe / 8), ch = i % (kKpe / 8);
      cp_async16(qp_s + r * kKpeStride + ch * 8, qp + r * kKpe + ch * 8, 16);
    }
  }

  float m0 = kNegInf, m1 = kNegInf, l0 = 0.0f, l1 = 0.0f;  // rows g and g + 8
  float acc[16][4];
#pragma unroll
  for (int j = 0; j < 16; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;

  for (int base = begin; base < end; base += kTile) {
    if (tid < kTile) tok_s[tid] = base + tid < end ? kv_indices[base + tid] : -1;
    __syncthreads();
    for (int i = tid; i < kTile * (kCkv / 8); i += kThreads) {
      const int r = i >> 6, ch = i & 63, tok = tok_s[r];
      cp_async16(kc_s + r * kCkvStride + ch * 8, tok >= 0 ? ckv + (long long)tok * kCkv + ch * 8 : ckv, tok >= 0 ? 16 : 0);
    }
    for (int i = tid; i < kTile * (kKpe / 8); i += kThreads) {
      const int r = i >> 3, ch = i & 7, tok = tok_s[r];
      cp_async16(kp_s + r * kKpeStride + ch * 8, tok >= 0 ? kpe + (long long)tok * kKpe + ch * 8 : kpe, tok >= 0 ? 16 : 0);
    }
    cp_async_wait_all();
    __syncthreads();

    // S for this warp's 16 tokens (two n8 tiles).
    float s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
    const int n0 = warp * 16;
#pragma unroll 4
    for (int k0 = 0; k0 < kCkv; k0 += 16) {
      const unsigned a0 = lds32(qn_s + g * kCkvStride + k0 + 2 * t), a1 = lds32(qn_s + (g + 8) * kCkvStride + k0 + 2 * t);
      const unsigned a2 = lds32(qn_s + g * kCkvStride + k0 + 8 + 2 * t), a3 = lds32(qn_s + (g + 8) * kCkvStride + k0 + 8 + 2 * t);
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const __nv_bfloat16 *kr = kc_s + (n0 + nt * 8 + g) * kCkvStride + k0 + 2 * t;
        mma_bf16(s[nt], a0, a1, a2, a3, lds32(kr), lds32(kr + 8));
      }
    }
#pragma unroll
    for (int k0 = 0; k0 < kKpe; k0 += 16) {
      const unsigned a0 = lds32(qp_s + g * kKpeStride + k0 + 2 * t), a1 = lds32(qp_s + (g + 8) * kKpeStride + k0 + 2 * t);
      const unsigned a2 = lds32(qp_s + g * kKpeStride + k0 + 8 + 2 * t), a3 = lds32(qp_s + (g + 8) * kKpeStride + k0 + 8 + 2 * t);
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const __nv_bfloat16 *kr = kp_s + (n0 + nt * 8 + g) * kKpeStride + k0 + 2 * t;
        mma_bf16(s[nt], a0, a1, a2, a3, lds32(kr), lds32(kr + 8));
      }
    }

    // Scale into base 2, mask padding, tile row maxima.
    float mx0 = kNegInf, mx1 = kNegInf;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const bool valid = tok_s[n0 + nt * 8 + 2 * t + j] >= 0;
        s[nt][j] = valid ? s[nt][j] * scale_log2 : kNegInf;
        s[nt][2 + j] = valid ? s[nt][2 + j] * scale_log2 : kNegInf;
        mx0 = fmaxf(mx0, s[nt][j]);
        mx1 = fmaxf(mx1, s[nt][2 + j]);
      }
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
    if (t == 0) {
      red_max[warp][g] = mx0;
      red_max[warp][g + 8] = mx1;
    }
    __syncthreads();
    const float new0 = fmaxf(m0, fmaxf(fmaxf(red_max[0][g], red_max[1][g]), fmaxf(red_max[2][g], red_max[3][g])));
    const float new1 =
        fmaxf(m1, fmaxf(fmaxf(red_max[0][g + 8], red_max[1][g + 8]), fmaxf(red_max[2][g + 8], red_max[3][g + 8])));
    const float use0 = new0 == kNegInf ? 0.0f : new0, use1 = new1 == kNegInf ? 0.0f : new1;
    const float alpha0 = exp2f(m0 - use0), alpha1 = exp2f(m1 - use1);
    m0 = new0;
    m1 = new1;

    float sum0 = 0.0f, sum1 = 0.0f;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
      const float p0 = exp2f(s[nt][0] - use0), p1 = exp2f(s[nt][1] - use0);
      const float p2 = exp2f(s[nt][2] - use1), p3 = exp2f(s[nt][3] - use1);
      sum0 += p0 + p1;
      sum1 += p2 + p3;
      *reinterpret_cast<unsigned *>(p_s + g * kPStride + n0 + nt * 8 + 2 * t) = pack_bf16(p0, p1);
      *reinterpret_cast<unsigned *>(p_s + (g + 8) * kPStride + n0 + nt * 8 + 2 * t) = pack_bf16(p2, p3);
    }
    sum0 += __shfl_xor_sync(0xffffffffu, sum0, 1);
    sum0 += __shfl_xor_sync(0xffffffffu, sum0, 2);
    sum1 += __shfl_xor_sync(0xffffffffu, sum1, 1);
    sum1 += __shfl_xor_sync(0xffffffffu, sum1, 2);
    if (t == 0) {
      red_sum[warp][g] = sum0;
      red_sum[warp][g + 8] = sum1;
    }
    __syncthreads();
    l0 = l0 * alpha0 + ((red_sum[0][g] + red_sum[1][g]) + (red_sum[2][g] + red_sum[3][g]));
    l1 = l1 * alpha1 + ((red_sum[0][g + 8] + red_sum[1][g + 8]) + (red_sum[2][g + 8] + red_sum[3][g + 8]));

    // O (this warp's 128 columns) = alpha * O + P . ckv
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      acc[j][0] *= alpha0;
      acc[j][1] *= alpha0;
      acc[j][2] *= alpha1;
      acc[j][3] *= alpha1;
    }
    const int col0 = warp * 128, mi = lane >> 3, ri = lane & 7;
#pragma unroll
    for (int k0 = 0; k0 < kTile; k0 += 16) {
      const unsigned a0 = lds32(p_s + g * kPStride + k0 + 2 * t), a1 = lds32(p_s + (g + 8) * kPStride + k0 + 2 * t);
      const unsigned a2 = lds32(p_s + g * kPStride + k0 + 8 + 2 * t), a3 = lds32(p_s + (g + 8) * kPStride + k0 + 8 + 2 * t);
      const __nv_bfloat16 *vrow = kc_s + (k0 + ri + (mi & 1) * 8) * kCkvStride + col0 + (mi >> 1) * 8;
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) {
        unsigned b0, b1, b2, b3;
        ldmatrix_x4_trans(b0, b1, b2, b3, vrow + jj * 16);
        mma_bf16(acc[2 * jj], a0, a1, a2, a3, b0, b1);
        mma_bf16(acc[2 * jj + 1], a0, a1, a2, a3, b2, b3);
      }
    }
    __syncthreads();  // tok_s, kc_s, p_s and the reductions are rewritten by the next tile
  }

  asm volatile("cp.async.wait_all;\n" ::);  // the Q copies, where every tile was skipped
  // output = O / sum (bf16), lse = max + log2(sum) per head.
  const float inv0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, inv1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
  __nv_bfloat16 *out = output + (long long)b * kHeads * kCkv;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const int col = warp * 128 + j * 8 + 2 * t;
    *reinterpret_cast<__nv_bfloat162 *>(out + g * kCkv + col) = __floats2bfloat162_rn(acc[j][0] * inv0, acc[j][1] * inv0);
    *reinterpret_cast<__nv_bfloat162 *>(out + (g + 8) * kCkv + col) =
        __floats2bfloat162_rn(acc[j][2] * inv1, acc[j][3] * inv1);
  }
  if (warp == 0 && t == 0) {
    lse[b * kHeads + g] = l0 > 0.0f ? m0 + log2f(l0) : kNegInf;
    lse[b * kHeads + g + 8] = l1 > 0.0f ? m1 + log2f(l1) : kNegInf;
  }
}

/* mkb:plan
launch mla_prefill_query grid(total_q) block(128) shared(97024)
  args(q_nope, q_pe, ckv_cache, kpe_cache, qo_indptr, kv_indptr, kv_indices, output, lse, f32(sm_scale * 1.4426950408889634), i32(batch_size))
*/
