// Ling 2.0 MTP input, fused: one kernel gathers the shifted token's embedding row and the hidden row,
// RMS-normalizes both (fp32 statistics, the eager bf16 rounding points) and writes the concatenated
// [tokens, 8192] bf16 row; then a Hopper wgmma GEMM computes eh_proj. Two launches instead of ~21 eager
// ones; the fp32 intermediates of the two RMSNorms never reach memory.
// Shape checks for the GEMM tiles: N = hidden = 4096 = 16 * 256, K = concat = 8192 = 128 * 64,
// M = tokens = 8192 = 64 * 128 (rows past M would be masked anyway).
#include <cuda_bf16.h>

constexpr int kHidden = 4096;
constexpr int kPrepThreads = 512;          // 8 bf16 (one 16-byte vector) per thread per row
static_assert(kHidden == kPrepThreads * 8, "one vector per thread");

union pack8 {
  uint4 vector;
  __nv_bfloat16 values[8];
};

// One block per token t = b * seq + s: e = embedding[ids[b, s + 1]] (id 0 for s = seq - 1), h = hidden[t];
// cat[t] = [enorm_w * bf16(e * rsqrt(mean(e^2) + eps)), hnorm_w * bf16(h * rsqrt(mean(h^2) + eps))].
extern "C" __global__ void __launch_bounds__(kPrepThreads)
shift_embed_dual_rmsnorm(const long long *__restrict__ input_ids, const __nv_bfloat16 *__restrict__ embedding,
                         const __nv_bfloat16 *__restrict__ hidden_states, const __nv_bfloat16 *__restrict__ enorm_weight,
                         const __nv_bfloat16 *__restrict__ hnorm_weight, __nv_bfloat16 *__restrict__ cat, int seq,
                         float eps) {
  __shared__ float2 partial[kPrepThreads / 32];
  const long long t = blockIdx.x;
  const int s = (int)(t % seq);
  const long long id = s + 1 < seq ? input_ids[t + 1] : 0LL;
  const int column = threadIdx.x * 8;

  pack8 e, h;
  e.vector = *reinterpret_cast<const uint4 *>(embedding + id * kHidden + column);
  h.vector = *reinterpret_cast<const uint4 *>(hidden_states + t * kHidden + column);
  float ef[8], hf[8];
  float2 sq = make_float2(0.0f, 0.0f);
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    ef[k] = __bfloat162float(e.values[k]);
    hf[k] = __bfloat162float(h.values[k]);
    sq.x += ef[k] * ef[k];
    sq.y += hf[k] * hf[k];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    sq.x += __shfl_xor_sync(0xffffffffu, sq.x, o);
    sq.y += __shfl_xor_sync(0xffffffffu, sq.y, o);
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sq;
  __syncthreads();
  float2 total = make_float2(0.0f, 0.0f);
#pragma unroll
  for (int w = 0; w < kPrepThreads / 32; ++w) {
    total.x += partial[w].x;
    total.y += partial[w].y;
  }
  const float re = rsqrtf(total.x / kHidden + eps);
  const float rh = rsqrtf(total.y / kHidden + eps);

  pack8 ew, hw, eo, ho;
  ew.vector = *reinterpret_cast<const uint4 *>(enorm_weight + column);
  hw.vector = *reinterpret_cast<const uint4 *>(hnorm_weight + column);
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const float en = __bfloat162float(__float2bfloat16_rn(ef[k] * re));
    const float hn = __bfloat162float(__float2bfloat16_rn(hf[k] * rh));
    eo.values[k] = __float2bfloat16_rn(__bfloat162float(ew.values[k]) * en);
    ho.values[k] = __float2bfloat16_rn(__bfloat162float(hw.values[k]) * hn);
  }
  __nv_bfloat16 *row = cat + t * (2 * kHidden);
  *reinterpret_cast<uint4 *>(row + column) = eo.vector;
  *reinterpret_cast<uint4 *>(row + kHidden + column) = ho.vector;
}

