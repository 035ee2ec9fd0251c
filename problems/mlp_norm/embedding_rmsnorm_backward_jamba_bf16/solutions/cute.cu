// Fused backward of embedding lookup + RMSNorm (Jamba, hidden 4096, vocab 65536) in CuTe C++: the
// algorithm, plan and rounding points of solutions/cuda.cu, no dh intermediate.
//
// 1. count_ids / scan_counts / bucket_tokens: a counting sort of the 32768 token ids into id order
//    (order[p] = token, sorted_ids[p] = its id); the order inside one id's segment is arbitrary. The scan
//    views the counts as a (1024, 64) row-major tensor, one row per thread, moved in 4-int pieces with
//    128-bit vector copies.
// 2. embedding_rmsnorm_backward: even blocks take a chunk of 32 consecutive sorted positions. CuTe views
//    the table, dy and the table gradient as static row-major (rows, 4096) tensors and tiles a row into
//    8-column pieces, one per thread (512 * 8 = 4096), copied between global memory and register
//    fragments with 128-bit vector copies (the next token's pieces are copied during this token's
//    reduction). Per token the norm is recomputed from the gathered table row, dh is computed (rounded to
//    bf16 as eager does) and added to an fp32 register fragment while the id stays the same. A segment
//    wholly inside the chunk is rounded and written straight into its dembedding row; a segment that
//    crosses a chunk boundary leaves an fp32 partial row in the (units, 2, 4096) tensor seg_partial
//    (slot 0: the chunk's first segment, slot 1: its last). The weight gradient is summed per thread in
//    an fp32 fragment and written once per chunk. Odd blocks write the zero rows (ids that do not occur),
//    interleaved with the token work so the stores overlap it. Equal-size chunks of sorted positions
//    balance the Zipf-heavy ids (an id with 2048 tokens is spread over 64 chunks).
// 3. merge_segments: for every segment that crosses a boundary, the chunk where it starts sums the
//    partial rows in chunk order and writes the bf16 row.
// 4. dweight_reduce: sums the per-chunk weight-gradient rows, rounds once to bf16.
// Rounding points follow the eager reference (reference.md); only summation orders differ.
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kTokens = 32768;
constexpr int kHidden = 4096;
constexpr int kVocab = 65536;
constexpr int kVec = 8;                          // bf16 per 16-byte vector
constexpr int kThreads = kHidden / kVec;         // 512: one 16-byte vector of a row per thread
constexpr int kWarps = kThreads / 32;            // 16
constexpr int kChunk = 32;                       // sorted positions per token block
constexpr int kUnits = (kTokens + kChunk - 1) / kChunk; // 1024 token chunks (plan: ceil_div(tokens, 32))
constexpr int kScanThreads = 1024;
constexpr int kScanPer = kVocab / kScanThreads;  // 64 counts per scan thread
static_assert(kThreads * kVec == kHidden, "each thread owns exactly one 16-byte vector of a row");
static_assert(kScanPer % 4 == 0 && kScanPer * kScanThreads == kVocab, "int4 scan tiles cover the vocabulary");
static_assert(kChunk + 2 <= kThreads, "threads kChunk, kChunk + 1 load the neighbours");

__device__ __forceinline__ float rn(float v) { return float(bf16(v)); } // round to bf16 (nearest even), back to fp32

// ---- counting sort -----------------------------------------------------------------------------------
extern "C" __global__ void count_ids(const int *__restrict__ ids, int *__restrict__ counts, int tokens) {
  Tensor gI = make_tensor(make_gmem_ptr(ids), make_layout(make_shape(Int<kTokens>{})));
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) atomicAdd(&counts[gI(t)], 1);
}

// seg_end[v] = exclusive prefix sum of counts (becomes the end of v's segment after bucket_tokens).
extern "C" __global__ void __launch_bounds__(kScanThreads)
scan_counts(const int *__restrict__ counts, int *__restrict__ seg_end) {
  __shared__ int warp_offset[32];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  // (thread, count) views: thread tid owns the 64 consecutive counts [tid * 64, tid * 64 + 64).
  auto by_thread = make_layout(make_shape(Int<kScanThreads>{}, Int<kScanPer>{}), LayoutRight{});
  Tensor gC = make_tensor(make_gmem_ptr(counts), by_thread);
  Tensor gE = make_tensor(make_gmem_ptr(seg_end), by_thread);
  auto piece = make_shape(Int<4>{});
  Tensor rC = make_tensor<int>(piece);

  int local = 0;
  CUTE_UNROLL
  for (int j = 0; j < kScanPer / 4; ++j) {
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gC(tid, _), piece, make_coord(j)), rC);
    local += rC(0) + rC(1) + rC(2) + rC(3);
  }
  int inclusive = local;
  CUTE_UNROLL
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += y;
  }
  if (lane == 31) warp_offset[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const int total = warp_offset[lane]; // 32 warps of 32 threads: every lane holds one warp's total
    int scan = total;
    CUTE_UNROLL
    for (int offset = 1; offset < 32; offset <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, scan, offset);
      if (lane >= offset) scan += y;
    }
    warp_offset[lane] = scan - total;
  }
  __syncthreads();
  int run = warp_offset[warp] + inclusive - local;
  Tensor rE = make_tensor<int>(piece);
  CUTE_UNROLL
  for (int j = 0; j < kScanPer / 4; ++j) {
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gC(tid, _), piece, make_coord(j)), rC);
    CUTE_UNROLL
    for (int e = 0; e < 4; ++e) {
      rE(e) = run;
      run += rC(e);
    }
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rE, local_tile(gE(tid, _), piece, make_coord(j)));
  }
}

