// The eager baseline: the reference's operations as eager PyTorch runs them, each intermediate an fp32
// tensor in memory (eager.py is that computation). The reference loops over the 256 experts in Python
// (torch.where and .numel() host syncs each). Here every routed row is laid out expert after expert
// (torch.where's (slot, token) order inside an expert), and the loop body runs as one launch per operation
// over a chunk of 6144 consecutive rows (about 32 experts; an expert may straddle two chunks), eight chunks
// in turn: batching all 49152 rows at once would need about 9 GB of intermediates beside a draw that is
// already 26 GB, three copies of which do not fit an H200 (spec notes); these take 0.77 GiB. The
// per-expert matmuls (cuBLAS SGEMM in eager, TF32 off) are hand-written grouped SGEMMs (128 x 128 tiles,
// 8 x 8 outputs per thread), since a matmul step cannot address one expert's rows; the weight gradients'
// `grad_w[e] += g^T @ x` adds each chunk's product into the output in the product's epilogue (eager adds a
// temporary in a separate launch).
// (MKB_MAP expressions see the macro's own i, k, n, base, values: parameters avoid those names.)
#include "mkb_ops.cuh"

namespace {
constexpr int BM = 128, BN = 128, BK = 8;

// acc[i][j] for rows (i < 4 ? 4 ty + i : 64 + 4 ty + i - 4), columns likewise with tx, of a 128 x 128 tile.
// An operand comes either in rows along k ("trans": thread t fetches index t / 2, k = k0 + 4 (t % 2) .. + 3)
// or in k-rows ("direct": k-row t / 32, indices 4 (t % 32) .. + 3); slices of 8 double-buffered.
template <bool kATrans, bool kBTrans, class FA, class FB>
__device__ __forceinline__ void sgemm_mainloop(float (&acc)[8][8], const FA &fa, const FB &fb, int k_dim) {
  __shared__ __align__(16) float As[2][BK][BM];
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  float4 ra, rb;
  auto store = [&](int buf) {
    if (kATrans) {
      As[buf][4 * (t % 2) + 0][t / 2] = ra.x;
      As[buf][4 * (t % 2) + 1][t / 2] = ra.y;
      As[buf][4 * (t % 2) + 2][t / 2] = ra.z;
      As[buf][4 * (t % 2) + 3][t / 2] = ra.w;
    } else {
      *reinterpret_cast<float4 *>(&As[buf][t / 32][4 * (t % 32)]) = ra;
    }
    if (kBTrans) {
      Bs[buf][4 * (t % 2) + 0][t / 2] = rb.x;
      Bs[buf][4 * (t % 2) + 1][t / 2] = rb.y;
      Bs[buf][4 * (t % 2) + 2][t / 2] = rb.z;
      Bs[buf][4 * (t % 2) + 3][t / 2] = rb.w;
    } else {
      *reinterpret_cast<float4 *>(&Bs[buf][t / 32][4 * (t % 32)]) = rb;
    }
  };
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  ra = fa(0);
  rb = fb(0);
  store(0);
  __syncthreads();
  for (int k0 = 0; k0 < k_dim; k0 += BK) {
    const int buf = (k0 / BK) & 1;
    const bool more = k0 + BK < k_dim;
    if (more) {
      ra = fa(k0 + BK);
      rb = fb(k0 + BK);
    }
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4 *>(&As[buf][kk][4 * ty]);
      const float4 a1 = *reinterpret_cast<const float4 *>(&As[buf][kk][64 + 4 * ty]);
      const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][4 * tx]);
      const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[buf][kk][64 + 4 * tx]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
    }
    if (more) store(buf ^ 1);
    __syncthreads();
  }
}
__device__ __forceinline__ int acc_row(int i) { return i < 4 ? 4 * (threadIdx.x / 16) + i : 64 + 4 * (threadIdx.x / 16) + i - 4; }
__device__ __forceinline__ int acc_col(int j) { return j < 4 ? 4 * (threadIdx.x % 16) + j : 64 + 4 * (threadIdx.x % 16) + j - 4; }
__device__ __forceinline__ float4 zero4() { return make_float4(0.f, 0.f, 0.f, 0.f); }

