// Backward of Kokoro-82M's PL-BERT (ALBERT) post-LN feed-forward block, fp32, with the block's
// activations recomputed (activation checkpointing):
//   forward   h = x W1^T + b1, a = gelu_tanh(h), z = x + a W2^T + b2, y = LayerNorm(z)
//   backward  dz = LN-backward(dy), dW2 = dz^T a, db2 = sum dz, dh = (dz W2) * gelu_tanh'(h),
//             dW1 = dh^T x, db1 = sum dh, dx = dz + dh W1, dln_weight = sum dy*zhat, dln_bias = sum dy
// Six GEMMs on tensor cores as 3xTF32 (fp32-accurate), each with its elementwise work in the
// epilogue: the up GEMM writes a and gelu'(h), the down GEMM writes z, the dz W2 GEMM writes dh,
// the dh W1 GEMM adds dz. One warp-per-row kernel does the LayerNorm statistics and backward with
// per-block column partials of dy*zhat, dy and dz. The weight gradients reduce over 8192 tokens:
// split-K by 8 into fp32 partials, then a sum. All reductions are deterministic.
// Shapes: hidden 768 = 6*128, inter 2048 = 16*128 (N tiles, K tiles of 32); tokens 8192 = 8 * 1024
// for the split-K weight gradients (tokens % (8*32) == 0), rows of the other GEMMs bounds-checked.

// ---- 3xTF32 tensor-core GEMM core (fp32-accurate) ---------------------------------------------------
// C[M,N] = sum_k A(m,k) * B(k,n), fp32 in and out. Each product uses the split x = hi + lo with
// hi = tf32(x), lo = tf32(x - hi): per 8-wide k step, part = lo_a*hi_b + hi_a*lo_b + hi_a*hi_b
// (mma.sync m16n8k8 from a zero accumulator), then acc += part in fp32 (round to nearest). The dropped
// lo*lo term is ~2^-22 relative: fp32-level accuracy.
// Block tile 128x128x32, 8 warps (2 along M x 4 along N) of 64x32, 3-stage cp.async pipeline,
// 2 blocks per SM (110.6 KB of shared memory and at most 128 registers per thread each).
// Operand layouts (template flags): A K-major ([M][K], lda) or M-major ([K][M], lda);
// B K-major ([N][K], ldb: an nn.Linear weight used as x @ W.T) or N-major ([K][N], ldb).
// Requirements (checked by the shapes this file launches, see the plan): N % 128 == 0, the K range
// of a block a multiple of 32, M % 4 == 0 for an M-major A (K-major A rows are bounds-checked and
// zero-filled, so any M works), all leading dimensions multiples of 4 floats (16-byte cp.async).
namespace gemm {
constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3, THREADS = 256;
constexpr int WN_TILES = 4; // n8 tiles per warp (warp tile 64 x 32)
constexpr int KPAD = BK + 4;  // row stride of a K-major tile: 36 floats, conflict-free fragment reads
constexpr int MPAD = BM + 8;  // row stride of an M/N-major tile: 136 floats, conflict-free too
constexpr int TILE_FLOATS = (BM * KPAD > BK * MPAD) ? BM * KPAD : BK * MPAD; // 4608
constexpr int STAGE_FLOATS = 2 * TILE_FLOATS;
// dynamic shared memory: STAGES * STAGE_FLOATS * 4 = 110592 bytes; two blocks fit in 227 KiB
static_assert(BM == BN, "one padded stride serves A and B");

__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool valid) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  const int bytes = valid ? 16 : 0; // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void split_tf32(float x, unsigned &hi, unsigned &lo) {
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(hi) : "f"(x));
  const float rest = x - __uint_as_float(hi);
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(lo) : "f"(rest));
}