extern "C" __global__ void bucket_tokens(const int *__restrict__ ids, int *__restrict__ seg_end,
                                         int *__restrict__ order, int *__restrict__ sorted_ids, int tokens) {
  auto flat = make_layout(make_shape(Int<kTokens>{}));
  Tensor gI = make_tensor(make_gmem_ptr(ids), flat);
  Tensor gO = make_tensor(make_gmem_ptr(order), flat);
  Tensor gS = make_tensor(make_gmem_ptr(sorted_ids), flat);
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) {
    const int v = gI(t);
    const int p = atomicAdd(&seg_end[v], 1);
    gO(p) = t;
    gS(p) = v;
  }
}

// ---- the fused pass ----------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(kThreads, 2)
embedding_rmsnorm_backward(const int *__restrict__ order, const int *__restrict__ sorted_ids,
                           const int *__restrict__ counts, const bf16 *__restrict__ table,
                           const bf16 *__restrict__ weight, const bf16 *__restrict__ dy,
                           bf16 *__restrict__ dtable, float *__restrict__ seg_partial,
                           float *__restrict__ dw_partial, int tokens, int zero_rows, float eps) {
  __shared__ int s_token[kChunk];
  __shared__ int s_id[kChunk];
  __shared__ int s_neighbour[2];
  __shared__ int s_count[kThreads];
  __shared__ float2 red[2][kWarps]; // double-buffered by token parity: one __syncthreads per token
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int unit = blockIdx.x >> 1;

  // Global tensors, row-major with static shapes.
  auto table_rows = make_layout(make_shape(Int<kVocab>{}, Int<kHidden>{}), LayoutRight{});
  Tensor gT = make_tensor(make_gmem_ptr(table), table_rows);
  Tensor gDT = make_tensor(make_gmem_ptr(dtable), table_rows);
  Tensor gDY = make_tensor(make_gmem_ptr(dy), make_layout(make_shape(Int<kTokens>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gW = make_tensor(make_gmem_ptr(weight), make_layout(make_shape(Int<kHidden>{})));
  // Partial rows of boundary-crossing segments: (unit, slot, hidden); weight-gradient rows: (unit, hidden).
  Tensor gSP = make_tensor(make_gmem_ptr(seg_partial),
                           make_layout(make_shape(Int<kUnits>{}, Int<2>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gDW = make_tensor(make_gmem_ptr(dw_partial), make_layout(make_shape(Int<kUnits>{}, Int<kHidden>{}), LayoutRight{}));

  auto piece = make_shape(Int<kVec>{});
  auto mine = make_coord(tid); // this thread's 8 contiguous columns

  if (blockIdx.x & 1) {
    // Zero rows: vocabulary rows [unit * zero_rows, +zero_rows) whose id does not occur.
    Tensor zero = make_tensor<bf16>(piece);
    CUTE_UNROLL
    for (int k = 0; k < kVec; ++k) zero(k) = bf16(0.0f);
    const int v0 = unit * zero_rows;
    const int v1 = min(v0 + zero_rows, kVocab);
    for (int base = v0; base < v1; base += kThreads) {
      const int m = min(kThreads, v1 - base);
      if (tid < m) s_count[tid] = counts[base + tid];
      __syncthreads();
      for (int j = 0; j < m; ++j)
        if (s_count[j] == 0)
          copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, zero, local_tile(gDT(base + j, _), piece, mine));
      __syncthreads();
    }
    return;
  }

  // Token chunk: sorted positions [lo, hi). The plan launches ceil_div(tokens, kChunk) units, so lo < tokens.
  const int lo = unit * kChunk;
  const int hi = min(lo + kChunk, tokens);
  const int count = hi - lo;
  if (tid < count) {
    s_token[tid] = order[lo + tid];
    s_id[tid] = sorted_ids[lo + tid];
  }
  if (tid == kChunk) s_neighbour[0] = lo > 0 ? sorted_ids[lo - 1] : -1;
  if (tid == kChunk + 1) s_neighbour[1] = hi < tokens ? sorted_ids[hi] : -1;
  __syncthreads();
  const int head = s_id[0], tail = s_id[count - 1];
  const bool head_open = s_neighbour[0] == head; // the first segment began in an earlier chunk
  const bool tail_open = s_neighbour[1] == tail; // the last segment goes on in a later chunk

  Tensor rW = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gW, piece, mine), rW);
  Tensor dw = make_tensor<float>(piece);  // weight gradient of this chunk, fp32
  Tensor acc = make_tensor<float>(piece); // dh sum of the current segment, fp32
  CUTE_UNROLL
  for (int k = 0; k < kVec; ++k) dw(k) = acc(k) = 0.0f;

  // Writes the finished sum of segment v: a bf16 row if the segment lies wholly in this chunk, else an
  // fp32 partial row in slot 0 (v is the chunk's first segment) or 1 (its last).
  auto flush = [&](int v) {
    const bool open = (v == head && head_open) || (v == tail && tail_open);
    if (!open) {
      Tensor out = make_tensor<bf16>(piece);
      CUTE_UNROLL
      for (int k = 0; k < kVec; ++k) out(k) = bf16(acc(k)); // round to nearest even, once
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, out, local_tile(gDT(v, _), piece, mine));
    } else {
      const int slot = v == head ? 0 : 1;
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, acc, local_tile(gSP(unit, slot, _), piece, mine));
    }
    CUTE_UNROLL
    for (int k = 0; k < kVec; ++k) acc(k) = 0.0f;
  };

  // Register fragments: the next token's table row and dy pieces (in flight), and the current token's.
  Tensor nE = make_tensor<bf16>(piece), nD = make_tensor<bf16>(piece);
  Tensor cE = make_tensor<bf16>(piece), cD = make_tensor<bf16>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gT(s_id[0], _), piece, mine), nE);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gDY(s_token[0], _), piece, mine), nD);
  int segment = head;
  int parity = 0;
  for (int j = 0; j < count; ++j) {
    const int v = s_id[j];
    copy(nE, cE);
    copy(nD, cD);
    if (j + 1 < count) { // the next token's rows load during this token's reduction
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gT(s_id[j + 1], _), piece, mine), nE);
      copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gDY(s_token[j + 1], _), piece, mine), nD);
    }
    if (v != segment) {
      flush(segment);
      segment = v;
    }

    // h = fp32(table row); grad_n = bf16(dy * weight); sums of h^2 and grad_n * h over the row
    float square_sum = 0.0f, dot = 0.0f;
    CUTE_UNROLL
    for (int k = 0; k < kVec; ++k) {
      const float h = float(cE(k));
      const float g = rn(float(cD(k)) * float(rW(k)));
      square_sum += h * h;
      dot += g * h;
    }
    CUTE_UNROLL
    for (int offset = 16; offset > 0; offset >>= 1) {
      square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
      dot += __shfl_xor_sync(0xffffffffu, dot, offset);
    }
    if (lane == 0) red[parity][warp] = make_float2(square_sum, dot);
    __syncthreads();
    float total_sq = 0.0f, total_dot = 0.0f;
    CUTE_UNROLL
    for (int w = 0; w < kWarps; ++w) {
      const float2 p = red[parity][w];
      total_sq += p.x;
      total_dot += p.y;
    }
    parity ^= 1;

    // r = rsqrt(mean(h^2) + eps); grad_v = (-0.5 * grad_r) * r^3; grad_q = grad_v / hidden
    const float r = rsqrtf(total_sq / (float)kHidden + eps);
    const float grad_q = ((-0.5f * total_dot) * (r * r * r)) / (float)kHidden;
    CUTE_UNROLL
    for (int k = 0; k < kVec; ++k) {
      const float h = float(cE(k));
      const float g = rn(float(cD(k)) * float(rW(k)));
      const float n = rn(h * r);                        // n = bf16(h * r)
      dw(k) += rn(float(cD(k)) * n);                    // bf16(dy * n), fp32 accumulation
      acc(k) += rn(g * r + grad_q * (2.0f * h));        // dh = bf16(grad_h), fp32 accumulation per id
    }
  }
  flush(segment);

  // This chunk's weight-gradient row: two 16-byte stores.
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, dw, local_tile(gDW(unit, _), piece, mine));
}