// The tile blockIdx.y of a chunk: its expert and rows [row0, row_end) (global row numbers).
struct chunk_tile {
  int e, row0, row_end;
};
__device__ bool locate(chunk_tile &ct, const int *seg, const int *tile_off, int chunk, int experts, int rb, int rows) {
  const int *to = tile_off + chunk * (experts + 1);
  const int tile = blockIdx.y;
  if (tile >= to[experts]) return false;
  int lo = 0, hi = experts;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (to[mid] <= tile) lo = mid;
    else hi = mid;
  }
  ct.e = lo;
  const int first = max(seg[lo], rb);
  ct.row0 = first + (tile - to[lo]) * BM;
  ct.row_end = min(seg[lo + 1], rb + rows);
  return true;
}
} // namespace

// elementwise operations of the loop body (fp32, one rounding each)
MKB_MAP(silu_map, float, (const float *x), mkb_silu(x[i]))
MKB_MAP(sigmoid_map, float, (const float *x), mkb_sigmoid(x[i]))
MKB_MAP(mul_map, float, (const float *a, const float *b), a[i] * b[i])
MKB_MAP(mul_rows, float, (const float *a, const float *w, unsigned cols), a[i] * w[(unsigned)i / cols])
MKB_MAP(scalar_minus, float, (float v, const float *x), v - x[i])
MKB_MAP(scalar_plus, float, (float v, const float *x), v + x[i])
MKB_MAP(add_map, float, (const float *a, const float *b), a[i] + b[i])
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *v), v[r * cols + c], acc)

extern "C" __global__ void fill_f32(float *out, float v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}
extern "C" __global__ void fill_i64(long long *out, long long v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}
// F.one_hot(topk_indices, num_classes): zeros then scatter_ of ones
extern "C" __global__ void scatter_one_hot(long long *mask, const long long *indices, long long n, int classes) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) mask[i * classes + indices[i]] = 1;
}
// tokens per expert (the sizes torch.where finds): column sums of the one-hot
extern "C" __global__ void sum_expert_columns(unsigned long long *counts, const long long *mask, long long rows, int classes) {
  __shared__ long long partial[8][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  long long acc = 0;
  if (c < classes)
    for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += (long long)gridDim.y * blockDim.y)
      acc += mask[r * classes + c];
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < classes) {
    for (int y = 1; y < 8; ++y) acc += partial[y][threadIdx.x];
    atomicAdd(&counts[c], (unsigned long long)acc);
  }
}
// seg[e]: the first row of expert e; tile_off[c][e]: the first 128-row tile of expert e in chunk c
extern "C" __global__ void expert_offsets(int *seg, int *tile_off, const unsigned long long *counts, int experts, int chunks,
                                          int chunk_rows) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int rows = 0;
  for (int e = 0; e < experts; ++e) {
    seg[e] = rows;
    rows += (int)counts[e];
  }
  seg[experts] = rows;
  for (int c = 0; c < chunks; ++c) {
    int tiles = 0;
    for (int e = 0; e < experts; ++e) {
      tile_off[c * (experts + 1) + e] = tiles;
      const int lo = max(seg[e], c * chunk_rows), hi = min(seg[e + 1], (c + 1) * chunk_rows);
      tiles += hi > lo ? (hi - lo + BM - 1) / BM : 0;
    }
    tile_off[c * (experts + 1) + experts] = tiles;
  }
}
// slot_indices, token_indices = torch.where(expert_mask[e]) for every expert at once: block e walks the
// [top_k, tokens] slice of the one-hot in (slot, token) order and compacts the ones
extern "C" __global__ void __launch_bounds__(1024) where_experts(int *row_token, int *row_slot, int *pos_of,
                                                                 const long long *mask, const int *seg, int tokens,
                                                                 int top_k, int classes) {
  __shared__ int warp_offset[32];
  __shared__ int total;
  const int e = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long cells = (long long)tokens * top_k;
  int count = 0;
  for (long long j0 = 0; j0 < cells; j0 += blockDim.x) {
    const long long j = j0 + threadIdx.x;
    const int slot = (int)(j / tokens), token = (int)(j % tokens);
    const bool one = j < cells && mask[((long long)token * top_k + slot) * classes + e] != 0;
    const unsigned ballot = __ballot_sync(0xffffffffu, one);
    if (lane == 0) warp_offset[warp] = __popc(ballot);
    __syncthreads();
    if (warp == 0) {
      const int v = lane < (int)(blockDim.x / 32) ? warp_offset[lane] : 0;
      int inclusive = v;
      for (int o = 1; o < 32; o <<= 1) {
        const int u = __shfl_up_sync(0xffffffffu, inclusive, o);
        if (lane >= o) inclusive += u;
      }
      warp_offset[lane] = inclusive - v;
      if (lane == 31) total = inclusive;
    }
    __syncthreads();
    if (one) {
      const int p = seg[e] + count + warp_offset[warp] + __popc(ballot & ((1u << lane) - 1u));
      row_token[p] = token;
      row_slot[p] = slot;
      pos_of[(long long)token * top_k + slot] = p;
    }
    count += total;
    __syncthreads();
  }
}
// hidden_states[token_indices], grad_output[token_indices] for the chunk's rows
extern "C" __global__ void gather_rows(float *out, const float *x, const int *row_token, int rb, int dim, long long rows) {
  const long long n = rows * dim;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[(long long)row_token[rb + i / dim] * dim + i % dim];
}
// expert_weights = topk_weights[token_indices, slot_indices]
extern "C" __global__ void gather_row_weights(float *out, const float *topk_weights, const int *row_token, const int *row_slot,
                                              int rb, int top_k, int rows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) out[r] = topk_weights[(long long)row_token[rb + r] * top_k + row_slot[rb + r]];
}
// grad_topk_weights[token_indices, slot_indices] += grad_weight_slot
extern "C" __global__ void scatter_add_slots(float *grad_topk, const float *values, const int *row_token, const int *row_slot,
                                             int rb, int top_k, int rows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const long long cell = (long long)row_token[rb + r] * top_k + row_slot[rb + r];
    grad_topk[cell] = grad_topk[cell] + values[r];
  }
}
// grad_hidden_states.index_add_(0, token_indices, rows), expert after expert: per token, its rows of this
// chunk in ascending expert (= row) order, an fp32 rounding per add
extern "C" __global__ void index_add_chunk(float *grad_hidden, const float *rows_grad, const int *pos_of, int rb, int rows,
                                           int top_k, int dim) {
  const long long t = blockIdx.x;
  int pos[8], n = 0;
  for (int j = 0; j < top_k; ++j) {
    const int p = pos_of[t * top_k + j];
    if (p >= rb && p < rb + rows) pos[n++] = p;
  }
  if (n == 0) return;
  for (int a = 1; a < n; ++a)
    for (int b = a; b > 0 && pos[b - 1] > pos[b]; --b) {
      const int tp = pos[b];
      pos[b] = pos[b - 1];
      pos[b - 1] = tp;
    }
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    float acc = grad_hidden[t * dim + c];
    for (int j = 0; j < n; ++j) acc += rows_grad[(long long)(pos[j] - rb) * dim + c];
    grad_hidden[t * dim + c] = acc;
  }
}