__device__ __forceinline__ void mma_tf32(float *c, const unsigned *a, const unsigned *b) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Loads rows [r0, r0+128) x k [k0, k0+32) of an operand into a shared tile. K_MAJOR: element (r, k)
// at g[r * ld + k], tile s[r * KPAD + k]; else element (r, k) at g[k * ld + r], tile s[k * MPAD + r].
// Rows at or past `rows` are zero-filled.
template <bool K_MAJOR>
__device__ __forceinline__ void load_tile(float *s, const float *__restrict__ g, long long ld, int rows, int r0,
                                          int k0, int tid) {
#pragma unroll
  for (int it = 0; it < (BM * BK / 4) / THREADS; ++it) {
    const int c = tid + it * THREADS;
    if (K_MAJOR) {
      const int r = c >> 3, kc = (c & 7) * 4;
      const bool valid = r0 + r < rows;
      const float *src = valid ? g + (long long)(r0 + r) * ld + k0 + kc : g;
      cp_async16(s + r * KPAD + kc, src, valid);
    } else {
      const int k = c >> 5, rc = (c & 31) * 4;
      const bool valid = r0 + rc < rows;
      const float *src = valid ? g + (long long)(k0 + k) * ld + r0 + rc : g;
      cp_async16(s + k * MPAD + rc, src, valid);
    }
  }
}

template <bool K_MAJOR> __device__ __forceinline__ float tile_at(const float *s, int r, int k) {
  return K_MAJOR ? s[r * KPAD + k] : s[k * MPAD + r];
}

// One 128x128 output tile at block (blockIdx.y, blockIdx.x) over k in [k_begin, k_begin + 32*k_tiles).
// Calls epi(row, col, v0, v1) for columns col, col+1 (col even) of every row < M.
template <bool A_K, bool B_K, class Epi>
__device__ __forceinline__ void gemm_tile(const float *__restrict__ A, long long lda, const float *__restrict__ B,
                                          long long ldb, int M, int N, int k_begin, int k_tiles, const Epi &epi) {
  extern __shared__ __align__(16) float smem[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

  float acc[4][WN_TILES][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < WN_TILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) {
      load_tile<A_K>(smem + s * STAGE_FLOATS, A, lda, M, m0, k_begin + s * BK, tid);
      load_tile<B_K>(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, N, n0, k_begin + s * BK, tid);
    }
    cp_async_commit();
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>(); // tile kt has landed (this thread's copies)
    __syncthreads();             // ... everyone's; and everyone is done reading tile kt-1's stage
    const int next = kt + STAGES - 1;
    if (next < k_tiles) {
      float *st = smem + (next % STAGES) * STAGE_FLOATS;
      load_tile<A_K>(st, A, lda, M, m0, k_begin + next * BK, tid);
      load_tile<B_K>(st + TILE_FLOATS, B, ldb, N, n0, k_begin + next * BK, tid);
    }
    cp_async_commit(); // possibly empty: keeps the group count uniform
    const float *sA = smem + (kt % STAGES) * STAGE_FLOATS;
    const float *sB = sA + TILE_FLOATS;
#pragma unroll 1 // unrolling the k steps spills at 128 registers
    for (int kk = 0; kk < BK; kk += 8) {
      unsigned bh[WN_TILES][2], bl[WN_TILES][2];
#pragma unroll
      for (int j = 0; j < WN_TILES; ++j) {
        const int n = wn + j * 8 + g;
        split_tf32(tile_at<B_K>(sB, n, kk + t), bh[j][0], bl[j][0]);
        split_tf32(tile_at<B_K>(sB, n, kk + t + 4), bh[j][1], bl[j][1]);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int m = wm + i * 16 + g;
        unsigned ah[4], al[4];
        split_tf32(tile_at<A_K>(sA, m, kk + t), ah[0], al[0]);
        split_tf32(tile_at<A_K>(sA, m + 8, kk + t), ah[1], al[1]);
        split_tf32(tile_at<A_K>(sA, m, kk + t + 4), ah[2], al[2]);
        split_tf32(tile_at<A_K>(sA, m + 8, kk + t + 4), ah[3], al[3]);
#pragma unroll
        for (int j = 0; j < WN_TILES; ++j) {
          // The three products of this 8-wide k step go through a fresh tensor-core accumulator;
          // the running sum is kept outside the tensor cores with round-to-nearest adds, so the
          // tensor cores' truncating accumulation never acts on a long running sum.
          float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          mma_tf32(part, al, bh[j]);
          mma_tf32(part, ah, bl[j]);
          mma_tf32(part, ah, bh[j]);
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j][e] += part[e];
        }
      }
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + wm + i * 16 + g;
#pragma unroll
    for (int j = 0; j < WN_TILES; ++j) {
      const int col = n0 + wn + j * 8 + 2 * t;
      if (row < M) epi(row, col, acc[i][j][0], acc[i][j][1]);
      if (row + 8 < M) epi(row + 8, col, acc[i][j][2], acc[i][j][3]);
    }
  }
}
} // namespace gemm