// Segments that cross chunk boundaries: each is merged by the chunk where it starts, i.e. a chunk whose
// last segment goes on into the next chunk and did not begin in the previous one. That block sums the
// partial rows of every chunk the segment spans, in chunk order, and writes the bf16 row.
extern "C" __global__ void __launch_bounds__(kThreads)
merge_segments(const int *__restrict__ sorted_ids, const float *__restrict__ seg_partial,
               bf16 *__restrict__ dtable, int tokens) {
  Tensor gSP = make_tensor(make_gmem_ptr(seg_partial),
                           make_layout(make_shape(Int<kUnits>{}, Int<2>{}, Int<kHidden>{}), LayoutRight{}));
  Tensor gDT = make_tensor(make_gmem_ptr(dtable), make_layout(make_shape(Int<kVocab>{}, Int<kHidden>{}), LayoutRight{}));
  const int unit = blockIdx.x;
  const int lo = unit * kChunk;
  const int hi = min(lo + kChunk, tokens);
  const int head = sorted_ids[lo], tail = sorted_ids[hi - 1];
  if (hi >= tokens || sorted_ids[hi] != tail) return;               // the last segment ends in this chunk
  if (tail == head && lo > 0 && sorted_ids[lo - 1] == tail) return; // it began in an earlier chunk
  auto piece = make_shape(Int<kVec>{});
  auto mine = make_coord(int(threadIdx.x));
  const int slot = tail == head ? 0 : 1;
  Tensor sum = make_tensor<float>(piece);
  Tensor part = make_tensor<float>(piece);
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gSP(unit, slot, _), piece, mine), sum);
  // Every later chunk the segment reaches holds it as its first segment: slot 0.
  for (int u = unit + 1;; ++u) {
    copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, local_tile(gSP(u, 0, _), piece, mine), part);
    CUTE_UNROLL
    for (int k = 0; k < kVec; ++k) sum(k) += part(k);
    const int u_hi = min((u + 1) * kChunk, tokens);
    if (u_hi >= tokens || sorted_ids[u_hi] != tail) break; // the segment ends in chunk u
  }
  Tensor out = make_tensor<bf16>(piece);
  CUTE_UNROLL
  for (int k = 0; k < kVec; ++k) out(k) = bf16(sum(k)); // round to nearest even, once
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, out, local_tile(gDT(tail, _), piece, mine));
}

