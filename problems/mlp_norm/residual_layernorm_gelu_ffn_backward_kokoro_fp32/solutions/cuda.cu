// MetaKernelBench #35 (reconstructed: spec.json's notes), the backward of a post-LN residual tanh-GELU
// feed-forward block in fp32, from the saved activations. Notation: dy = grad_output, x = hidden_states,
// p = fc1_output, act = gelu_output, n = normalized (as [T, features], T = batch_size * seq_len = 69568),
// W1 = fc1_weight, W2 = fc2_weight:
//   dz = rstd * (g - mean(g) - n * mean(g * n)), g = dy * ln_weight, rstd = rsqrt(var + eps)  (grad of residual)
//   dln_weight = sum dy*n, dln_bias = sum dy, db2 = sum dz, dW2 = dz^T act, dh = (dz W2) * gelu_tanh'(p),
//   db1 = sum dh, dW1 = dh^T x, dx = dz + dh W1
// Four GEMMs on tensor cores as 3xTF32 (fp32-accurate), with the elementwise work in the epilogues: the
// dz W2 GEMM writes dh (the GELU derivative in one fused fp32 expression; the baseline rounds after each of
// its eager ops, a few ulps apart, far inside the allowance), the dh W1 GEMM adds dz. One warp-per-row kernel
// does the LayerNorm backward with per-block column partials of dy*n, dy and dz. The weight gradients reduce
// over T rows: split-K by 8 (the 2174 K tiles of 32 as 7 x 272 + 270) into fp32 partials, then a sum.
// All reductions are deterministic.
// Shapes: hidden 512 = 4*128, inter 2048 = 16*128 (N tiles, K tiles of 32); T = 69568 = 2174 * 32 rows, not a
// multiple of 128: the GEMMs with M = T bound-check their rows (zero-filled loads, no stores past T).

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

constexpr int kHidden = 512, kInter = 2048;
constexpr int kSplitK = 8;
static_assert(kHidden % gemm::BN == 0 && kInter % gemm::BN == 0, "N and M tiles of 128");
static_assert(kHidden % gemm::BK == 0 && kInter % gemm::BK == 0, "K tiles of 32");
static_assert(kHidden == 128 * 4, "ln_backward: 32 lanes x 4 float4 per row");

__device__ __forceinline__ float gelu_tanh_grad(float v) {
  const float k = 0.79788456080286536f, c = 0.044715f;
  const float t = tanhf(k * (v + c * v * v * v));
  return 0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * k * (1.0f + 3.0f * c * v * v);
}

struct epi_dh { // dh = acc * gelu_tanh'(p)
  const float *p;
  float *dh;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    const long long at = (long long)row * kInter + col;
    const float2 h = *reinterpret_cast<const float2 *>(p + at);
    *reinterpret_cast<float2 *>(dh + at) = make_float2(v0 * gelu_tanh_grad(h.x), v1 * gelu_tanh_grad(h.y));
  }
};

struct epi_dx { // dx = dz + acc
  const float *dz;
  float *dx;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    const long long at = (long long)row * kHidden + col;
    const float2 r = *reinterpret_cast<const float2 *>(dz + at);
    *reinterpret_cast<float2 *>(dx + at) = make_float2(r.x + v0, r.y + v1);
  }
};

struct epi_store { // plain store into a [*, ld] matrix
  float *c;
  int ld;
  __device__ void operator()(int row, int col, float v0, float v1) const {
    *reinterpret_cast<float2 *>(c + (long long)row * ld + col) = make_float2(v0, v1);
  }
};

