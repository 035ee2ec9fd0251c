// Causal paged GQA prefill as one flash-attention forward kernel on bf16 tensor cores (mma.sync
// m16n8k16, fp32 accumulation), online softmax in fp32 and base 2.
//
// Rows: for request b and KV head g, the query heads of g's group are packed with the tokens into
// rows r = i * kGroup + h (query i, head g * kGroup + h), so each K/V tile loaded serves the whole
// group. A block (4 warps, 16 rows each) owns 64 such rows of one request and one KV head, and walks
// the request's keys in tiles of 64, gathered page by page through kv_indices with cp.async into a
// double-buffered, XOR-swizzled shared memory (conflict-free ldmatrix). Key tiles past the tile's last
// row's causal limit are never loaded; only tiles that cross a row's limit (or the end of the keys)
// are masked. Logits are scaled by sm_scale * log2(e), so exp2 and lse = m + log2(l) give the base-2
// log-sum-exp directly. Probabilities enter the P @ V product as bf16 (fp32 accumulation); the output
// is divided by the fp32 row sum and rounded to bf16 once. Blocks take the row tiles in reverse order,
// so the longest (last rows of causal requests) start first.
#include <cuda_bf16.h>

#define NUM_QO_HEADS 16
#define NUM_KV_HEADS 1
#define HEAD_DIM 128
#define PAGE_SIZE 64

namespace {

constexpr int kGroup = NUM_QO_HEADS / NUM_KV_HEADS;
constexpr int kRows = 64;           // packed (token, head) rows per block
constexpr int kKeys = 64;           // keys per tile
constexpr int kThreads = 128;       // 4 warps x 16 rows
constexpr int kTileBytes = 64 * HEAD_DIM * 2;
static_assert(HEAD_DIM == 128, "a row is 16 chunks of 16 bytes");

__device__ __forceinline__ unsigned swizzle(int row, int chunk) {
  return (unsigned)(row * (HEAD_DIM * 2) + ((chunk ^ (row & 7)) << 4));
}

__device__ __forceinline__ void cp_async16(unsigned dst, const void *src, bool valid) {
  const int bytes = valid ? 16 : 0; // 0: fill the 16 bytes with zeros, read nothing
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned &r0, unsigned &r1, unsigned &r2, unsigned &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned addr, unsigned &r0, unsigned &r1, unsigned &r2, unsigned &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&v);
}

__device__ __forceinline__ int kv_length(const int *kv_indptr, const int *last_page_len, int b) {
  const int pages = kv_indptr[b + 1] - kv_indptr[b];
  if (PAGE_SIZE == 1) return pages;
  return pages > 0 ? (pages - 1) * PAGE_SIZE + last_page_len[b] : 0;
}

