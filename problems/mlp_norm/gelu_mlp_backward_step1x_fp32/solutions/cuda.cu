// MetaKernelBench #37 (reconstructed: spec.json's notes), the tanh-GELU MLP backward in fp32 accuracy on
// tensor cores: four 3xTF32 GEMMs, with the GELU backward and the grad_fc1_bias column sum fused into the
// epilogue of the dy W2 GEMM, and grad_fc2_bias (a column sum of the input dy) in one small kernel that
// also clears grad_fc1_bias for the atomics. Notation: dy = grad_output, x = hidden_states, p = fc1_output,
// act = gelu_output (all as [T, features], T = batch_size * seq_len), W1 = fc1_weight, W2 = fc2_weight.
//
// Launches: (1) colsum_dy: db2 = sum_t dy, db1 = 0. (2) bwd_dh: da = dy W2 (never stored);
// dh = da * gelu_tanh'(p) stored (scratch), db1 += column sums of dh (fp32 atomics, 32 per column).
// (3) bwd_dw2: dW2 = dy^T act. (4) bwd_dw1: dW1 = dh^T x. (5) bwd_dx: dx = dh W1.
// The GELU derivative is one fused fp32 expression; the baseline rounds after each eager op, a few ulps
// apart, far inside the allowance that the GEMMs' own rounding sets.
//
// GEMM: 128x128x32 block tiles, 256 threads (8 warps as 2 x 4, each a 64x32 warp tile), a 4-stage
// cp.async pipeline, mma.sync m16n8k8 TF32. Each fp32 operand v is split into hi = tf32(v) and
// lo = tf32(v - hi); the product uses hi*hi' + hi*lo' + lo*hi' (the lo*lo' term is below fp32's
// rounding). Tensor-core accumulation truncates, so every 32-wide k tile is summed by the MMAs into a
// fresh partial accumulator that is then added to the main fp32 accumulator with an ordinary
// (round-to-nearest) add: the running sum never goes through the truncating accumulator.
// Operands are K-contiguous or M/N-contiguous in memory; the tile loader and the fragment reads
// follow (padded strides 36 and 136 floats keep the fragment reads free of bank conflicts).
//
// Shapes (spec): T = 64 * 128 = 8192, hidden_size = 2048, intermediate_size = 8192. M % 128, N % 128 and
// K % 32 must be 0 (all three are multiples of 128); the GEMM kernels return without writing otherwise.
typedef unsigned int u32;

namespace {
constexpr int BM = 128, BN = 128, BK = 32, STAGES = 4, THREADS = 256;
constexpr int KPAD = BK + 4;   // row stride (floats) of a K-contiguous tile: conflict-free fragments
constexpr int MPAD = BM + 8;   // row stride (floats) of an M/N-contiguous tile (BM == BN)
constexpr int TILE_FLOATS = BM * KPAD; // 4608 >= BK * MPAD = 4352
constexpr int STAGE_FLOATS = 2 * TILE_FLOATS;
// dynamic shared memory: STAGES * STAGE_FLOATS * 4 = 147456 bytes (the plan's shared(147456))
static_assert(BK * MPAD <= TILE_FLOATS, "tile fits");
static_assert(BM == BN, "one MPAD for both operands");

__device__ __forceinline__ void cp_async16(float *dst, const float *src) {
  u32 d = (u32)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Loads one 128 x 32 tile of an operand into shared memory.
// K_MAJOR: element (r, k) lives at g[(row0 + r) * ld + k0 + k] and goes to s[r * KPAD + k].
// else:    element (r, k) lives at g[(k0 + k) * ld + row0 + r] and goes to s[k * MPAD + r].
template <bool K_MAJOR>
__device__ __forceinline__ void load_tile(float *s, const float *g, int ld, int row0, int k0, int tid) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int c = tid + i * THREADS; // 1024 16-byte chunks
    if (K_MAJOR) {
      const int r = c >> 3, k = (c & 7) * 4;
      cp_async16(s + r * KPAD + k, g + (long long)(row0 + r) * ld + k0 + k);
    } else {
      const int k = c >> 5, r = (c & 31) * 4;
      cp_async16(s + k * MPAD + r, g + (long long)(k0 + k) * ld + row0 + r);
    }
  }
}

template <bool K_MAJOR> __device__ __forceinline__ float frag(const float *s, int r, int k) {
  return K_MAJOR ? s[r * KPAD + k] : s[k * MPAD + r];
}

// hi = v rounded to TF32 (10 explicit mantissa bits, to nearest, ties away: what cvt.rna.tf32.f32
// does for finite v, in two integer operations instead of cvt's longer sequence); lo = v - hi is exact
// in fp32 and goes to the tensor core as it is (the MMA reads its top 10 mantissa bits, so lo is
// truncated to TF32: an error below 2^-21 |v|). Inputs here are finite and far from fp32's overflow.
__device__ __forceinline__ void split(float v, u32 &hi, u32 &lo) {
  hi = (__float_as_uint(v) + 0x1000u) & 0xffffe000u;
  lo = __float_as_uint(v - __uint_as_float(hi));
}