// ---- A Hopper (sm_90a) bf16 GEMM: C[M, N] = A[M, K] * B[N, K]^T, fp32 accumulation -----------------
// Both operands are K-major (A row-major activations, B an nn.Linear weight [out, in]), as wgmma wants.
// A CTA of two warpgroups (256 threads) computes a 128 x 256 tile; warpgroup w owns rows 64w..64w+63
// and issues m64n256k16 wgmmas (128 fp32 accumulators per thread). K advances in 64-element steps
// (128 bytes = one 128B-swizzle row) through a 4-slot shared-memory ring filled with cp.async (every
// thread loads; no TMA, since a submission cannot build tensor maps on the host). Loads run two steps
// ahead; one wgmma group stays in flight while the next step's loads are issued.
// Shapes: N % 256 == 0 and K % 64 == 0 are required (checked by the caller's shapes below); M is
// arbitrary (rows past M are zero-filled on load and skipped on store).
constexpr int kBM = 128, kBN = 256, kBK = 64, kStages = 4, kGemmThreads = 256;
constexpr int kTileABytes = kBM * kBK * 2;                  // 16 KiB
constexpr int kTileBBytes = kBN * kBK * 2;                  // 32 KiB
constexpr int kStageBytes = kTileABytes + kTileBBytes;      // 48 KiB
static_assert(kStages * kStageBytes + 1024 == 4 * 49152 + 1024, "the plans' shared(): the ring plus 1024 bytes of alignment slack");

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async_16(unsigned dst, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
// Keeps the compiler from moving accumulator reads or writes across the asynchronous wgmma boundary.
__device__ __forceinline__ void fence_accumulators(float *d) {
#pragma unroll
  for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor for a K-major tile stored as rows of 128 bytes with the 128-byte
// swizzle (16-byte chunk c of row r sits at chunk c ^ (r % 8)); 8-row groups are 1024 bytes apart.
__device__ __forceinline__ unsigned long long smem_desc(unsigned addr) {
  unsigned long long d = 0;
  d |= (unsigned long long)((addr & 0x3FFFF) >> 4);   // start address
  d |= (unsigned long long)1 << 16;                   // leading byte offset (unused with this swizzle)
  d |= (unsigned long long)(1024 >> 4) << 32;         // stride byte offset: next 8-row group
  d |= (unsigned long long)1 << 62;                   // 128-byte swizzle
  return d;
}
// One warpgroup-wide wgmma: D[64 x 256] (fp32, 128 registers per thread) += A[64 x 16] * B[16 x 256], both
// operands K-major in shared memory, described by 128-byte-swizzle descriptors.
__device__ __forceinline__ void wgmma_m64n256k16(float *d, unsigned long long desc_a, unsigned long long desc_b) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, "
      "%128, %129, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

// Loads the 64-wide K slice `kt` of the A rows [m0, m0 + 128) and B rows [n0, n0 + 256) into a slot.
__device__ __forceinline__ void gemm_load_stage(unsigned slot, const __nv_bfloat16 *__restrict__ A,
                                                const __nv_bfloat16 *__restrict__ B, int M, int N, int K,
                                                int m0, int n0, int kt) {
  const int tid = threadIdx.x;
  const long long k0 = (long long)kt * kBK;
#pragma unroll
  for (int i = 0; i < (kBM * 8) / kGemmThreads; ++i) { // 4 chunks of 16 bytes per thread
    const int q = tid + i * kGemmThreads, row = q >> 3, chunk = q & 7;
    const bool valid = m0 + row < M;
    const __nv_bfloat16 *src = valid ? A + (long long)(m0 + row) * K + k0 + chunk * 8 : A;
    cp_async_16(slot + row * 128 + ((chunk ^ (row & 7)) << 4), src, valid);
  }
  const unsigned slot_b = slot + kTileABytes;
#pragma unroll
  for (int i = 0; i < (kBN * 8) / kGemmThreads; ++i) { // 8 chunks of 16 bytes per thread
    const int q = tid + i * kGemmThreads, row = q >> 3, chunk = q & 7;
    const bool valid = n0 + row < N;
    const __nv_bfloat16 *src = valid ? B + (long long)(n0 + row) * K + k0 + chunk * 8 : B;
    cp_async_16(slot_b + row * 128 + ((chunk ^ (row & 7)) << 4), src, valid);
  }
}

// Runs the main loop of one 128 x 256 tile; acc receives this thread's 128 fp32 results.
__device__ __forceinline__ void gemm_mainloop(float *acc, const __nv_bfloat16 *__restrict__ A,
                                              const __nv_bfloat16 *__restrict__ B, int M, int N, int K,
                                              int m0, int n0, unsigned ring) {
  const int warpgroup = threadIdx.x / 128;
  const int KT = K / kBK;
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 2; ++s) {
    if (s < KT) gemm_load_stage(ring + s * kStageBytes, A, B, M, N, K, m0, n0, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<kStages - 3>(); // this thread's chunks of step kt have landed
    fence_proxy_async();          // make them visible to the async proxy (wgmma)
    __syncthreads();              // everyone's chunks landed; wgmma of step kt-2 finished in both warpgroups
    const int next = kt + kStages - 2;
    if (next < KT) gemm_load_stage(ring + (next % kStages) * kStageBytes, A, B, M, N, K, m0, n0, next);
    cp_async_commit();

    const unsigned slot = ring + (kt % kStages) * kStageBytes;
    const unsigned a_base = slot + warpgroup * 64 * 128; // this warpgroup's 64 rows (8 KiB, 1024-aligned)
    const unsigned b_base = slot + kTileABytes;
    fence_accumulators(acc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) // 16 elements = 32 bytes along the swizzled row
      wgmma_m64n256k16(acc, smem_desc(a_base + kk * 32), smem_desc(b_base + kk * 32));
    wgmma_commit();
    wgmma_wait<1>(); // step kt-1 is complete; step kt may still run
    fence_accumulators(acc);
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
}

// Accumulator layout of m64nNk16 (per warp w of the warpgroup): for column block j (8 columns),
// acc[4j + 0, 1] sit at row 16w + lane/4, columns 8j + 2(lane%4) + {0, 1}; acc[4j + 2, 3] at row + 8.
template <int kEpilogue> // 0: store, 1: + bias, 2: gelu(bf16(+ bias))
__device__ __forceinline__ void gemm_tile(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
                                          const __nv_bfloat16 *__restrict__ bias, __nv_bfloat16 *__restrict__ C,
                                          int M, int N, int K) {
  extern __shared__ unsigned char gemm_smem[];
  const unsigned ring = (smem_u32(gemm_smem) + 1023u) & ~1023u;
  const int n0 = blockIdx.x * kBN, m0 = blockIdx.y * kBM;
  float acc[128];
  gemm_mainloop(acc, A, B, M, N, K, m0, n0, ring);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = m0 + (warp / 4) * 64 + (warp % 4) * 16 + lane / 4;
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const int col = n0 + j * 8 + (lane % 4) * 2;
    float b0 = 0.0f, b1 = 0.0f;
    if (kEpilogue >= 1) {
      b0 = __bfloat162float(bias[col]);
      b1 = __bfloat162float(bias[col + 1]);
    }
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row0 + half * 8;
      float v0 = acc[4 * j + 2 * half] + b0, v1 = acc[4 * j + 2 * half + 1] + b1;
      __nv_bfloat162 out;
      if (kEpilogue == 2) {
        // The linear's output is rounded to bf16 first, then GELU (erf form) runs in fp32 on it.
        v0 = __bfloat162float(__float2bfloat16_rn(v0));
        v1 = __bfloat162float(__float2bfloat16_rn(v1));
        v0 = 0.5f * v0 * (1.0f + erff(v0 * 0.70710678118654752f));
        v1 = 0.5f * v1 * (1.0f + erff(v1 * 0.70710678118654752f));
      }
      out.x = __float2bfloat16_rn(v0);
      out.y = __float2bfloat16_rn(v1);
      if (row < M) *reinterpret_cast<__nv_bfloat162 *>(C + (long long)row * N + col) = out;
    }
  }
}

extern "C" __global__ void __launch_bounds__(kGemmThreads, 1)
eh_proj(const __nv_bfloat16 *__restrict__ cat, const __nv_bfloat16 *__restrict__ weight,
        __nv_bfloat16 *__restrict__ y, int M, int N, int K) {
  gemm_tile<0>(cat, weight, nullptr, y, M, N, K);
}

/* mkb:plan
scratch cat bf16[batch_size * seq_len * concat_size]
launch shift_embed_dual_rmsnorm grid(batch_size * seq_len) block(512)
  args(input_ids, word_embeddings, hidden_states, enorm_weight, hnorm_weight, cat, i32(seq_len), f32(rms_norm_eps))
launch eh_proj grid(hidden_size / 256, ceil_div(batch_size * seq_len, 128)) block(256) shared(4 * 49152 + 1024)
  args(cat, eh_proj_weight, output, i32(batch_size * seq_len), i32(hidden_size), i32(concat_size))
*/