// F.linear(A, W[e]) = A @ W[e]^T for the chunk's rows (W[e]: [n_dim, k_dim]); A and C chunk-local
extern "C" __global__ void __launch_bounds__(256) grouped_linear(float *C, const float *A, const float *W, const int *seg,
                                                                const int *tile_off, int chunk, int experts, int rb,
                                                                int rows, int n_dim, int k_dim) {
  chunk_tile ct;
  if (!locate(ct, seg, tile_off, chunk, experts, rb, rows)) return;
  const int n0 = blockIdx.x * BN, t = threadIdx.x, ar = ct.row0 + t / 2;
  const float *a_src = ar < ct.row_end ? A + (long long)(ar - rb) * k_dim + 4 * (t % 2) : nullptr;
  const float *b_src = W + (long long)ct.e * n_dim * k_dim + (long long)(n0 + t / 2) * k_dim + 4 * (t % 2);
  float acc[8][8];
  sgemm_mainloop<true, true>(acc, [&](int k0) { return a_src ? *reinterpret_cast<const float4 *>(a_src + k0) : zero4(); },
                             [&](int k0) { return *reinterpret_cast<const float4 *>(b_src + k0); }, k_dim);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = ct.row0 + acc_row(i);
    if (r >= ct.row_end) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4 *>(C + (long long)(r - rb) * n_dim + n0 + acc_col(4 * h)) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
  }
}