__device__ __forceinline__ void mma_tf32(float *d, const u32 *a, const u32 *b) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// C[M, N] = A[M, K] * B[K, N] with fp32 accuracy; epi(nt, row, col, v0, v1) receives C[row, col] and
// C[row, col + 1] (col even; nt = the warp's 8-column group, 0..3, a constant after unrolling). A is K-contiguous (A_K) or M-contiguous; B is K-contiguous (B_K, i.e.
// stored [N, K] like an nn.Linear weight) or N-contiguous.
template <bool A_K, bool B_K, class Epi>
__device__ __forceinline__ void gemm_3xtf32(const float *__restrict__ A, const float *__restrict__ B, int M, int N,
                                            int K, int lda, int ldb, Epi epi) {
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3; // 2 x 4 warps
  const int g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int KT = K / BK;

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) {
      load_tile<A_K>(smem + s * STAGE_FLOATS, A, lda, m0, s * BK, tid);
      load_tile<B_K>(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, n0, s * BK, tid);
    }
    cp_async_commit();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>(); // tile kt has landed (this thread's copies)
    __syncthreads();             // everyone's copies visible; everyone done with tile kt - 1
    {
      const int nk = kt + STAGES - 1; // refill the stage tile kt - 1 used
      if (nk < KT) {
        const int s = nk % STAGES;
        load_tile<A_K>(smem + s * STAGE_FLOATS, A, lda, m0, nk * BK, tid);
        load_tile<B_K>(smem + s * STAGE_FLOATS + TILE_FLOATS, B, ldb, n0, nk * BK, tid);
      }
      cp_async_commit();
    }
    const float *As = smem + (kt % STAGES) * STAGE_FLOATS;
    const float *Bs = As + TILE_FLOATS;

    float part[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) part[i][j][e] = 0.0f;

#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      u32 bh[4][2], bl[4][2];
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const int n = wn * 32 + nt * 8 + g;
        split(frag<B_K>(Bs, n, kk + t), bh[nt][0], bl[nt][0]);
        split(frag<B_K>(Bs, n, kk + t + 4), bh[nt][1], bl[nt][1]);
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const int r = wm * 64 + mt * 16 + g;
        u32 ah[4], al[4];
        split(frag<A_K>(As, r, kk + t), ah[0], al[0]);
        split(frag<A_K>(As, r + 8, kk + t), ah[1], al[1]);
        split(frag<A_K>(As, r, kk + t + 4), ah[2], al[2]);
        split(frag<A_K>(As, r + 8, kk + t + 4), ah[3], al[3]);
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          mma_tf32(part[mt][nt], al, bh[nt]);
          mma_tf32(part[mt][nt], ah, bl[nt]);
          mma_tf32(part[mt][nt], ah, bh[nt]);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] += part[i][j][e];
  }
  cp_async_wait<0>();

  // Accumulator fragment (mt, nt): rows r, r + 8 with r = g; columns 2t, 2t + 1.
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      const int row = m0 + wm * 64 + mt * 16 + g;
      const int col = n0 + wn * 32 + nt * 8 + 2 * t;
      epi(nt, row, col, acc[mt][nt][0], acc[mt][nt][1]);
      epi(nt, row + 8, col, acc[mt][nt][2], acc[mt][nt][3]);
    }
}

__device__ __forceinline__ bool tiles_fit(int M, int N, int K) {
  return M % BM == 0 && N % BN == 0 && K % BK == 0 && (int)gridDim.x * BN == N && (int)gridDim.y * BM == M;
}

__device__ __forceinline__ float gelu_tanh_grad(float v) {
  const float k = 0.79788456080286536f, c = 0.044715f;
  const float th = tanhf(k * (v + c * v * v * v));
  return 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * k * (1.0f + 3.0f * c * v * v);
}

__device__ __forceinline__ void store2(float *p, long long index, float v0, float v1) {
  *reinterpret_cast<float2 *>(p + index) = make_float2(v0, v1);
}
} // namespace

// db2[c] = sum_t dy[t, c] (block (32, 8): 32 columns, 8 row lanes); also db1 = 0 for the atomics.
extern "C" __global__ void colsum_dy(const float *__restrict__ dy, float *__restrict__ db2, float *__restrict__ db1,
                                     int rows, int cols, int cols1) {
  __shared__ float partial[8][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float sum = 0.0f;
  if (c < cols)
    for (int r = threadIdx.y; r < rows; r += 8) sum += dy[(long long)r * cols + c];
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    for (int y = 1; y < 8; ++y) sum += partial[y][threadIdx.x];
    db2[c] = sum;
  }
  const int flat = threadIdx.y * 32 + threadIdx.x;
  for (int j = blockIdx.x * 256 + flat; j < cols1; j += gridDim.x * 256) db1[j] = 0.0f;
}

