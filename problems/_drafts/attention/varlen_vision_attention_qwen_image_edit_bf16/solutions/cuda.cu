// Varlen vision attention in four launches, bf16 tensor cores (WMMA, fp32 accumulation) throughout.
// 1. gemm_bias: qkv = bf16(hidden @ qkv_weight^T + qkv_bias), 128x128x32 tiles, cp.async double buffer.
// 2. rope_split: q and k rotated in fp32 (the reference's products and sum, rounded to bf16 once) and
//    q, k, v written head-major [16, tokens, 72] so that a sequence's rows of one head are contiguous.
// 3. flash_attention: one block per (64-query tile of a sequence, head); keys in tiles of 64 within the
//    same sequence; S = Q K^T and O += P V on tensor cores (head dim padded to 80 with zeros), online
//    softmax in fp32 with P rounded to bf16 for the product; attn = bf16(O / l) token-major [tokens, 1152].
// 4. gemm_bias: output = bf16(attn @ proj_weight^T + proj_bias).
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;
typedef __nv_bfloat16 bf16;

namespace {
constexpr int kHeads = 16, kHeadDim = 72, kHalf = 36, kEmbed = kHeads * kHeadDim, kQkv = 3 * kEmbed;
constexpr int kSequences = 28;

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// ---- GEMM: C[M, N] = bf16(A[M, K] B[N, K]^T + bias[N]); M % 128 == N % 128 == K % 32 == 0 ----------
constexpr int BM = 128, BN = 128, BK = 32, LDS = BK + 8;  // padded shared rows (80 bytes)
constexpr int kStageElems = (BM + BN) * LDS;
constexpr int LDC = BN + 4;
} // namespace

extern "C" __global__ void __launch_bounds__(256)
gemm_bias(const bf16 *__restrict__ A, const bf16 *__restrict__ B, const bf16 *__restrict__ bias, bf16 *__restrict__ C,
          int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  bf16 *stages = reinterpret_cast<bf16 *>(smem_raw);
  float *ctile = reinterpret_cast<float *>(smem_raw);  // reused after the main loop
  const int tid = threadIdx.x, warp = tid / 32;
  const int warp_m = warp / 2, warp_n = warp % 2;  // 4 x 2 warps, each 32 x 64
  const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;

  auto load_stage = [&](int stage, int k0) {
    bf16 *As = stages + stage * kStageElems, *Bs = As + BM * LDS;
#pragma unroll
    for (int c = 0; c < 2; ++c) {  // 128 rows x 4 chunks of 8 bf16, for A and for B
      const int chunk = tid + c * 256, r = chunk / 4, kc = (chunk % 4) * 8;
      cp_async16(As + r * LDS + kc, A + (row0 + r) * K + k0 + kc);
      cp_async16(Bs + r * LDS + kc, B + (col0 + r) * K + k0 + kc);
    }
    cp_async_commit();
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  const int ktiles = K / BK;
  load_stage(0, 0);
  for (int kt = 0; kt < ktiles; ++kt) {
    if (kt + 1 < ktiles) {
      load_stage((kt + 1) & 1, (kt + 1) * BK);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const bf16 *As = stages + (kt & 1) * kStageElems, *Bs = As + BM * LDS;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b[4];
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], As + (warp_m * 32 + i * 16) * LDS + kk, LDS);
#pragma unroll
      for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], Bs + (warp_n * 64 + j * 16) * LDS + kk, LDS);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // the stage is overwritten by the load two iterations on
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      wmma::store_matrix_sync(ctile + (warp_m * 32 + i * 16) * LDC + warp_n * 64 + j * 16, acc[i][j], LDC,
                              wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < BM * BN / 2; e += 256) {  // two columns per step
    const int r = e / (BN / 2), c = (e % (BN / 2)) * 2;
    const float v0 = ctile[r * LDC + c] + __bfloat162float(bias[col0 + c]);
    const float v1 = ctile[r * LDC + c + 1] + __bfloat162float(bias[col0 + c + 1]);
    *reinterpret_cast<__nv_bfloat162 *>(C + (row0 + r) * N + col0 + c) = __floats2bfloat162_rn(v0, v1);
  }
}

