// Fused backward of embedding lookup + RMSNorm (Jamba, hidden 4096, vocab 65536), no dh intermediate.
//
// 1. count_ids / scan_counts / bucket_tokens: a counting sort of the 32768 token ids into id order
//    (order[p] = token, sorted_ids[p] = its id); the order inside one id's segment is arbitrary.
// 2. embedding_rmsnorm_backward: even blocks take a chunk of 32 consecutive sorted positions; per token
//    they recompute the norm from the gathered table row, compute dh (rounded to bf16 as eager does)
//    and add it to an fp32 running sum in registers while the id stays the same. A segment wholly
//    inside the chunk is rounded and written straight into its dembedding row; a segment that crosses
//    a chunk boundary leaves an fp32 partial row (slot 0: the chunk's first segment, slot 1: its last).
//    The weight gradient is summed per thread in fp32 and written once per chunk. Odd blocks write the
//    zero rows (ids that do not occur), interleaved with the token work so the stores overlap it.
//    Equal-size chunks of sorted positions balance the Zipf-heavy ids (an id with 2048 tokens is
//    spread over 64 chunks).
// 3. merge_segments: for every segment that crosses a boundary, the chunk where it starts sums the
//    partial rows in chunk order and writes the bf16 row.
// 4. dweight_reduce: sums the per-chunk weight-gradient rows.
// Rounding points follow the eager reference (reference.md); only summation orders differ.
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

constexpr int kHidden = 4096;
constexpr int kVocab = 65536;
constexpr int kVec = 8;                   // bf16 per 16-byte vector
constexpr int kThreads = kHidden / kVec;  // 512: one 16-byte vector of a row per thread
constexpr int kWarps = kThreads / 32;     // 16
constexpr int kChunk = 32;                // sorted positions per token block
constexpr int kScanThreads = 1024;
constexpr int kScanPer = kVocab / kScanThreads;  // 64 counts per scan thread
static_assert(kThreads * kVec == kHidden, "each thread owns exactly one 16-byte vector of a row");
static_assert(kScanPer % 4 == 0 && kScanPer * kScanThreads == kVocab, "int4 scan tiles cover the vocabulary");
static_assert(kChunk + 2 <= kThreads, "threads kChunk, kChunk + 1 load the neighbours");

union pack8 {
  uint4 v;
  bf16 e[8];
};

__device__ __forceinline__ float bf(bf16 v) { return __bfloat162float(v); }
__device__ __forceinline__ bf16 rn(float v) { return __float2bfloat16_rn(v); }
__device__ __forceinline__ uint4 load16(const bf16 *p) { return __ldg(reinterpret_cast<const uint4 *>(p)); }

// ---- counting sort -----------------------------------------------------------------------------------
extern "C" __global__ void count_ids(const int *__restrict__ ids, int *__restrict__ counts, int tokens) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) atomicAdd(&counts[ids[t]], 1);
}

// seg_end[v] = exclusive prefix sum of counts (becomes the end of v's segment after bucket_tokens).
extern "C" __global__ void __launch_bounds__(kScanThreads)
scan_counts(const int *__restrict__ counts, int *__restrict__ seg_end) {
  __shared__ int warp_offset[32];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int4 *src = reinterpret_cast<const int4 *>(counts + tid * kScanPer);
  int local = 0;
#pragma unroll
  for (int j = 0; j < kScanPer / 4; ++j) {
    const int4 c = src[j];
    local += c.x + c.y + c.z + c.w;
  }
  int inclusive = local;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += y;
  }
  if (lane == 31) warp_offset[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const int total = warp_offset[lane];  // 32 warps of 32 threads: every lane holds one warp's total
    int scan = total;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, scan, offset);
      if (lane >= offset) scan += y;
    }
    warp_offset[lane] = scan - total;
  }
  __syncthreads();
  int run = warp_offset[warp] + inclusive - local;
  int4 *dst = reinterpret_cast<int4 *>(seg_end + tid * kScanPer);