// dweight[c] = bf16(sum over chunks of dw_partial[u, c]); block (32, 32): 32 columns x 32 chunk lanes.
extern "C" __global__ void __launch_bounds__(1024)
dweight_reduce(const float *__restrict__ dw_partial, bf16 *__restrict__ dweight, int parts) {
  __shared__ float sums[32][33];
  Tensor gP = make_tensor(make_gmem_ptr(dw_partial), make_layout(make_shape(parts, Int<kHidden>{}), LayoutRight{}));
  Tensor gD = make_tensor(make_gmem_ptr(dweight), make_layout(make_shape(Int<kHidden>{})));
  const int c = blockIdx.x * 32 + threadIdx.x;
  float total = 0.0f;
  if (c < kHidden)
    for (int p = threadIdx.y; p < parts; p += 32) total += gP(p, c);
  sums[threadIdx.y][threadIdx.x] = total;
  __syncthreads();
  if (threadIdx.y == 0 && c < kHidden) {
    float t = 0.0f;
#pragma unroll 8
    for (int y = 0; y < 32; ++y) t += sums[y][threadIdx.x];
    gD(c) = bf16(t); // round to nearest even, once
  }
}

/* mkb:plan
# units = ceil_div(tokens, 32) token chunks (1024); as many zero-row blocks, each covering
# ceil_div(vocab, units) = 64 vocabulary rows; block 2u is token chunk u, block 2u + 1 zero rows u.
scratch counts int32[vocab] zeroed
scratch seg_end int32[vocab]
scratch order int32[tokens]
scratch sorted_ids int32[tokens]
scratch seg_partial fp32[ceil_div(tokens, 32) * 2 * hidden]
scratch dw_partial fp32[ceil_div(tokens, 32) * hidden]
launch count_ids grid(ceil_div(tokens, 256)) block(256) args(ids, counts, i32(tokens))
launch scan_counts grid(1) block(1024) args(counts, seg_end)
launch bucket_tokens grid(ceil_div(tokens, 256)) block(256) args(ids, seg_end, order, sorted_ids, i32(tokens))
launch embedding_rmsnorm_backward grid(2 * ceil_div(tokens, 32)) block(512)
  args(order, sorted_ids, counts, embedding, weight, dy, dembedding, seg_partial, dw_partial,
       i32(tokens), i32(ceil_div(vocab, ceil_div(tokens, 32))), f32(eps))
launch merge_segments grid(ceil_div(tokens, 32)) block(512) args(sorted_ids, seg_partial, dembedding, i32(tokens))
launch dweight_reduce grid(ceil_div(hidden, 32)) block(32, 32) args(dw_partial, dweight, i32(ceil_div(tokens, 32)))
*/