// LayerNorm backward from the saved normalized rows and variance, one warp per row (512 = 32 lanes x 4
// float4), 32 rows per 256-thread block: dz = rstd * (g - mean(g) - n * mean(g * n)), g = dy * w.
// Writes per-block column partials [block][col] of dy*n (pgam), dy (pbet) and dz (pb2).
constexpr int kLnRows = 32, kQ = kHidden / 128;
extern "C" __global__ void __launch_bounds__(256)
ln_backward(const float *__restrict__ n, const float *__restrict__ var, const float *__restrict__ dy,
            const float *__restrict__ w, float *__restrict__ dz, float *__restrict__ pgam, float *__restrict__ pbet,
            float *__restrict__ pb2, int tokens, float eps) {
  __shared__ __align__(16) float red[8][kHidden];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float4 pg[kQ], pb[kQ], pz[kQ]; // column partials: dy*n, dy, dz
#pragma unroll
  for (int q = 0; q < kQ; ++q) {
    pg[q] = make_float4(0.f, 0.f, 0.f, 0.f);
    pb[q] = pg[q];
    pz[q] = pg[q];
  }
  const float4 *w4 = reinterpret_cast<const float4 *>(w);
  for (int rr = warp; rr < kLnRows; rr += 8) {
    const int row = blockIdx.x * kLnRows + rr;
    if (row >= tokens) break;
    const float4 *n4 = reinterpret_cast<const float4 *>(n + (long long)row * kHidden);
    const float4 *dy4 = reinterpret_cast<const float4 *>(dy + (long long)row * kHidden);
    const float rstd = rsqrtf(var[row] + eps);
    float4 nv[kQ], gv[kQ];
    float s1 = 0.f, s2 = 0.f; // sum g, sum g*n
#pragma unroll
    for (int q = 0; q < kQ; ++q) {
      const float4 d = dy4[q * 32 + lane], ww = w4[q * 32 + lane], nn = n4[q * 32 + lane];
      nv[q] = nn;
      gv[q] = make_float4(d.x * ww.x, d.y * ww.y, d.z * ww.z, d.w * ww.w);
      s1 += (gv[q].x + gv[q].y) + (gv[q].z + gv[q].w);
      s2 += (gv[q].x * nn.x + gv[q].y * nn.y) + (gv[q].z * nn.z + gv[q].w * nn.w);
      pg[q].x += d.x * nn.x; pg[q].y += d.y * nn.y; pg[q].z += d.z * nn.z; pg[q].w += d.w * nn.w;
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
    for (int q = 0; q < kQ; ++q) {
      float4 o;
      o.x = rstd * (gv[q].x - m1 - nv[q].x * m2);
      o.y = rstd * (gv[q].y - m1 - nv[q].y * m2);
      o.z = rstd * (gv[q].z - m1 - nv[q].z * m2);
      o.w = rstd * (gv[q].w - m1 - nv[q].w * m2);
      dz4[q * 32 + lane] = o;
      pz[q].x += o.x; pz[q].y += o.y; pz[q].z += o.z; pz[q].w += o.w;
    }
  }
  // combine the 8 warps' column partials, one quantity at a time
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    float *part = k == 0 ? pgam : (k == 1 ? pbet : pb2);
#pragma unroll
    for (int q = 0; q < kQ; ++q) {
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

// part[split][c] = sum of m[r][c] over rows r in [split * rows_per, (split+1) * rows_per) (and < rows)
extern "C" __global__ void col_partials(const float *__restrict__ m, float *__restrict__ part, int rows, int cols,
                                        int rows_per) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int r0 = blockIdx.y * rows_per, r1 = min(rows, r0 + rows_per);
  float s = 0.f;
  for (int r = r0; r < r1; ++r) s += m[(long long)r * cols + c];
  part[(long long)blockIdx.y * cols + c] = s;
}

// da = dz W2 (A = dz K-major [T][512], B = W2 [512][2048] N-major); dh = da * gelu_tanh'(p)
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dh(const float *__restrict__ dz, const float *__restrict__ W2, const float *__restrict__ p,
       float *__restrict__ dh, int tokens) {
  gemm::gemm_tile<true, false>(dz, kHidden, W2, kInter, tokens, kInter, 0, kHidden / gemm::BK, epi_dh{p, dh});
}

// dx = dz + dh W1 (A = dh K-major [T][2048], B = W1 [2048][512] N-major)
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dx(const float *__restrict__ dh, const float *__restrict__ W1, const float *__restrict__ dz,
       float *__restrict__ dx, int tokens) {
  gemm::gemm_tile<true, false>(dh, kInter, W1, kHidden, tokens, kHidden, 0, kInter / gemm::BK, epi_dx{dz, dx});
}

// The K tiles (of 32 rows) of split blockIdx.z: ceil(T/32 / 8) per split, the last one takes the rest.
__device__ __forceinline__ void split_range(int tokens, int &k_begin, int &k_tiles) {
  const int tiles = tokens / gemm::BK, per = (tiles + kSplitK - 1) / kSplitK;
  const int first = blockIdx.z * per;
  k_begin = first * gemm::BK;
  k_tiles = max(0, min(per, tiles - first));
}

// Split-K weight gradients, blockIdx.z = split of the row axis:
// part2[s] [512][2048] = dz^T act over the split (A = dz M-major, B = act N-major);
// part1[s] [2048][512] = dh^T x over the split (A = dh M-major, B = x N-major).
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dw2(const float *__restrict__ dz, const float *__restrict__ act, float *__restrict__ part2, int tokens) {
  int k_begin, k_tiles;
  split_range(tokens, k_begin, k_tiles);
  gemm::gemm_tile<false, false>(dz, kHidden, act, kInter, kHidden, kInter, k_begin, k_tiles,
                                epi_store{part2 + (long long)blockIdx.z * kHidden * kInter, kInter});
}
extern "C" __global__ void __launch_bounds__(gemm::THREADS, 2)
bwd_dw1(const float *__restrict__ dh, const float *__restrict__ x, float *__restrict__ part1, int tokens) {
  int k_begin, k_tiles;
  split_range(tokens, k_begin, k_tiles);
  gemm::gemm_tile<false, false>(dh, kInter, x, kHidden, kInter, kHidden, k_begin, k_tiles,
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
# T = batch_size * seq_len = 69568: a multiple of 32 (K tiles, ln_backward rows) and of 64 (col_partials)
scratch dz fp32[batch_size * seq_len * hidden_size]
scratch dh fp32[batch_size * seq_len * intermediate_size]
scratch pgam fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pbet fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pb2 fp32[(batch_size * seq_len / 32) * hidden_size]
scratch pb1 fp32[(batch_size * seq_len / 64) * intermediate_size]
scratch w2part fp32[8 * hidden_size * intermediate_size]
scratch w1part fp32[8 * intermediate_size * hidden_size]
launch ln_backward grid(batch_size * seq_len / 32) block(256)
  args(normalized, var, grad_output, ln_weight, dz, pgam, pbet, pb2, i32(batch_size * seq_len), f32(eps))
launch sum_partials grid(ceil_div(hidden_size, 256)) block(256) args(pgam, grad_ln_weight, i32(batch_size * seq_len / 32), i32(hidden_size))
launch sum_partials grid(ceil_div(hidden_size, 256)) block(256) args(pbet, grad_ln_bias, i32(batch_size * seq_len / 32), i32(hidden_size))
launch sum_partials grid(ceil_div(hidden_size, 256)) block(256) args(pb2, grad_fc2_bias, i32(batch_size * seq_len / 32), i32(hidden_size))
launch bwd_dh grid(intermediate_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(dz, fc2_weight, fc1_output, dh, i32(batch_size * seq_len))
launch col_partials grid(intermediate_size / 256, batch_size * seq_len / 64) block(256)
  args(dh, pb1, i32(batch_size * seq_len), i32(intermediate_size), i32(64))
launch sum_partials grid(ceil_div(intermediate_size, 256)) block(256) args(pb1, grad_fc1_bias, i32(batch_size * seq_len / 64), i32(intermediate_size))
launch bwd_dx grid(hidden_size / 128, ceil_div(batch_size * seq_len, 128)) block(256) shared(110592)
  args(dh, fc1_weight, dz, grad_hidden_states, i32(batch_size * seq_len))
launch bwd_dw2 grid(intermediate_size / 128, hidden_size / 128, 8) block(256) shared(110592)
  args(dz, gelu_output, w2part, i32(batch_size * seq_len))
launch bwd_dw1 grid(hidden_size / 128, intermediate_size / 128, 8) block(256) shared(110592)
  args(dh, hidden_states, w1part, i32(batch_size * seq_len))
launch sum_splits grid(ceil_div(hidden_size * intermediate_size / 4, 256)) block(256)
  args(w2part, grad_fc2_weight, i64(hidden_size * intermediate_size / 4))
launch sum_splits grid(ceil_div(intermediate_size * hidden_size / 4, 256)) block(256)
  args(w1part, grad_fc1_weight, i64(intermediate_size * hidden_size / 4))
*/