// da = dy W2 (M = T, N = intermediate, K = hidden; dy [T, H] K-contiguous, w2 [H, I] N-contiguous);
// dh = da * gelu_tanh'(p), db1 += sum over the tile's rows of dh.
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dh(const float *__restrict__ dy, const float *__restrict__ w2, const float *__restrict__ p, float *__restrict__ dh,
       float *__restrict__ db1, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  // Column partial sums of dh for this thread: 4 column pairs (nt), over its 8 rows per pair.
  float colsum[4][2];
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) colsum[nt][0] = colsum[nt][1] = 0.0f;
  const int lane = threadIdx.x & 31, t = lane & 3;
  const int wn = (threadIdx.x >> 5) & 3;
  const int col_base = blockIdx.x * BN + wn * 32 + 2 * t; // + nt * 8
  gemm_3xtf32<true, false>(dy, w2, M, N, K, K, N, [&](int nt, int row, int col, float v0, float v1) {
    const long long index = (long long)row * N + col;
    const float2 hv = *reinterpret_cast<const float2 *>(p + index);
    const float d0 = v0 * gelu_tanh_grad(hv.x), d1 = v1 * gelu_tanh_grad(hv.y);
    store2(dh, index, d0, d1);
    colsum[nt][0] += d0;
    colsum[nt][1] += d1;
  });
  // Reduce over the 8 lanes of equal t (g = lane >> 2), then one atomic per column per warp.
#pragma unroll
  for (int nt = 0; nt < 4; ++nt)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      float s = colsum[nt][e];
      s += __shfl_xor_sync(0xffffffffu, s, 4);
      s += __shfl_xor_sync(0xffffffffu, s, 8);
      s += __shfl_xor_sync(0xffffffffu, s, 16);
      if (lane < 4) atomicAdd(db1 + col_base + nt * 8 + e, s);
    }
}

// dW2 = dy^T act (M = hidden, N = intermediate, K = T; dy [T, H] M-contiguous, act [T, I] N-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dw2(const float *__restrict__ dy, const float *__restrict__ act, float *__restrict__ dw2, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  gemm_3xtf32<false, false>(dy, act, M, N, K, M, N, [&](int nt, int row, int col, float v0, float v1) {
    store2(dw2, (long long)row * N + col, v0, v1);
  });
}

// dW1 = dh^T x (M = intermediate, N = hidden, K = T; dh [T, I] M-contiguous, x [T, H] N-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dw1(const float *__restrict__ dh, const float *__restrict__ x, float *__restrict__ dw1, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  gemm_3xtf32<false, false>(dh, x, M, N, K, M, N, [&](int nt, int row, int col, float v0, float v1) {
    store2(dw1, (long long)row * N + col, v0, v1);
  });
}

// dx = dh W1 (M = T, N = hidden, K = intermediate; dh [T, I] K-contiguous, w1 [I, H] N-contiguous).
extern "C" __global__ void __launch_bounds__(256, 1)
bwd_dx(const float *__restrict__ dh, const float *__restrict__ w1, float *__restrict__ dx, int M, int N, int K) {
  if (!tiles_fit(M, N, K)) return;
  gemm_3xtf32<true, false>(dh, w1, M, N, K, K, N, [&](int nt, int row, int col, float v0, float v1) {
    store2(dx, (long long)row * N + col, v0, v1);
  });
}

/* mkb:plan
scratch dh fp32[batch_size * seq_len * intermediate_size]
launch colsum_dy grid(ceil_div(hidden_size, 32)) block(32, 8)
  args(grad_output, grad_fc2_bias, grad_fc1_bias, i32(batch_size * seq_len), i32(hidden_size), i32(intermediate_size))
launch bwd_dh grid(intermediate_size / 128, batch_size * seq_len / 128) block(256) shared(147456)
  args(grad_output, fc2_weight, fc1_output, dh, grad_fc1_bias, i32(batch_size * seq_len), i32(intermediate_size), i32(hidden_size))
launch bwd_dw2 grid(intermediate_size / 128, hidden_size / 128) block(256) shared(147456)
  args(grad_output, gelu_output, grad_fc2_weight, i32(hidden_size), i32(intermediate_size), i32(batch_size * seq_len))
launch bwd_dw1 grid(hidden_size / 128, intermediate_size / 128) block(256) shared(147456)
  args(dh, hidden_states, grad_fc1_weight, i32(intermediate_size), i32(hidden_size), i32(batch_size * seq_len))
launch bwd_dx grid(hidden_size / 128, batch_size * seq_len / 128) block(256) shared(147456)
  args(dh, fc1_weight, grad_hidden_states, i32(batch_size * seq_len), i32(hidden_size), i32(intermediate_size))
*/