// ---- Rotary embedding and head-major split ---------------------------------------------------------
extern "C" __global__ void rope_split(const bf16 *__restrict__ qkv, const bf16 *__restrict__ cos_t,
                                      const bf16 *__restrict__ sin_t, bf16 *__restrict__ qh, bf16 *__restrict__ kh,
                                      bf16 *__restrict__ vh, int tokens) {
  const long long n = (long long)tokens * kEmbed;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / kEmbed;
    const int hd = (int)(i % kEmbed), h = hd / kHeadDim, d = hd % kHeadDim;
    const bf16 *row = qkv + t * kQkv + h * kHeadDim;
    const float c = __bfloat162float(cos_t[i]), s = __bfloat162float(sin_t[i]);
    const int partner = d < kHalf ? d + kHalf : d - kHalf;
    const long long dst = ((long long)h * tokens + t) * kHeadDim + d;
    {
      const float x = __bfloat162float(row[d]), y = __bfloat162float(row[partner]);
      const float r = d < kHalf ? -y : y;
      qh[dst] = __float2bfloat16_rn(__fadd_rn(__fmul_rn(x, c), __fmul_rn(r, s)));
    }
    {
      const float x = __bfloat162float(row[kEmbed + d]), y = __bfloat162float(row[kEmbed + partner]);
      const float r = d < kHalf ? -y : y;
      kh[dst] = __float2bfloat16_rn(__fadd_rn(__fmul_rn(x, c), __fmul_rn(r, s)));
    }
    vh[dst] = row[2 * kEmbed + d];
  }
}

// ---- Flash attention over the sequences --------------------------------------------------------------
namespace {
constexpr int TQ = 64, TK = 64, DP = 80;  // query tile, key tile, padded head dim
constexpr int LDP = TK + 8;               // bf16 P rows
constexpr int LDS_S = TK + 4;             // fp32 S rows
constexpr int LDO = DP + 4;               // fp32 O rows
constexpr int kAttnSmem = 3 * TQ * DP * 2 + TQ * LDS_S * 4 + TQ * LDP * 2 + TQ * LDO * 4 + 3 * TQ * 4;  // 79616: the plan's shared()
static_assert(kAttnSmem == 79616, "shared size");
} // namespace