__device__ __forceinline__ int row_tiles(const int *qo_indptr, int b) {
  return ((qo_indptr[b + 1] - qo_indptr[b]) * kGroup + kRows - 1) / kRows;
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads, 2)
paged_prefill_fa(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k_cache,
                 const __nv_bfloat16 *__restrict__ v_cache, const int *__restrict__ qo_indptr,
                 const int *__restrict__ kv_indptr, const int *__restrict__ kv_indices,
                 const int *__restrict__ last_page_len, __nv_bfloat16 *__restrict__ output, float *__restrict__ lse,
                 int batch_size, float scale_log2) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ int s_request, s_tile;
  const unsigned s_q = (unsigned)__cvta_generic_to_shared(smem);
  const unsigned s_k = s_q + kTileBytes;      // two buffers
  const unsigned s_v = s_q + 3 * kTileBytes;  // two buffers
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = blockIdx.x % NUM_KV_HEADS;

  // Which row tile: all requests' tiles in order, taken from the last one backwards.
  if (tid == 0) {
    int total = 0;
    for (int b = 0; b < batch_size; ++b) total += row_tiles(qo_indptr, b);
    int rest = total - 1 - (int)(blockIdx.x / NUM_KV_HEADS), request = -1;
    if (rest >= 0)
      for (int b = 0; b < batch_size; ++b) {
        const int n = row_tiles(qo_indptr, b);
        if (rest < n) {
          request = b;
          break;
        }
        rest -= n;
      }
    s_request = request;
    s_tile = rest;
  }
  __syncthreads();
  const int b = s_request;
  if (b < 0) return;
  const int r0 = s_tile * kRows;
  const int qs = qo_indptr[b], q_len = qo_indptr[b + 1] - qs;
  const int kv_len = kv_length(kv_indptr, last_page_len, b);
  const int delta = kv_len - q_len;
  const int rows = q_len * kGroup;
  const int kv_first = kv_indptr[b];
  // Keys any row of the tile sees, and keys every row sees (no mask needed below it).
  const int last_i = (min(r0 + kRows, rows) - 1) / kGroup;
  const int n_keys = max(0, min(kv_len, last_i + delta + 1));
  const int unmasked = max(0, min(kv_len, r0 / kGroup + delta + 1));
  const int n_tiles = (n_keys + kKeys - 1) / kKeys;

  // Q tile: 64 rows x 16 chunks, 8 chunks per thread (rows past the request are zeros).
  for (int e = 0; e < 8; ++e) {
    const int idx = tid + e * kThreads, row = idx >> 4, chunk = idx & 15;
    const int r = r0 + row;
    const bool valid = r < rows;
    const __nv_bfloat16 *src =
        valid ? q + ((long long)(qs + r / kGroup) * NUM_QO_HEADS + g * kGroup + r % kGroup) * HEAD_DIM + chunk * 8 : q;
    cp_async16(s_q + swizzle(row, chunk), src, valid);
  }
  auto load_kv = [&](int tile, int buf) {
    for (int e = 0; e < 8; ++e) {
      const int idx = tid + e * kThreads, key = idx >> 4, chunk = idx & 15;
      const int j = tile * kKeys + key;
      const bool valid = j < n_keys;
      long long off = 0;
      if (valid) {
        const long long page = kv_indices[kv_first + j / PAGE_SIZE];
        off = ((page * PAGE_SIZE + j % PAGE_SIZE) * NUM_KV_HEADS + g) * HEAD_DIM + chunk * 8;
      }
      cp_async16(s_k + buf * kTileBytes + swizzle(key, chunk), k_cache + off, valid);
      cp_async16(s_v + buf * kTileBytes + swizzle(key, chunk), v_cache + off, valid);
    }
  };
  if (n_tiles > 0) load_kv(0, 0);
  cp_async_commit();

  // This thread's two rows (C-fragment rows lane/4 and lane/4 + 8 of its warp) and their key limits.
  const int row_a = warp * 16 + (lane >> 2), row_b = row_a + 8;
  const int limit_a = min(kv_len, (r0 + row_a) / kGroup + delta + 1);
  const int limit_b = min(kv_len, (r0 + row_b) / kGroup + delta + 1);
  const float neg_inf = -__int_as_float(0x7f800000);
  float m_a = neg_inf, m_b = neg_inf, l_a = 0.0f, l_b = 0.0f;
  float o[16][4];
