// Fused ragged causal prefill: a flash-attention forward on bf16 tensor cores (mma.sync m16n8k16,
// fp32 accumulation) with the online softmax in fp32, base 2.
//
// One block of 4 warps per (request, 64-query tile, query head); each warp owns 16 query rows. K and V
// tiles of 64 keys stream through shared memory with cp.async, double-buffered; key tiles past the
// causal limit of the block's last query are never loaded, and the mask is applied only in tiles that
// cross the diagonal or the end of the request. Logits are scaled by sm_scale * log2(e), so the running
// maximum and the final LSE are in base 2 directly. The softmax weights are rounded to bf16 for the
// P.V product; their row sums stay fp32. Within a request, the query tiles run last-first (the
// longest rows first), and the 16 heads of one tile are neighbours, so that a KV head's tiles are read
// from L2 by its 8 query heads at about the same time.
#include <cuda_bf16.h>

namespace {

constexpr int kQoHeads = 16, kKvHeads = 2, kQkDim = 128, kVoDim = 128;
constexpr int kGroup = kQoHeads / kKvHeads;
constexpr int kBlockM = 64, kBlockN = 64, kThreads = 128;
// Shared rows are padded by 16 bytes, so the 8 row addresses of an ldmatrix fall in distinct banks.
constexpr int kQkStride = kQkDim + 8, kVoStride = kVoDim + 8;
constexpr int kQTile = kBlockM * kQkStride, kKTile = kBlockN * kQkStride, kVTile = kBlockN * kVoStride;
// Dynamic shared memory: Q, two K buffers, two V buffers (bf16). 87040 bytes here.
constexpr int kSmemBytes = (kQTile + 2 * kKTile + 2 * kVTile) * 2;
static_assert(kSmemBytes == 87040, "the plan's shared() must match");

typedef __nv_bfloat16 bf16;

__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool valid) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const bf16 *p) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const bf16 *p) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}
// d += a (16x16, row) * b (16x8, col), bf16 in, fp32 accumulate.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned *>(&v);
}

// Copies rows [0, kRows) of a tile (row r at g + r * row_stride, kDim elements) into shared memory with
// row stride kStride; rows at or past `valid` are zero-filled without reading global memory.
template <int kRows, int kDim, int kStride>
__device__ __forceinline__ void load_tile(bf16 *s, const bf16 *g, long long row_stride, int valid) {
  constexpr int kChunks = kDim / 8;
#pragma unroll
  for (int idx = threadIdx.x; idx < kRows * kChunks; idx += kThreads) {
    const int r = idx / kChunks, c = idx % kChunks;
    const bool ok = r < valid;
    cp_async16(s + r * kStride + c * 8, g + (ok ? (long long)r * row_stride + c * 8 : 0), ok);
  }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
ragged_prefill_fwd(const bf16 *__restrict__ q, const bf16 *__restrict__ k, const bf16 *__restrict__ v,
                   const int *__restrict__ qo_indptr, const int *__restrict__ kv_indptr, bf16 *__restrict__ out,
                   float *__restrict__ lse, int batch, float scale_log2) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16 *sQ = reinterpret_cast<bf16 *>(smem_raw);
  bf16 *sK = sQ + kQTile;
  bf16 *sV = sK + 2 * kKTile;
  __shared__ int s_req, s_tile;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int item = blockIdx.x / kQoHeads, h = blockIdx.x % kQoHeads, kvh = h / kGroup;

  // Which request and query tile: item counts the query tiles of requests 0, 1, ... in order.
  if (warp == 0) {
    int base = 0, found_req = -1, found_tile = 0;
    for (int c = 0; c < batch; c += 32) {
      const int b = c + lane;
      const int n = b < batch ? (qo_indptr[b + 1] - qo_indptr[b] + kBlockM - 1) / kBlockM : 0;
      int incl = n;
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off) incl += y;
      }
      const int excl = incl - n;
      const unsigned hit = __ballot_sync(0xffffffffu, n > 0 && item >= base + excl && item < base + incl);
      if (hit) {
        const int src = __ffs(hit) - 1;
        found_req = c + src;
        found_tile = item - base - __shfl_sync(0xffffffffu, excl, src);
        break;
      }
      base += __shfl_sync(0xffffffffu, incl, 31);
    }
    if (lane == 0) {
      s_req = found_req;
      s_tile = found_tile;
    }
  }
  __syncthreads();
  const int b = s_req;
  if (b < 0) return; // past the last tile: the grid is an upper bound

  const int qs = qo_indptr[b], q_len = qo_indptr[b + 1] - qs;
  const int ks = kv_indptr[b], kv_len = kv_indptr[b + 1] - ks;
  const int delta = kv_len - q_len;
  const int m_tiles = (q_len + kBlockM - 1) / kBlockM;
  const int m0 = (m_tiles - 1 - s_tile) * kBlockM;
  // Keys 0 .. n_end-1 can be seen by some query of this tile.
  const int n_end = max(0, min(kv_len, m0 + kBlockM + delta));
  const int n_tiles = (n_end + kBlockN - 1) / kBlockN;

  const long long k_stride = (long long)kKvHeads * kQkDim, v_stride = (long long)kKvHeads * kVoDim;
  const bf16 *k_base = k + ((long long)ks * kKvHeads + kvh) * kQkDim;
  const bf16 *v_base = v + ((long long)ks * kKvHeads + kvh) * kVoDim;

  load_tile<kBlockM, kQkDim, kQkStride>(sQ, q + ((long long)(qs + m0) * kQoHeads + h) * kQkDim,
                                        (long long)kQoHeads * kQkDim, q_len - m0);
  if (n_tiles > 0) {
    load_tile<kBlockN, kQkDim, kQkStride>(sK, k_base, k_stride, kv_len);
    load_tile<kBlockN, kVoDim, kVoStride>(sV, v_base, v_stride, kv_len);
  }
  cp_async_commit();

  const float neg_inf = -__int_as_float(0x7f800000);
  float o[kVoDim / 8][4];