constexpr int kHidden = 768, kInter = 2048;
constexpr int kSplitK = 8;
static_assert(kHidden % gemm::BN == 0 && kInter % gemm::BN == 0, "N and M tiles of 128");
static_assert(kHidden % gemm::BK == 0 && kInter % gemm::BK == 0, "K tiles of 32");

__device__ __forceinline__ void gelu_tanh_and_grad(float h, float &a, float &gp) {
  const float k = 0.79788456080286536f, c = 0.044715f;
  const float t = tanhf(k * (h + c * h * h * h));
  a = 0.5f * h * (1.0f + t);
  gp = 0.5f * (1.0f + t) + 0.5f * h * (1.0f - t * t) * k * (1.0f + 3.0f * c * h * h);
}

struct epi_up { // a = gelu(acc + b1), gp = gelu'(acc + b1)
  const float *b1;
  float *act, *gp;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    float2 o, d;
    gelu_tanh_and_grad(v0 + b1[col], o.x, d.x);
    gelu_tanh_and_grad(v1 + b1[col + 1], o.y, d.y);
    const long long at = (long long)row * kInter + col;
    *reinterpret_cast<float2 *>(act + at) = o;
    *reinterpret_cast<float2 *>(gp + at) = d;
  }
};

struct epi_down { // z = x + (acc + b2)
  const float *b2, *x;
  float *z;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    const long long at = (long long)row * kHidden + col;
    const float2 r = *reinterpret_cast<const float2 *>(x + at);
    float2 o;
    o.x = r.x + (v0 + b2[col]);
    o.y = r.y + (v1 + b2[col + 1]);
    *reinterpret_cast<float2 *>(z + at) = o;
  }
};

struct epi_dh { // dh = acc * gelu'(h)
  const float *gp;
  float *dh;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    const long long at = (long long)row * kInter + col;
    const float2 d = *reinterpret_cast<const float2 *>(gp + at);
    float2 o;
    o.x = v0 * d.x;
    o.y = v1 * d.y;
    *reinterpret_cast<float2 *>(dh + at) = o;
  }
};

struct epi_dx { // dx = dz + acc
  const float *dz;
  float *dx;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    const long long at = (long long)row * kHidden + col;
    const float2 r = *reinterpret_cast<const float2 *>(dz + at);
    float2 o;
    o.x = r.x + v0;
    o.y = r.y + v1;
    *reinterpret_cast<float2 *>(dx + at) = o;
  }
};

struct epi_store { // plain store into a [*, ld] matrix
  float *c;
  int ld;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    *reinterpret_cast<float2 *>(c + (long long)row * ld + col) = make_float2(v0, v1);
  }
};

// act, gp [tokens, 2048] from x [tokens, 768] and W1 [2048][768] (both K-major)
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
fwd_up(const float *__restrict__ x, const float *__restrict__ W1, const float *__restrict__ b1,
       float *__restrict__ act, float *__restrict__ gp, int tokens) {
  gemm::gemm_tile<true, true>(x, kHidden, W1, kHidden, tokens, kInter, 0, kHidden / gemm::BK, epi_up{b1, act, gp});
}