#pragma unroll
  for (int dt = 0; dt < 16; ++dt) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.0f;
  unsigned qf[8][4];

  for (int tile = 0; tile < n_tiles; ++tile) {
    const int buf = tile & 1;
    if (tile + 1 < n_tiles) load_kv(tile + 1, buf ^ 1);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (tile == 0) {
#pragma unroll
      for (int kk = 0; kk < 8; ++kk)
        ldsm_x4(s_q + swizzle(warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, kk * 2 + (lane >> 4)), qf[kk][0],
                qf[kk][1], qf[kk][2], qf[kk][3]);
    }

    // S = Q K^T: 16 rows x 64 keys per warp.
    float s[8][4];
    const unsigned kb = s_k + buf * kTileBytes;
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.0f;
#pragma unroll
      for (int k2 = 0; k2 < 4; ++k2) {
        unsigned b0, b1, b2, b3;
        ldsm_x4(kb + swizzle(nt * 8 + (lane & 7), k2 * 4 + (lane >> 3)), b0, b1, b2, b3);
        mma16816(s[nt], qf[2 * k2], b0, b1);
        mma16816(s[nt], qf[2 * k2 + 1], b2, b3);
      }
    }

    // Scale to base 2, mask, online softmax.
    const bool masked = (tile + 1) * kKeys > unmasked;
    float mx_a = neg_inf, mx_b = neg_inf;
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float v = s[nt][e] * scale_log2;
        if (masked) {
          const int j = tile * kKeys + nt * 8 + (lane & 3) * 2 + (e & 1);
          if (j >= (e < 2 ? limit_a : limit_b)) v = neg_inf;
        }
        s[nt][e] = v;
      }
      mx_a = fmaxf(mx_a, fmaxf(s[nt][0], s[nt][1]));
      mx_b = fmaxf(mx_b, fmaxf(s[nt][2], s[nt][3]));
    }
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 1));
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 2));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 1));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 2));
    const float new_a = fmaxf(m_a, mx_a), new_b = fmaxf(m_b, mx_b);
    const float base_a = new_a == neg_inf ? 0.0f : new_a, base_b = new_b == neg_inf ? 0.0f : new_b;
    const float alpha_a = exp2f(m_a - base_a), alpha_b = exp2f(m_b - base_b);
    m_a = new_a;
    m_b = new_b;
    float sum_a = 0.0f, sum_b = 0.0f;
    unsigned pa[4][4];
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      const float p0 = exp2f(s[nt][0] - base_a), p1 = exp2f(s[nt][1] - base_a);
      const float p2 = exp2f(s[nt][2] - base_b), p3 = exp2f(s[nt][3] - base_b);
      sum_a += p0 + p1;
      sum_b += p2 + p3;
      pa[nt >> 1][(nt & 1) * 2 + 0] = pack_bf16(p0, p1);
      pa[nt >> 1][(nt & 1) * 2 + 1] = pack_bf16(p2, p3);
    }
    l_a = l_a * alpha_a + sum_a;
    l_b = l_b * alpha_b + sum_b;
#pragma unroll
    for (int dt = 0; dt < 16; ++dt) {
      o[dt][0] *= alpha_a;
      o[dt][1] *= alpha_a;
      o[dt][2] *= alpha_b;
      o[dt][3] *= alpha_b;
    }

    // O += P V: P (16 x 64, bf16) as A fragments, V through transposing ldmatrix.
    const unsigned vb = s_v + buf * kTileBytes;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
#pragma unroll
      for (int d2 = 0; d2 < 8; ++d2) {
        unsigned b0, b1, b2, b3;
        ldsm_x4_trans(vb + swizzle(ks * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, d2 * 2 + (lane >> 4)), b0, b1, b2,
                      b3);
        mma16816(o[2 * d2], pa[ks], b0, b1);
        mma16816(o[2 * d2 + 1], pa[ks], b2, b3);
      }
    }
    __syncthreads();
  }
  cp_async_wait<0>();

  // Finish: row sums over the quad, normalize, round once; lse = m + log2(l).
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 1);
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 2);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 1);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 2);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int r = r0 + (half == 0 ? row_a : row_b);
    if (r >= rows) continue;
    const float l = half == 0 ? l_a : l_b, m = half == 0 ? m_a : m_b;
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    const long long out_row = (long long)(qs + r / kGroup) * NUM_QO_HEADS + g * kGroup + r % kGroup;
    __nv_bfloat16 *dst = output + out_row * HEAD_DIM + (lane & 3) * 2;
#pragma unroll
    for (int dt = 0; dt < 16; ++dt)
      *reinterpret_cast<__nv_bfloat162 *>(dst + dt * 8) =
          __floats2bfloat162_rn(o[dt][half * 2] * inv, o[dt][half * 2 + 1] * inv);
    if ((lane & 3) == 0) lse[out_row] = l > 0.0f ? m + log2f(l) : neg_inf;
  }
}

/* mkb:plan
# One block per (64 packed rows of one request, KV head); the grid bounds the tile count from above
# (sum over requests of ceil(q_len * group / 64) <= total_q * group / 64 + batch_size + 1); extra blocks exit.
launch paged_prefill_fa grid((total_q * (num_qo_heads / num_kv_heads) / 64 + batch_size + 1) * num_kv_heads)
  block(128) shared(81920)
  args(q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, kv_last_page_len, output, lse, i32(batch_size),
       f32(sm_scale * 1.4426950408889634))
*/