#pragma unroll
  for (int j = 0; j < kScanPer / 4; ++j) {
    const int4 c = src[j];
    int4 o;
    o.x = run; run += c.x;
    o.y = run; run += c.y;
    o.z = run; run += c.z;
    o.w = run; run += c.w;
    dst[j] = o;
  }
}

extern "C" __global__ void bucket_tokens(const int *__restrict__ ids, int *__restrict__ seg_end,
                                         int *__restrict__ order, int *__restrict__ sorted_ids, int tokens) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) {
    const int v = ids[t];
    const int p = atomicAdd(&seg_end[v], 1);
    order[p] = t;
    sorted_ids[p] = v;
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
  __shared__ float2 red[2][kWarps];  // double-buffered by token parity: one __syncthreads per token
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int col = tid * kVec;
  const int unit = blockIdx.x >> 1;

  if (blockIdx.x & 1) {
    // Zero rows: vocabulary rows [unit * zero_rows, +zero_rows) whose id does not occur.
    const int v0 = unit * zero_rows;
    const int v1 = min(v0 + zero_rows, kVocab);
    for (int base = v0; base < v1; base += kThreads) {
      const int m = min(kThreads, v1 - base);
      if (tid < m) s_count[tid] = counts[base + tid];
      __syncthreads();
      for (int j = 0; j < m; ++j)
        if (s_count[j] == 0)
          *reinterpret_cast<uint4 *>(dtable + (size_t)(base + j) * kHidden + col) = make_uint4(0, 0, 0, 0);
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
  const bool head_open = s_neighbour[0] == head;  // the first segment began in an earlier chunk
  const bool tail_open = s_neighbour[1] == tail;  // the last segment goes on in a later chunk

  pack8 wp;
  wp.v = load16(weight + col);
  float dw[kVec], acc[kVec];
#pragma unroll
  for (int k = 0; k < kVec; ++k) dw[k] = acc[k] = 0.0f;

  // Writes the finished sum of segment v: a bf16 row if the segment lies wholly in this chunk, else an
  // fp32 partial row in slot 0 (v is the chunk's first segment) or 1 (its last).
  auto flush = [&](int v) {
    const bool open = (v == head && head_open) || (v == tail && tail_open);
    if (!open) {
      pack8 out;
#pragma unroll
      for (int k = 0; k < kVec; ++k) out.e[k] = rn(acc[k]);
      *reinterpret_cast<uint4 *>(dtable + (size_t)v * kHidden + col) = out.v;
    } else {
      const int slot = v == head ? 0 : 1;
      float4 *dst = reinterpret_cast<float4 *>(seg_partial + ((size_t)unit * 2 + slot) * kHidden + col);
      dst[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
      dst[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    }
#pragma unroll
    for (int k = 0; k < kVec; ++k) acc[k] = 0.0f;
  };

  uint4 next_e = load16(table + (size_t)s_id[0] * kHidden + col);
  uint4 next_d = load16(dy + (size_t)s_token[0] * kHidden + col);
  int segment = head;
  int parity = 0;
  for (int j = 0; j < count; ++j) {
    const int v = s_id[j];
    pack8 ce, cd;
    ce.v = next_e;
    cd.v = next_d;
    if (j + 1 < count) {  // the next token's rows load during this token's reduction
      next_e = load16(table + (size_t)s_id[j + 1] * kHidden + col);
      next_d = load16(dy + (size_t)s_token[j + 1] * kHidden + col);
    }
    if (v != segment) {
      flush(segment);
      segment = v;
    }

    // h = fp32(table row); grad_n = bf16(dy * weight); sums of h^2 and grad_n * h over the row
    float square_sum = 0.0f, dot = 0.0f;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const float h = bf(ce.e[k]);
      const float g = bf(rn(bf(cd.e[k]) * bf(wp.e[k])));
      square_sum += h * h;
      dot += g * h;
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      square_sum += __shfl_xor_sync(0xffffffffu, square_sum, offset);
      dot += __shfl_xor_sync(0xffffffffu, dot, offset);
    }
    if (lane == 0) red[parity][warp] = make_float2(square_sum, dot);
    __syncthreads();
    float total_sq = 0.0f, total_dot = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float2 p = red[parity][w];
      total_sq += p.x;
      total_dot += p.y;
    }
    parity ^= 1;

    const float r = rsqrtf(total_sq / (float)kHidden + eps);
    const float grad_q = ((-0.5f * total_dot) * (r * r * r)) / (float)kHidden;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const float h = bf(ce.e[k]);
      const float g = bf(rn(bf(cd.e[k]) * bf(wp.e[k])));
      const float n = bf(rn(h * r));                     // n = bf16(h * r)
      dw[k] += bf(rn(bf(cd.e[k]) * n));                  // bf16(dy * n), fp32 accumulation
      acc[k] += bf(rn(g * r + grad_q * (2.0f * h)));     // dh = bf16(grad_h), fp32 accumulation per id
    }
  }
  flush(segment);

  float4 *dst = reinterpret_cast<float4 *>(dw_partial + (size_t)unit * kHidden + col);
  dst[0] = make_float4(dw[0], dw[1], dw[2], dw[3]);
  dst[1] = make_float4(dw[4], dw[5], dw[6], dw[7]);
}

// Segments that cross chunk boundaries: each is merged by the chunk where it starts, i.e. a chunk whose
// last segment goes on into the next chunk and did not begin in the previous one. That block sums the
// partial rows of every chunk the segment spans, in chunk order, and writes the bf16 row.
extern "C" __global__ void __launch_bounds__(kThreads)
merge_segments(const int *__restrict__ sorted_ids, const float *__restrict__ seg_partial,
               bf16 *__restrict__ dtable, int tokens) {
  const int unit = blockIdx.x;
  const int lo = unit * kChunk;
  const int hi = min(lo + kChunk, tokens);
  const int head = sorted_ids[lo], tail = sorted_ids[hi - 1];
  if (hi >= tokens || sorted_ids[hi] != tail) return;        // the last segment ends in this chunk
  if (tail == head && lo > 0 && sorted_ids[lo - 1] == tail) return;  // it began in an earlier chunk
  const int col = threadIdx.x * kVec;
  const int slot = tail == head ? 0 : 1;
  const float4 *src = reinterpret_cast<const float4 *>(seg_partial + ((size_t)unit * 2 + slot) * kHidden + col);
  float4 a = src[0], b = src[1];
  // Every later chunk the segment reaches holds it as its first segment: slot 0.
  for (int u = unit + 1;; ++u) {
    const float4 *p = reinterpret_cast<const float4 *>(seg_partial + ((size_t)u * 2) * kHidden + col);
    const float4 x = p[0], y = p[1];
    a.x += x.x; a.y += x.y; a.z += x.z; a.w += x.w;
    b.x += y.x; b.y += y.y; b.z += y.z; b.w += y.w;
    const int u_hi = min((u + 1) * kChunk, tokens);
    if (u_hi >= tokens || sorted_ids[u_hi] != tail) break;  // the segment ends in chunk u
  }
  pack8 out;
  out.e[0] = rn(a.x); out.e[1] = rn(a.y); out.e[2] = rn(a.z); out.e[3] = rn(a.w);
  out.e[4] = rn(b.x); out.e[5] = rn(b.y); out.e[6] = rn(b.z); out.e[7] = rn(b.w);
  *reinterpret_cast<uint4 *>(dtable + (size_t)tail * kHidden + col) = out.v;
}

// dweight[c] = bf16(sum over chunks of dw_partial[u, c]); block (32, 32): 32 columns x 32 chunk lanes.
extern "C" __global__ void __launch_bounds__(1024)
dweight_reduce(const float *__restrict__ dw_partial, bf16 *__restrict__ dweight, int parts) {
  __shared__ float sums[32][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float total = 0.0f;
  if (c < kHidden)
    for (int p = threadIdx.y; p < parts; p += 32) total += dw_partial[(size_t)p * kHidden + c];
  sums[threadIdx.y][threadIdx.x] = total;
  __syncthreads();
  if (threadIdx.y == 0 && c < kHidden) {
    float t = 0.0f;
#pragma unroll 8
    for (int y = 0; y < 32; ++y) t += sums[y][threadIdx.x];
    dweight[c] = rn(t);
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