// F.linear(A, W[e].t()) = A @ W[e] for the chunk's rows (W[e]: [k_dim, n_dim])
extern "C" __global__ void __launch_bounds__(256) grouped_linear_t(float *C, const float *A, const float *W, const int *seg,
                                                                  const int *tile_off, int chunk, int experts, int rb,
                                                                  int rows, int n_dim, int k_dim) {
  chunk_tile ct;
  if (!locate(ct, seg, tile_off, chunk, experts, rb, rows)) return;
  const int n0 = blockIdx.x * BN, t = threadIdx.x, ar = ct.row0 + t / 2;
  const float *a_src = ar < ct.row_end ? A + (long long)(ar - rb) * k_dim + 4 * (t % 2) : nullptr;
  const float *b_src = W + (long long)ct.e * k_dim * n_dim + (long long)(t / 32) * n_dim + n0 + 4 * (t % 32);
  float acc[8][8];
  sgemm_mainloop<true, false>(acc, [&](int k0) { return a_src ? *reinterpret_cast<const float4 *>(a_src + k0) : zero4(); },
                              [&](int k0) { return *reinterpret_cast<const float4 *>(b_src + (long long)k0 * n_dim); }, k_dim);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = ct.row0 + acc_row(i);
    if (r >= ct.row_end) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4 *>(C + (long long)(r - rb) * n_dim + n0 + acc_col(4 * h)) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
  }
}

// grad_w[e] += A^T @ B over expert e's rows of the chunk (A: [rows, m_dim], B: [rows, n_dim], chunk-local);
// grad_w[e]: [m_dim, n_dim]. Block: one 128 x 128 tile of one expert (blockIdx.z); experts absent from the
// chunk return.
extern "C" __global__ void __launch_bounds__(256) weight_grad_accumulate(float *grad_w, const float *A, const float *B,
                                                                        const int *seg, int rb, int rows, int m_dim,
                                                                        int n_dim) {
  const int e = blockIdx.z, lo = max(seg[e], rb), hi = min(seg[e + 1], rb + rows);
  if (hi <= lo) return;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, t = threadIdx.x;
  float acc[8][8];
  sgemm_mainloop<false, false>(
      acc,
      [&](int k0) {
        const int r = lo + k0 + t / 32;
        return r < hi ? *reinterpret_cast<const float4 *>(A + (long long)(r - rb) * m_dim + m0 + 4 * (t % 32)) : zero4();
      },
      [&](int k0) {
        const int r = lo + k0 + t / 32;
        return r < hi ? *reinterpret_cast<const float4 *>(B + (long long)(r - rb) * n_dim + n0 + 4 * (t % 32)) : zero4();
      },
      hi - lo);
  float *out = grad_w + (long long)e * m_dim * n_dim;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const long long m = m0 + acc_row(i);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float4 *p = reinterpret_cast<float4 *>(out + m * n_dim + n0 + acc_col(4 * h));
      float4 v = *p;
      v.x += acc[i][4 * h];
      v.y += acc[i][4 * h + 1];
      v.z += acc[i][4 * h + 2];
      v.w += acc[i][4 * h + 3];
      *p = v;
    }
  }
}