// z [tokens, 768] = x + act W2^T + b2; W2 [768][2048] K-major
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
fwd_down(const float *__restrict__ act, const float *__restrict__ W2, const float *__restrict__ b2,
         const float *__restrict__ x, float *__restrict__ z, int tokens) {
  gemm::gemm_tile<true, true>(act, kInter, W2, kInter, tokens, kHidden, 0, kInter / gemm::BK, epi_down{b2, x, z});
}

// LayerNorm backward, one warp per row (768 = 32 lanes x 6 float4), 32 rows per 256-thread block.
// dz = rstd * (g - mean(g) - zhat * mean(g * zhat)) with g = dy * w, zhat = (z - mean) * rstd.
// Writes per-block column partials [block][col] of dy*zhat (pgam), dy (pbet) and dz (pb2).
constexpr int kLnRows = 32;
extern "C" __global__ void __launch_bounds__(256)
ln_backward(const float *__restrict__ z, const float *__restrict__ dy, const float *__restrict__ w,
            float *__restrict__ dz, float *__restrict__ pgam, float *__restrict__ pbet, float *__restrict__ pb2,
            int tokens, float eps) {
  __shared__ __align__(16) float red[8][kHidden];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float4 pg[6], pb[6], pz[6]; // column partials: dy*zhat, dy, dz
#pragma unroll
  for (int q = 0; q < 6; ++q) {
    pg[q] = make_float4(0.f, 0.f, 0.f, 0.f);
    pb[q] = pg[q];
    pz[q] = pg[q];
  }
  const float4 *w4 = reinterpret_cast<const float4 *>(w);
  for (int rr = warp; rr < kLnRows; rr += 8) {
    const int row = blockIdx.x * kLnRows + rr;
    if (row >= tokens) break;
    const float4 *z4 = reinterpret_cast<const float4 *>(z + (long long)row * kHidden);
    const float4 *dy4 = reinterpret_cast<const float4 *>(dy + (long long)row * kHidden);
    float4 zv[6], gv[6];
    float sum = 0.f;
#pragma unroll
    for (int q = 0; q < 6; ++q) {
      zv[q] = z4[q * 32 + lane];
      sum += (zv[q].x + zv[q].y) + (zv[q].z + zv[q].w);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float mean = sum * (1.0f / kHidden);
    float sq = 0.f;
#pragma unroll
    for (int q = 0; q < 6; ++q) {
      const float a = zv[q].x - mean, b = zv[q].y - mean, c = zv[q].z - mean, d = zv[q].w - mean;
      sq += (a * a + b * b) + (c * c + d * d);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
    const float rstd = rsqrtf(sq * (1.0f / kHidden) + eps);
    float s1 = 0.f, s2 = 0.f; // sum g, sum g*zhat
#pragma unroll
    for (int q = 0; q < 6; ++q) {
      const float4 d = dy4[q * 32 + lane], ww = w4[q * 32 + lane];
      float4 zh;
      zh.x = (zv[q].x - mean) * rstd;
      zh.y = (zv[q].y - mean) * rstd;
      zh.z = (zv[q].z - mean) * rstd;
      zh.w = (zv[q].w - mean) * rstd;
      zv[q] = zh; // zv now holds zhat
      gv[q] = make_float4(d.x * ww.x, d.y * ww.y, d.z * ww.z, d.w * ww.w);
      s1 += (gv[q].x + gv[q].y) + (gv[q].z + gv[q].w);
      s2 += (gv[q].x * zh.x + gv[q].y * zh.y) + (gv[q].z * zh.z + gv[q].w * zh.w);
      pg[q].x += d.x * zh.x; pg[q].y += d.y * zh.y; pg[q].z += d.z * zh.z; pg[q].w += d.w * zh.w;
      pb[q].x += d.x; pb[q].y += d.y; pb[q].z += d.z; pb[q].w += d.w;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      s1 += __shfl_xor_sync(0xffffffffu, s1, o);
      s2 += __shfl_xor_sync(0xffffffffu, s2, o);
    }
    const float m1 = s1 * (1.0f / kHidden), m2 = s2 * (1.0f / kHidden);
    float4 *dz4 = reinterpret_cast<float4 *>(dz + (long long)row * kHidden);
#pragma unroll
    for (int q = 0; q < 6; ++q) {
      float4 o;
      o.x = rstd * (gv[q].x - m1 - zv[q].x * m2);
      o.y = rstd * (gv[q].y - m1 - zv[q].y * m2);
      o.z = rstd * (gv[q].z - m1 - zv[q].z * m2);
      o.w = rstd * (gv[q].w - m1 - zv[q].w * m2);
      dz4[q * 32 + lane] = o;
      pz[q].x += o.x; pz[q].y += o.y; pz[q].z += o.z; pz[q].w += o.w;
    }
  }
  // combine the 8 warps' column partials, one quantity at a time
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    float *part = k == 0 ? pgam : (k == 1 ? pbet : pb2);
#pragma unroll
    for (int q = 0; q < 6; ++q) {
      const float4 v = k == 0 ? pg[q] : (k == 1 ? pb[q] : pz[q]);
      *reinterpret_cast<float4 *>(&red[warp][(q * 32 + lane) * 4]) = v;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < kHidden; c += 256) {
      float s = 0.f;
#pragma unroll
      for (int wv = 0; wv < 8; ++wv) s += red[wv][c];
      part[(long long)blockIdx.x * kHidden + c] = s;
    }
    __syncthreads();
  }
}

// out[c] = sum_p part[p * cols + c]
extern "C" __global__ void sum_partials(const float *__restrict__ part, float *__restrict__ out, int parts, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.f;
  for (int p = 0; p < parts; ++p) s += part[(long long)p * cols + c];
  out[c] = s;
}

// part[split][c] = sum of m[r][c] over rows r in [split * rows_per, (split+1) * rows_per)
extern "C" __global__ void col_partials(const float *__restrict__ m, float *__restrict__ part, int rows, int cols,
                                        int rows_per) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int r0 = blockIdx.y * rows_per, r1 = min(rows, r0 + rows_per);
  float s = 0.f;
  for (int r = r0; r < r1; ++r) s += m[(long long)r * cols + c];
  part[(long long)blockIdx.y * cols + c] = s;
}