extern "C" __global__ void __launch_bounds__(128)
flash_attention(const bf16 *__restrict__ qh, const bf16 *__restrict__ kh, const bf16 *__restrict__ vh,
                const long long *__restrict__ cu_seqlens, bf16 *__restrict__ attn, int tokens, float scale) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  bf16 *Qs = reinterpret_cast<bf16 *>(smem_raw);  // [64][80]
  bf16 *Ks = Qs + TQ * DP;                        // [64][80]
  bf16 *Vs = Ks + TK * DP;                        // [64][80]
  float *Ss = reinterpret_cast<float *>(Vs + TK * DP);  // [64][68]
  bf16 *Ps = reinterpret_cast<bf16 *>(Ss + TQ * LDS_S); // [64][72]
  float *Os = reinterpret_cast<float *>(Ps + TQ * LDP); // [64][84]
  float *row_max = Os + TQ * LDO, *row_sum = row_max + TQ, *row_alpha = row_sum + TQ;

  const int tid = threadIdx.x, warp = tid / 32;
  const int h = blockIdx.y;
  // Which sequence and query tile this block is.
  int tile = blockIdx.x;
  long long start = 0, len = -1;
  for (int s = 0; s < kSequences; ++s) {
    const long long end = cu_seqlens[s];
    const int tiles = (int)((end - start + TQ - 1) / TQ);
    if (tile < tiles) {
      len = end - start;
      break;
    }
    tile -= tiles;
    start = end;
  }
  if (len < 0) return;  // past the last tile (uniform)
  const int q0 = tile * TQ;
  const int q_valid = (int)min((long long)TQ, len - q0);
  const bf16 *qbase = qh + ((long long)h * tokens + start) * kHeadDim;
  const bf16 *kbase = kh + ((long long)h * tokens + start) * kHeadDim;
  const bf16 *vbase = vh + ((long long)h * tokens + start) * kHeadDim;
  const bf16 zero = __float2bfloat16_rn(0.0f);

  for (int e = tid; e < TQ * DP; e += 128) {
    const int r = e / DP, d = e % DP;
    Qs[e] = (r < q_valid && d < kHeadDim) ? qbase[(long long)(q0 + r) * kHeadDim + d] : zero;
  }
  for (int e = tid; e < TQ * LDO; e += 128) Os[e] = 0.0f;
  if (tid < TQ) {
    row_max[tid] = -__int_as_float(0x7f800000);
    row_sum[tid] = 0.0f;
  }
  const float log2e_scale = scale * 1.4426950408889634f;

  for (int k0 = 0; k0 < len; k0 += TK) {
    const int k_valid = (int)min((long long)TK, len - k0);
    __syncthreads();  // previous tile's K, V, P are no longer read
    for (int e = tid; e < TK * DP; e += 128) {
      const int r = e / DP, d = e % DP;
      const bool ok = r < k_valid && d < kHeadDim;
      Ks[e] = ok ? kbase[(long long)(k0 + r) * kHeadDim + d] : zero;
      Vs[e] = ok ? vbase[(long long)(k0 + r) * kHeadDim + d] : zero;
    }
    __syncthreads();
    // S = Q K^T: warp w computes rows 16 w .. 16 w + 15, all 64 key columns.
    {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) wmma::fill_fragment(s[j], 0.0f);
#pragma unroll
      for (int kk = 0; kk < DP; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
        wmma::load_matrix_sync(a, Qs + warp * 16 * DP + kk, DP);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b;
          wmma::load_matrix_sync(b, Ks + j * 16 * DP + kk, DP);
          wmma::mma_sync(s[j], a, b, s[j]);
        }
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) wmma::store_matrix_sync(Ss + warp * 16 * LDS_S + j * 16, s[j], LDS_S, wmma::mem_row_major);
    }
    __syncthreads();
    // Online softmax: two threads per row, 32 columns each.
    {
      const int r = tid / 2, half = tid % 2;
      float m = -__int_as_float(0x7f800000);
      for (int c = half * 32; c < half * 32 + 32; ++c)
        if (c < k_valid) m = fmaxf(m, Ss[r * LDS_S + c]);
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
      const float m_old = row_max[r];
      const float m_new = fmaxf(m_old, m);
      float sum = 0.0f;
      for (int c = half * 32; c < half * 32 + 32; ++c) {
        const float p = c < k_valid ? exp2f((Ss[r * LDS_S + c] - m_new) * log2e_scale) : 0.0f;
        const bf16 pb = __float2bfloat16_rn(p);
        Ps[r * LDP + c] = pb;
        sum += __bfloat162float(pb);
      }
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      __syncwarp();
      if (half == 0) {
        const float alpha = exp2f((m_old - m_new) * log2e_scale);  // 0 on the first tile (m_old = -inf)
        row_alpha[r] = alpha;
        row_sum[r] = row_sum[r] * alpha + sum;
        row_max[r] = m_new;
      }
    }
    __syncthreads();
    for (int e = tid; e < TQ * DP; e += 128) {
      const int r = e / DP, d = e % DP;
      Os[r * LDO + d] *= row_alpha[r];
    }
    __syncthreads();
    // O += P V: warp w owns rows 16 w .. 16 w + 15, all 80 columns.
    {
#pragma unroll
      for (int j = 0; j < DP / 16; ++j) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> o;
        wmma::load_matrix_sync(o, Os + warp * 16 * LDO + j * 16, LDO, wmma::mem_row_major);
#pragma unroll
        for (int kk = 0; kk < TK; kk += 16) {
          wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> b;
          wmma::load_matrix_sync(a, Ps + warp * 16 * LDP + kk, LDP);
          wmma::load_matrix_sync(b, Vs + kk * DP + j * 16, DP);
          wmma::mma_sync(o, a, b, o);
        }
        wmma::store_matrix_sync(Os + warp * 16 * LDO + j * 16, o, LDO, wmma::mem_row_major);
      }
    }
  }
  __syncthreads();
  for (int e = tid; e < TQ * kHeadDim; e += 128) {
    const int r = e / kHeadDim, d = e % kHeadDim;
    if (r < q_valid)
      attn[(start + q0 + r) * kEmbed + h * kHeadDim + d] = __float2bfloat16_rn(Os[r * LDO + d] / row_sum[r]);
  }
}

/* mkb:plan
scratch qkv bf16[total_seq_len * qkv_dim]
scratch qh bf16[total_seq_len * embed_dim]
scratch kh bf16[total_seq_len * embed_dim]
scratch vh bf16[total_seq_len * embed_dim]
scratch attn bf16[total_seq_len * embed_dim]
launch gemm_bias grid(qkv_dim / 128, total_seq_len / 128) block(256) shared(67584)
  args(hidden_states, qkv_weight, qkv_bias, qkv, i32(total_seq_len), i32(qkv_dim), i32(embed_dim))
launch rope_split grid(ceil_div(total_seq_len * embed_dim, 256)) block(256)
  args(qkv, cos, sin, qh, kh, vh, i32(total_seq_len))
launch flash_attention grid(ceil_div(total_seq_len, 64) + num_sequences, num_heads) block(128) shared(79616)
  args(qh, kh, vh, cu_seqlens, attn, i32(total_seq_len), f32(scale))
launch gemm_bias grid(embed_dim / 128, total_seq_len / 128) block(256) shared(67584)
  args(attn, proj_weight, proj_bias, output, i32(total_seq_len), i32(embed_dim), i32(embed_dim))
*/