#pragma unroll
  for (int db = 0; db < kVoDim / 8; ++db)
#pragma unroll
    for (int e = 0; e < 4; ++e) o[db][e] = 0.0f;
  float m_run[2] = {neg_inf, neg_inf}, l_run[2] = {0.0f, 0.0f};
  // Query index (within the request) of this thread's rows: row_i and row_i + 8.
  const int row_i = m0 + warp * 16 + (lane >> 2);

  for (int it = 0; it < n_tiles; ++it) {
    const int buf = it & 1;
    if (it + 1 < n_tiles) {
      const int n1 = (it + 1) * kBlockN;
      load_tile<kBlockN, kQkDim, kQkStride>(sK + (buf ^ 1) * kKTile, k_base + n1 * k_stride, k_stride, kv_len - n1);
      load_tile<kBlockN, kVoDim, kVoStride>(sV + (buf ^ 1) * kVTile, v_base + n1 * v_stride, v_stride, kv_len - n1);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const bf16 *cK = sK + buf * kKTile;
    const bf16 *cV = sV + buf * kVTile;
    const int n0 = it * kBlockN;

    // S = Q K^T for this warp's 16 rows and the tile's 64 keys.
    float s[kBlockN / 8][4];
#pragma unroll
    for (int nb = 0; nb < kBlockN / 8; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[nb][e] = 0.0f;
#pragma unroll
    for (int kc = 0; kc < kQkDim / 16; ++kc) {
      unsigned a[4];
      ldmatrix_x4(a, sQ + (warp * 16 + (lane & 15)) * kQkStride + kc * 16 + (lane >> 4) * 8);
#pragma unroll
      for (int nb2 = 0; nb2 < kBlockN / 16; ++nb2) {
        unsigned bk[4];
        ldmatrix_x4(bk, cK + (nb2 * 16 + (lane & 7) + ((lane >> 4) << 3)) * kQkStride + kc * 16 + ((lane >> 3) & 1) * 8);
        mma_bf16(s[2 * nb2], a, bk[0], bk[1]);
        mma_bf16(s[2 * nb2 + 1], a, bk[2], bk[3]);
      }
    }

    // Scale to base 2, mask, and update the running maximum of rows row_i (e = 0, 1) and row_i + 8 (e = 2, 3).
    const bool need_mask = n0 + kBlockN > m0 + 1 + delta || n0 + kBlockN > kv_len;
    float mx[2] = {neg_inf, neg_inf};
#pragma unroll
    for (int nb = 0; nb < kBlockN / 8; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = s[nb][e] * scale_log2;
        if (need_mask) {
          const int j = n0 + nb * 8 + 2 * (lane & 3) + (e & 1), i = row_i + (e >> 1) * 8;
          if (j >= i + 1 + delta || j >= kv_len) x = neg_inf;
        }
        s[nb][e] = x;
        mx[e >> 1] = fmaxf(mx[e >> 1], x);
      }
    float m_use[2], alpha[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
      const float m_new = fmaxf(m_run[r], mx[r]);
      m_use[r] = m_new == neg_inf ? 0.0f : m_new;
      alpha[r] = exp2f(m_run[r] - m_use[r]);
      m_run[r] = m_new;
    }
    float row_sum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int nb = 0; nb < kBlockN / 8; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float p = exp2f(s[nb][e] - m_use[e >> 1]);
        s[nb][e] = p;
        row_sum[e >> 1] += p;
      }
#pragma unroll
    for (int r = 0; r < 2; ++r) l_run[r] = l_run[r] * alpha[r] + row_sum[r];
#pragma unroll
    for (int db = 0; db < kVoDim / 8; ++db)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[db][e] *= alpha[e >> 1];

    // O += P V: the S accumulators of two neighbouring 8-key blocks are the A fragment of 16 keys.
#pragma unroll
    for (int kc = 0; kc < kBlockN / 16; ++kc) {
      unsigned a[4];
      a[0] = pack_bf16(s[2 * kc][0], s[2 * kc][1]);
      a[1] = pack_bf16(s[2 * kc][2], s[2 * kc][3]);
      a[2] = pack_bf16(s[2 * kc + 1][0], s[2 * kc + 1][1]);
      a[3] = pack_bf16(s[2 * kc + 1][2], s[2 * kc + 1][3]);
#pragma unroll
      for (int db2 = 0; db2 < kVoDim / 16; ++db2) {
        unsigned bv[4];
        ldmatrix_x4_trans(bv, cV + (kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * kVoStride + db2 * 16 + (lane >> 4) * 8);
        mma_bf16(o[2 * db2], a, bv[0], bv[1]);
        mma_bf16(o[2 * db2 + 1], a, bv[2], bv[3]);
      }
    }
    __syncthreads(); // the next iteration refills the buffer just read
  }

  // Finish: the row sums over the 4 threads of a row, normalize, store bf16 output and base-2 LSE.
  float inv[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l_run[r] += __shfl_xor_sync(0xffffffffu, l_run[r], 1);
    l_run[r] += __shfl_xor_sync(0xffffffffu, l_run[r], 2);
    inv[r] = l_run[r] > 0.0f ? 1.0f / l_run[r] : 0.0f;
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int i = row_i + r * 8;
    if (i < q_len) {
      bf16 *dst = out + ((long long)(qs + i) * kQoHeads + h) * kVoDim + 2 * (lane & 3);
#pragma unroll
      for (int db = 0; db < kVoDim / 8; ++db)
        *reinterpret_cast<__nv_bfloat162 *>(dst + db * 8) =
            __floats2bfloat162_rn(o[db][2 * r] * inv[r], o[db][2 * r + 1] * inv[r]);
      if ((lane & 3) == 0)
        lse[(long long)(qs + i) * kQoHeads + h] = l_run[r] > 0.0f ? m_run[r] + log2f(l_run[r]) : neg_inf;
    }
  }
}

/* mkb:plan
launch ragged_prefill_fwd grid(num_qo_heads * (ceil_div(total_q, 64) + batch_size)) block(128) shared(87040)
  args(q, k, v, qo_indptr, kv_indptr, output, lse, i32(batch_size), f32(sm_scale * 1.4426950408889634))
*/