// da = dz W2 (A = dz K-major [tokens][768], B = W2 [768][2048] N-major); dh = da * gp
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dh(const float *__restrict__ dz, const float *__restrict__ W2, const float *__restrict__ gp,
       float *__restrict__ dh, int tokens) {
  gemm::gemm_tile<true, false>(dz, kHidden, W2, kInter, tokens, kInter, 0, kHidden / gemm::BK, epi_dh{gp, dh});
}

// dx = dz + dh W1 (A = dh K-major [tokens][2048], B = W1 [2048][768] N-major)
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dx(const float *__restrict__ dh, const float *__restrict__ W1, const float *__restrict__ dz,
       float *__restrict__ dx, int tokens) {
  gemm::gemm_tile<true, false>(dh, kInter, W1, kHidden, tokens, kHidden, 0, kInter / gemm::BK, epi_dx{dz, dx});
}

// Split-K weight gradients, blockIdx.z = split of the token axis:
// part2[s] [768][2048] = dz^T act over the split (A = dz M-major, B = act N-major);
// part1[s] [2048][768] = dh^T x over the split (A = dh M-major, B = x N-major).
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dw2(const float *__restrict__ dz, const float *__restrict__ act, float *__restrict__ part2, int tokens) {
  const int per = tokens / kSplitK;
  gemm::gemm_tile<false, false>(dz, kHidden, act, kInter, kHidden, kInter, blockIdx.z * per, per / gemm::BK,
                                epi_store{part2 + (long long)blockIdx.z * kHidden * kInter, kInter});
}
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dw1(const float *__restrict__ dh, const float *__restrict__ x, float *__restrict__ part1, int tokens) {
  const int per = tokens / kSplitK;
  gemm::gemm_tile<false, false>(dh, kInter, x, kHidden, kInter, kHidden, blockIdx.z * per, per / gemm::BK,
                                epi_store{part1 + (long long)blockIdx.z * kInter * kHidden, kHidden});
}