/* mkb:plan
# buffers reused within a chunk: expert_out holds (routed_grad * expert_out), then grad_from_up;
# routed_grad holds grad_from_gate, then grad_from_gate + grad_from_up
scratch one_hot int64[num_tokens * num_experts_per_token * num_routed_experts]
scratch counts int64[num_routed_experts] zeroed
scratch seg int32[num_routed_experts + 1]
scratch tile_off int32[num_experts_per_token * (num_routed_experts + 1)]
scratch row_token int32[num_tokens * num_experts_per_token]
scratch row_slot int32[num_tokens * num_experts_per_token]
scratch pos_of int32[num_tokens * num_experts_per_token]
scratch row_w fp32[num_tokens]
scratch slot_grad fp32[num_tokens]
scratch current fp32[num_tokens * hidden_size]
scratch expert_out fp32[num_tokens * hidden_size]
scratch routed_grad fp32[num_tokens * hidden_size]
scratch grad_eo fp32[num_tokens * hidden_size]
scratch gate_pre fp32[num_tokens * intermediate_size]
scratch gate_act fp32[num_tokens * intermediate_size]
scratch up fp32[num_tokens * intermediate_size]
scratch inter fp32[num_tokens * intermediate_size]
scratch grad_inter fp32[num_tokens * intermediate_size]
scratch grad_gate_act fp32[num_tokens * intermediate_size]
scratch grad_up fp32[num_tokens * intermediate_size]
scratch sig fp32[num_tokens * intermediate_size]
scratch one_minus_sig fp32[num_tokens * intermediate_size]
scratch pre_times fp32[num_tokens * intermediate_size]
scratch one_plus fp32[num_tokens * intermediate_size]
scratch silu_grad fp32[num_tokens * intermediate_size]
scratch grad_gate_pre fp32[num_tokens * intermediate_size]
# torch.zeros_like for the five gradients
launch fill_f32 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_hidden_states, f32(0), i64(num_tokens * hidden_size))
launch fill_f32 grid(ceil_div(num_tokens * num_experts_per_token, 1024)) block(256) args(grad_topk_weights, f32(0), i64(num_tokens * num_experts_per_token))
launch fill_f32 grid(ceil_div(num_routed_experts * intermediate_size * hidden_size, 1024)) block(256) args(grad_gate_weights, f32(0), i64(num_routed_experts * intermediate_size * hidden_size))
launch fill_f32 grid(ceil_div(num_routed_experts * intermediate_size * hidden_size, 1024)) block(256) args(grad_up_weights, f32(0), i64(num_routed_experts * intermediate_size * hidden_size))
launch fill_f32 grid(ceil_div(num_routed_experts * intermediate_size * hidden_size, 1024)) block(256) args(grad_down_weights, f32(0), i64(num_routed_experts * intermediate_size * hidden_size))
# expert_mask = F.one_hot(topk_indices, num_experts).permute(2, 1, 0); each expert's torch.where
launch fill_i64 grid(ceil_div(num_tokens * num_experts_per_token * num_routed_experts, 1024)) block(256)
  args(one_hot, i64(0), i64(num_tokens * num_experts_per_token * num_routed_experts))
launch scatter_one_hot grid(ceil_div(num_tokens * num_experts_per_token, 256)) block(256)
  args(one_hot, topk_indices, i64(num_tokens * num_experts_per_token), i32(num_routed_experts))
launch sum_expert_columns grid(ceil_div(num_routed_experts, 32), 256) block(32, 8)
  args(counts, one_hot, i64(num_tokens * num_experts_per_token), i32(num_routed_experts))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_routed_experts), i32(num_experts_per_token), i32(num_tokens))
launch where_experts grid(num_routed_experts) block(1024)
  args(row_token, row_slot, pos_of, one_hot, seg, i32(num_tokens), i32(num_experts_per_token), i32(num_routed_experts))
# the loop body over rows 0 * num_tokens .. 1 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(0 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(0 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(0), i32(num_routed_experts), i32(0 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(0), i32(num_routed_experts), i32(0 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(0), i32(num_routed_experts), i32(0 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(0 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(0 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(0), i32(num_routed_experts), i32(0 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(0 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(0), i32(num_routed_experts), i32(0 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(0 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(0), i32(num_routed_experts), i32(0 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(0 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(0 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
# the loop body over rows 1 * num_tokens .. 2 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(1 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(1 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(1), i32(num_routed_experts), i32(1 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(1), i32(num_routed_experts), i32(1 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(1), i32(num_routed_experts), i32(1 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(1 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(1 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(1), i32(num_routed_experts), i32(1 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(1 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(1), i32(num_routed_experts), i32(1 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(1 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(1), i32(num_routed_experts), i32(1 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(1 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(1 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
# the loop body over rows 2 * num_tokens .. 3 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(2 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(2 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(2), i32(num_routed_experts), i32(2 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(2), i32(num_routed_experts), i32(2 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(2), i32(num_routed_experts), i32(2 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(2 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(2 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(2), i32(num_routed_experts), i32(2 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(2 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(2), i32(num_routed_experts), i32(2 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(2 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(2), i32(num_routed_experts), i32(2 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(2 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(2 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
# the loop body over rows 3 * num_tokens .. 4 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(3 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(3 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(3), i32(num_routed_experts), i32(3 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(3), i32(num_routed_experts), i32(3 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(3), i32(num_routed_experts), i32(3 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(3 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(3 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(3), i32(num_routed_experts), i32(3 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(3 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(3), i32(num_routed_experts), i32(3 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(3 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(3), i32(num_routed_experts), i32(3 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(3 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(3 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
# the loop body over rows 4 * num_tokens .. 5 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(4 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(4 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(4), i32(num_routed_experts), i32(4 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(4), i32(num_routed_experts), i32(4 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(4), i32(num_routed_experts), i32(4 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(4 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(4 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(4), i32(num_routed_experts), i32(4 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(4 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(4), i32(num_routed_experts), i32(4 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(4 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(4), i32(num_routed_experts), i32(4 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(4 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(4 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
# the loop body over rows 5 * num_tokens .. 6 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(5 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(5 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(5), i32(num_routed_experts), i32(5 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(5), i32(num_routed_experts), i32(5 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(5), i32(num_routed_experts), i32(5 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(5 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(5 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(5), i32(num_routed_experts), i32(5 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(5 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(5), i32(num_routed_experts), i32(5 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(5 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(5), i32(num_routed_experts), i32(5 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(5 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(5 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
# the loop body over rows 6 * num_tokens .. 7 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(6 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(6 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(6), i32(num_routed_experts), i32(6 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(6), i32(num_routed_experts), i32(6 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(6), i32(num_routed_experts), i32(6 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(6 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(6 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(6), i32(num_routed_experts), i32(6 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(6 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(6), i32(num_routed_experts), i32(6 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(6 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(6), i32(num_routed_experts), i32(6 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(6 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(6 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
# the loop body over rows 7 * num_tokens .. 8 * num_tokens of the expert-sorted layout
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(current, hidden_states, row_token, i32(7 * num_tokens), i32(hidden_size), i64(num_tokens))
launch gather_row_weights grid(ceil_div(num_tokens, 256)) block(256) args(row_w, topk_weights, row_token, row_slot, i32(7 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(gate_pre, current, gate_weights, seg, tile_off, i32(7), i32(num_routed_experts), i32(7 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch silu_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(gate_act, gate_pre, i64(num_tokens * intermediate_size))
launch grouped_linear grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(up, current, up_weights, seg, tile_off, i32(7), i32(num_routed_experts), i32(7 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(inter, gate_act, up, i64(num_tokens * intermediate_size))
launch grouped_linear grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, inter, down_weights, seg, tile_off, i32(7), i32(num_routed_experts), i32(7 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch gather_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, grad_output, row_token, i32(7 * num_tokens), i32(hidden_size), i64(num_tokens))
launch mul_rows grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(grad_eo, routed_grad, row_w, u32(hidden_size), i64(num_tokens * hidden_size))
launch mul_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(expert_out, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch row_sum grid(num_tokens) block(256) args(slot_grad, expert_out, i32(hidden_size))
launch scatter_add_slots grid(ceil_div(num_tokens, 256)) block(256) args(grad_topk_weights, slot_grad, row_token, row_slot, i32(7 * num_tokens), i32(num_experts_per_token), i32(num_tokens))
launch grouped_linear_t grid(intermediate_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(grad_inter, grad_eo, down_weights, seg, tile_off, i32(7), i32(num_routed_experts), i32(7 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch weight_grad_accumulate grid(intermediate_size / 128, hidden_size / 128, num_routed_experts) block(256)
  args(grad_down_weights, grad_eo, inter, seg, i32(7 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_act, grad_inter, up, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_up, grad_inter, gate_act, i64(num_tokens * intermediate_size))
launch sigmoid_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(sig, gate_pre, i64(num_tokens * intermediate_size))
launch scalar_minus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_minus_sig, f32(1), sig, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(pre_times, gate_pre, one_minus_sig, i64(num_tokens * intermediate_size))
launch scalar_plus grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(one_plus, f32(1), pre_times, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(silu_grad, sig, one_plus, i64(num_tokens * intermediate_size))
launch mul_map grid(ceil_div(num_tokens * intermediate_size, 1024)) block(256) args(grad_gate_pre, grad_gate_act, silu_grad, i64(num_tokens * intermediate_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(routed_grad, grad_gate_pre, gate_weights, seg, tile_off, i32(7), i32(num_routed_experts), i32(7 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_gate_weights, grad_gate_pre, current, seg, i32(7 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch grouped_linear_t grid(hidden_size / 128, ceil_div(num_tokens, 128) + num_routed_experts) block(256)
  args(expert_out, grad_up, up_weights, seg, tile_off, i32(7), i32(num_routed_experts), i32(7 * num_tokens), i32(num_tokens), i32(hidden_size), i32(intermediate_size))
launch weight_grad_accumulate grid(hidden_size / 128, intermediate_size / 128, num_routed_experts) block(256)
  args(grad_up_weights, grad_up, current, seg, i32(7 * num_tokens), i32(num_tokens), i32(intermediate_size), i32(hidden_size))
launch add_map grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_grad, routed_grad, expert_out, i64(num_tokens * hidden_size))
launch index_add_chunk grid(num_tokens) block(256) args(grad_hidden_states, routed_grad, pos_of, i32(7 * num_tokens), i32(num_tokens), i32(num_experts_per_token), i32(hidden_size))
*/
