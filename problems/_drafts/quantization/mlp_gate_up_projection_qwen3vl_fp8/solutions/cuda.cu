// mlp_gate_up_projection_qwen3vl_fp8, on the FP8 tensor cores:
//   1. transpose_bytes: both weights from the inputs' K x N layout to K-major N x K (mma.sync's B
//      operand wants K contiguous, and ldmatrix has no 8-bit transpose on sm_90);
//   2. gemm_gate_up_silu: 128-token x 64-output tiles computing gate and up together (the B tile's 128
//      rows interleave 16 gate rows and 16 up rows per warp column), 128-wide K steps (one scale block),
//      a 4-stage cp.async pipeline into XOR-swizzled shared memory, ldmatrix fragments and mma.sync
//      m16n8k32 e4m3 (exact products, fp32 accumulation); each K block accumulated on its own and added
//      times scale_x[row] * the weight's block scale; the epilogue computes silu(gate) * up in fp32 and
//      rounds to bf16 once.
// 8 warps as 2 x 4, a warp computing 64 x 32 of the 128 x 128 product tile (its 16 gate and 16 up columns).
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

constexpr int kStages = 4;
constexpr int kTileBytes = 128 * 128;  // one operand tile (128 rows of 128 fp8) per stage

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned &r0, unsigned &r1, unsigned &r2, unsigned &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void mma_e4m3(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` of a tile of 128-byte rows: the chunk is
// XOR-swizzled by the row's low 3 bits, so the 8 rows an ldmatrix phase reads hit 8 bank groups.
__device__ __forceinline__ unsigned swz(int row, int chunk) { return (unsigned)(row * 128 + ((chunk ^ (row & 7)) << 4)); }


} // namespace


// The GEMM core: the CTA's 128 x 128 tile of sum_k dq(A)[m, k] dq(B)[n, k] into acc (the warp's 64 x 32
// of it in the m16n8 fragment layout). A: e4m3 [M, K] rows m0.., scales SA [M, K/128]; B rows are read
// from b_row(r) (r = 0..127, each K contiguous bytes). Each warp's n-tiles 0, 1 and 2, 3 may come from
// two weights with their own block scales: b_scale(kb, 0) and b_scale(kb, 1).
template <class BRow, class BScale>
__device__ __forceinline__ void gemm_tile_dual(const unsigned char *__restrict__ A, const float *__restrict__ SA, int m0, int K,
                                          BRow b_row, BScale b_scale, unsigned char *smem, float (&acc)[4][4][4]) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3;
  const int g = lane >> 2;
  const int kblocks = K / 128;
  const unsigned sbase = smem_u32(smem);
  const unsigned char *gA = A + (long long)m0 * K;

  auto load_stage = [&](int stage, int kb) {
    const unsigned sa = sbase + stage * 2 * kTileBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int idx = tid + j * 256, row = idx >> 3, chunk = idx & 7;
      const int off = kb * 128 + chunk * 16;
      cp16(sa + swz(row, chunk), gA + (long long)row * K + off);
      cp16(sb + swz(row, chunk), b_row(row) + off);
    }
  };

#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < kblocks) load_stage(s, s);
    cp_commit();
  }

  for (int kb = 0; kb < kblocks; ++kb) {
    cp_wait<kStages - 2>();
    __syncthreads();
    {
      const int next = kb + kStages - 1;
      if (next < kblocks) load_stage(next % kStages, next);
      cp_commit();
    }
    float srow[4][2];
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) srow[mt][h] = __ldg(SA + (long long)(m0 + wm * 64 + mt * 16 + g + 8 * h) * kblocks + kb);
    const float stile[2] = {b_scale(kb, 0), b_scale(kb, 1)};

    float part[4][4][4];
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) part[mt][nt][e] = 0.0f;

    const unsigned sa = sbase + (kb % kStages) * 2 * kTileBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      unsigned a[4][4], b[4][2];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
        ldsm_x4(sa + swz(wm * 64 + mt * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, ks * 2 + (lane >> 4)), a[mt][0], a[mt][1],
                a[mt][2], a[mt][3]);
#pragma unroll
      for (int np = 0; np < 2; ++np)
        ldsm_x4(sb + swz(wn * 32 + np * 16 + (lane & 7) + ((lane >> 4) & 1) * 8, ks * 2 + ((lane >> 3) & 1)), b[2 * np][0],
                b[2 * np][1], b[2 * np + 1][0], b[2 * np + 1][1]);
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) mma_e4m3(part[mt][nt], a[mt], b[nt][0], b[nt][1]);
    }
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float f[2] = {srow[mt][h] * stile[0], srow[mt][h] * stile[1]};
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          acc[mt][nt][2 * h] = fmaf(part[mt][nt][2 * h], f[nt >> 1], acc[mt][nt][2 * h]);
          acc[mt][nt][2 * h + 1] = fmaf(part[mt][nt][2 * h + 1], f[nt >> 1], acc[mt][nt][2 * h + 1]);
        }
      }
  }
  cp_wait<0>();
  __syncthreads();  // the pipeline's shared memory is free for the epilogue
}

// A byte transpose: out [cols, rows] from in [rows, cols], 64 x 64 tiles, grid (cols / 64, rows / 64).
extern "C" __global__ void __launch_bounds__(256) transpose_bytes(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                                                                  int rows, int cols) {
  __shared__ unsigned char tile[64][64 + 4];
  const int t = threadIdx.x;
  const long long r0 = (long long)blockIdx.y * 64, c0 = (long long)blockIdx.x * 64;
  {
    const int r = t >> 2, c = (t & 3) * 16;
    const uint4 v = __ldg(reinterpret_cast<const uint4 *>(in + (r0 + r) * cols + c0 + c));
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int j = 0; j < 16; ++j) tile[r][c + j] = (unsigned char)(w[j >> 2] >> (8 * (j & 3)));
  }
  __syncthreads();
  {
    const int oc = t >> 2, orr = (t & 3) * 16;  // output row oc (an input column), 16 input rows
    unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < 16; ++j) w[j >> 2] |= (unsigned)tile[orr + j][oc] << (8 * (j & 3));
    *reinterpret_cast<uint4 *>(out + (c0 + oc) * rows + r0 + orr) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

// out[m, n] = bf16(silu(gate) * up) for a 128-token x 64-output tile. The B tile's 128 rows interleave
// the two K-major weights by 16: warp column wn (0..3) reads gate rows n0 + 16 wn .. + 15 as its n-tiles
// 0, 1 and up rows n0 + 16 wn .. + 15 as n-tiles 2, 3, so each thread holds gate and up of the same
// outputs. The 64 outputs lie in one 128-wide scale block of each weight.
// Grid (N / 64, M / 128), 256 threads, shared(131072).
extern "C" __global__ void __launch_bounds__(256, 1)
gemm_gate_up_silu(const unsigned char *__restrict__ A, const float *__restrict__ SA, const unsigned char *__restrict__ wg_t,
                  const float *__restrict__ scale_gate, const unsigned char *__restrict__ wu_t, const float *__restrict__ scale_up,
                  __nv_bfloat16 *__restrict__ out, int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int n0 = blockIdx.x * 64, m0 = blockIdx.y * 128;
  const int kblocks = K / 128, nb = n0 / 128;
  float acc[4][4][4];
  gemm_tile_dual(
      A, SA, m0, K,
      [&](int r) {
        const int within = r & 31;
        const unsigned char *w = within < 16 ? wg_t : wu_t;
        return w + (long long)(n0 + 16 * (r >> 5) + (within & 15)) * K;
      },
      [&](int kb, int which) { return __ldg((which ? scale_up : scale_gate) + (long long)nb * kblocks + kb); }, smem, acc);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3, g = lane >> 2, tq = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      __nv_bfloat16 *row = out + (long long)(m0 + wm * 64 + mt * 16 + g + 8 * h) * N + n0 + 16 * wn + tq * 2;
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        float y[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float gate = acc[mt][nt][2 * h + e], up = acc[mt][nt + 2][2 * h + e];
          y[e] = gate / (1.0f + expf(-gate)) * up;
        }
        *reinterpret_cast<__nv_bfloat162 *>(row + nt * 8) = __floats2bfloat162_rn(y[0], y[1]);
      }
    }
}

/* mkb:plan
scratch wg_t uint8[hidden_size * intermediate_size]
scratch wu_t uint8[hidden_size * intermediate_size]
launch transpose_bytes grid(intermediate_size / 64, hidden_size / 64) block(256)
  args(gate_proj_weight, wg_t, i32(hidden_size), i32(intermediate_size))
launch transpose_bytes grid(intermediate_size / 64, hidden_size / 64) block(256)
  args(up_proj_weight, wu_t, i32(hidden_size), i32(intermediate_size))
launch gemm_gate_up_silu grid(intermediate_size / 64, m / 128) block(256) shared(131072)
  args(x, scale_x, wg_t, scale_gate, wu_t, scale_up, output, i32(intermediate_size), i32(hidden_size))
*/