// out[i] = sum_s part[s * n + i], float4-wide (n % 4 == 0)
extern "C" __global__ void sum_splits(const float *__restrict__ part, float *__restrict__ out, long long n4) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  const float4 *p = reinterpret_cast<const float4 *>(part);
  float4 s = p[i];
#pragma unroll
  for (int k = 1; k < kSplitK; ++k) {
    const float4 v = p[(long long)k * n4 + i];
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  reinterpret_cast<float4 *>(out)[i] = s;
}

/* mkb:plan
# tokens = 8192: a multiple of 8 splits x 32 (split-K), of 32 (ln_backward rows), of 128 (col_partials)
scratch act fp32[tokens * inter]
scratch gp fp32[tokens * inter]
scratch z fp32[tokens * hidden]
scratch dz fp32[tokens * hidden]
scratch dh fp32[tokens * inter]
scratch pgam fp32[(tokens / 32) * hidden]
scratch pbet fp32[(tokens / 32) * hidden]
scratch pb2 fp32[(tokens / 32) * hidden]
scratch pb1 fp32[(tokens / 128) * inter]
scratch w2part fp32[8 * hidden * inter]
scratch w1part fp32[8 * inter * hidden]
launch fwd_up grid(inter / 128, ceil_div(tokens, 128)) block(256) shared(110592) args(x, W1, b1, act, gp, i32(tokens))
launch fwd_down grid(hidden / 128, ceil_div(tokens, 128)) block(256) shared(110592) args(act, W2, b2, x, z, i32(tokens))
launch ln_backward grid(tokens / 32) block(256) args(z, dy, ln_weight, dz, pgam, pbet, pb2, i32(tokens), f32(eps))
launch sum_partials grid(ceil_div(hidden, 256)) block(256) args(pgam, dln_weight, i32(tokens / 32), i32(hidden))
launch sum_partials grid(ceil_div(hidden, 256)) block(256) args(pbet, dln_bias, i32(tokens / 32), i32(hidden))
launch sum_partials grid(ceil_div(hidden, 256)) block(256) args(pb2, db2, i32(tokens / 32), i32(hidden))
launch bwd_dh grid(inter / 128, ceil_div(tokens, 128)) block(256) shared(110592) args(dz, W2, gp, dh, i32(tokens))
launch col_partials grid(inter / 256, tokens / 128) block(256) args(dh, pb1, i32(tokens), i32(inter), i32(128))
launch sum_partials grid(ceil_div(inter, 256)) block(256) args(pb1, db1, i32(tokens / 128), i32(inter))
launch bwd_dx grid(hidden / 128, ceil_div(tokens, 128)) block(256) shared(110592) args(dh, W1, dz, dx, i32(tokens))
launch bwd_dw2 grid(inter / 128, hidden / 128, 8) block(256) shared(110592) args(dz, act, w2part, i32(tokens))
launch bwd_dw1 grid(hidden / 128, inter / 128, 8) block(256) shared(110592) args(dh, x, w1part, i32(tokens))
launch sum_splits grid(ceil_div(hidden * inter / 4, 256)) block(256) args(w2part, dW2, i64(hidden * inter / 4))
launch sum_splits grid(ceil_div(inter * hidden / 4, 256)) block(256) args(w1part, dW1, i64(inter * hidden / 4))
*/
