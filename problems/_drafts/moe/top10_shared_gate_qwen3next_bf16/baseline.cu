// The eager baseline: one launch per operation of the reference as eager PyTorch runs it, each
// intermediate in memory at the dtype PyTorch keeps it (eager.py is that computation). The reference's
// Python loop over the 512 experts (with its .item() and torch.where host syncs) becomes one launch per
// operation over all experts: the tokens of every expert are laid out one expert after another (expert e
// owns rows seg[e] .. seg[e+1] of the routed buffers, in torch.where's (slot, token) order), and the three
// per-expert matmuls (cuBLAS in eager, bf16 in, fp32 accumulation, bf16 out) are a hand-written grouped
// bf16 tensor-core GEMM (WMMA), since a matmul step cannot address one expert's rows. The dense matmuls
// (router, shared expert, shared gate) are cuBLAS matmul steps as in eager.
// (MKB_MAP expressions see the macro's own i, k, n, base, values: parameters avoid those names.)
#include "mkb_ops.cuh"

#include <mma.h>

using namespace nvcuda;

// hidden_flat.to(fp32), router_weight.to(fp32)
MKB_MAP(to_fp32, float, (const bf16 *s), f32(s[i]))
// routing_weights / routing_weights.sum(-1, keepdim=True)
MKB_MAP(divide_rows, float, (const float *w, const float *s, unsigned per_row), w[i] / s[(unsigned)i / per_row])
// .to(bf16)
MKB_MAP(to_bf16, bf16, (const float *s), s[i])
// torch.zeros(..., dtype=bf16)
MKB_MAP(fill_bf16, bf16, (float v), v)
// torch.sigmoid(x), x * y, for bf16 tensors: fp32 math, one rounding
MKB_MAP(sigmoid_bf16, bf16, (const bf16 *x), mkb_sigmoid(f32(x[i])))
MKB_MAP(mul_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) * f32(b[i]))
// out * routing_weights[top_x, idx, None]: one weight per row
MKB_MAP(mul_rows_bf16, bf16, (const bf16 *a, const bf16 *w, unsigned cols), f32(a[i]) * f32(w[(unsigned)i / cols]))
// final_hidden_states + shared_output
MKB_MAP(add_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) + f32(b[i]))
// routing_weights.sum(dim=-1, keepdim=True)
MKB_ROW_REDUCE(row_sum, float, float, mkb_ops::sum_op, (const float *v), v[r * cols + c], acc)

// torch.softmax(router_logits, dim=1): one block per row
extern "C" __global__ void softmax_rows(float *out, const float *x, int cols) {
  const float *row = x + (long long)blockIdx.x * cols;
  float m = -__int_as_float(0x7f800000);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[(long long)blockIdx.x * cols + c] = expf(row[c] - m) / s;
}

// torch.topk(x, k, dim=-1): values and int64 indices, descending, ties to the lower index; one thread per row
extern "C" __global__ void topk_rows(const float *x, float *values, long long *indices, int rows, int cols, int k) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = x + r * cols;
  float last_v = __int_as_float(0x7f800000);
  int last_i = -1;
  for (int j = 0; j < k; ++j) {
    float best_v = -__int_as_float(0x7f800000);
    int best_i = -1;
    for (int c = 0; c < cols; ++c) {
      const float v = row[c];
      if ((v < last_v || (v == last_v && c > last_i)) && (best_i < 0 || v > best_v)) {
        best_v = v;
        best_i = c;
      }
    }
    values[r * k + j] = best_v;
    indices[r * k + j] = best_i;
    last_v = best_v;
    last_i = best_i;
  }
}

// F.one_hot(selected_experts, num_classes): torch.zeros then scatter_ of ones (int64 [tokens, top_k, experts])
extern "C" __global__ void fill_i64(long long *out, long long v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}
extern "C" __global__ void scatter_one_hot(long long *mask, const long long *selected, long long n, int classes) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) mask[i * classes + selected[i]] = 1;
}

// expert_mask.sum(dim=(-1, -2)) of the transposed [experts, top_k, tokens] view: per expert, the sum
// over rows of the [tokens * top_k, experts] one-hot; column sums in partial blocks, added atomically
extern "C" __global__ void sum_expert_columns(unsigned long long *counts, const long long *mask, long long rows,
                                              int experts) {
  __shared__ long long partial[8][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  long long acc = 0;
  if (c < experts)
    for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += (long long)gridDim.y * blockDim.y)
      acc += mask[r * experts + c];
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < experts) {
    for (int y = 1; y < 8; ++y) acc += partial[y][threadIdx.x];
    atomicAdd(&counts[c], (unsigned long long)acc);
  }
}

// Where each expert's rows start (seg) and its first 64-row tile (tile_off), for the concatenated layout.
extern "C" __global__ void expert_offsets(int *seg, int *tile_off, const unsigned long long *counts, int experts, int bm) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int rows = 0, tiles = 0;
  for (int e = 0; e < experts; ++e) {
    seg[e] = rows;
    tile_off[e] = tiles;
    rows += (int)counts[e];
    tiles += ((int)counts[e] + bm - 1) / bm;
  }
  seg[experts] = rows;
  tile_off[experts] = tiles;
}

// idx, top_x = torch.where(expert_mask[e]) for every expert at once: block e walks the [top_k, tokens]
// slice of the one-hot in (slot, token) order and compacts the ones. row_token / row_slot: the token and
// slot of each routed row; pos_of[token * top_k + slot]: that row's position.
extern "C" __global__ void __launch_bounds__(1024) where_experts(int *row_token, int *row_slot, int *pos_of,
                                                                 const long long *mask, const int *seg, int tokens,
                                                                 int top_k, int experts) {
  __shared__ int warp_offset[32];
  __shared__ int total;
  const int e = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long cells = (long long)tokens * top_k;
  int count = 0;
  for (long long j0 = 0; j0 < cells; j0 += blockDim.x) {
    const long long j = j0 + threadIdx.x;
    const int slot = (int)(j / tokens), token = (int)(j % tokens);
    const bool one = j < cells && mask[((long long)token * top_k + slot) * experts + e] != 0;
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

// current_state = hidden_flat[top_x], every expert's rows
extern "C" __global__ void gather_rows(bf16 *out, const bf16 *x, const int *row_token, int dim, long long rows) {
  const long long n = rows * dim;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = x[(long long)row_token[i / dim] * dim + i % dim];
}

// routing_weights[top_x, idx]: the weight of each routed row
extern "C" __global__ void gather_row_weights(bf16 *out, const bf16 *weights, const int *row_token, const int *row_slot,
                                              int top_k, long long rows) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) out[r] = weights[(long long)row_token[r] * top_k + row_slot[r]];
}

// final_hidden_states.index_add_(0, top_x, weighted), expert after expert: each token's rows are added
// in ascending expert order, rounding to bf16 after each add (index_add_ into a bf16 tensor)
extern "C" __global__ void index_add_in_expert_order(bf16 *final_states, const bf16 *weighted, const int *pos_of,
                                                     const long long *selected, int top_k, int dim) {
  const long long t = blockIdx.x;
  int pos[16];
  long long ex[16];
  for (int j = 0; j < top_k; ++j) {
    ex[j] = selected[t * top_k + j];
    pos[j] = pos_of[t * top_k + j];
  }
  for (int a = 1; a < top_k; ++a)  // insertion sort by expert
    for (int b = a; b > 0 && ex[b - 1] > ex[b]; --b) {
      const long long te = ex[b];
      ex[b] = ex[b - 1];
      ex[b - 1] = te;
      const int tp = pos[b];
      pos[b] = pos[b - 1];
      pos[b - 1] = tp;
    }
  for (int c = threadIdx.x; c < dim; c += blockDim.x) {
    float acc = __bfloat162float(final_states[t * dim + c]);  // the zeros the loop adds into
    for (int j = 0; j < top_k; ++j)
      acc = __bfloat162float(__float2bfloat16_rn(acc + __bfloat162float(weighted[(long long)pos[j] * dim + c])));
    final_states[t * dim + c] = __float2bfloat16_rn(acc);
  }
}

// out[r, :] = bf16(A[r, :] @ W[e]^T) for the rows r of expert e (W[e]: [n_out, k_dim], nn.Linear layout);
// bf16 tensor cores, fp32 accumulation. Block: a 64 x 64 tile of one expert; blockIdx.y runs over every
// expert's 64-row tiles (tile_off), blocks past the last tile return.
extern "C" __global__ void __launch_bounds__(128) grouped_gemm_bf16(bf16 *out, const bf16 *A, const bf16 *W, const int *seg,
                                                                    const int *tile_off, int experts, int n_out, int k_dim) {
  constexpr int BM = 64, BN = 64, BK = 32, LDS = BK + 8, LDC = BN + 4;
  __shared__ __align__(32) bf16 As[BM * LDS];
  __shared__ __align__(32) bf16 Bs[BN * LDS];
  __shared__ __align__(32) float Cs[BM * LDC];
  const int tile = blockIdx.y;
  if (tile >= tile_off[experts]) return;
  int lo = 0, hi = experts;  // the expert e with tile_off[e] <= tile < tile_off[e + 1]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (tile_off[mid] <= tile) lo = mid;
    else hi = mid;
  }
  const int e = lo;
  const int row0 = seg[e] + (tile - tile_off[e]) * BM, row_end = seg[e + 1], n0 = blockIdx.x * BN;
  const bf16 *We = W + (long long)e * n_out * k_dim;
  const int warp = threadIdx.x / 32, wm = warp % 2, wn = warp / 2;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < k_dim; k0 += BK) {
    for (int q = threadIdx.x; q < BM * BK / 8; q += blockDim.x) {
      const int m = q / (BK / 8), c = q % (BK / 8);
      const int r = row0 + m;
      *reinterpret_cast<uint4 *>(&As[m * LDS + 8 * c]) =
          r < row_end ? *reinterpret_cast<const uint4 *>(A + (long long)r * k_dim + k0 + 8 * c) : uint4{0, 0, 0, 0};
      *reinterpret_cast<uint4 *>(&Bs[m * LDS + 8 * c]) =
          *reinterpret_cast<const uint4 *>(We + (long long)(n0 + m) * k_dim + k0 + 8 * c);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b[2];
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[(wm * 32 + i * 16) * LDS + kk], LDS);
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[(wn * 32 + j * 16) * LDS + kk], LDS);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&Cs[(wm * 32 + i * 16) * LDC + wn * 32 + j * 16], acc[i][j], LDC, wmma::mem_row_major);
  __syncthreads();
  for (int q = threadIdx.x; q < BM * BN; q += blockDim.x) {
    const int m = q / BN, c = q % BN;
    if (row0 + m < row_end) out[(long long)(row0 + m) * n_out + n0 + c] = __float2bfloat16_rn(Cs[m * LDC + c]);
  }
}

/* mkb:plan
scratch hidden_f fp32[num_tokens * hidden_size]
scratch router_f fp32[num_experts * hidden_size]
scratch logits fp32[num_tokens * num_experts]
scratch probs fp32[num_tokens * num_experts]
scratch top_probs fp32[num_tokens * top_k]
scratch selected int64[num_tokens * top_k]
scratch top_sums fp32[num_tokens]
scratch top_norm fp32[num_tokens * top_k]
scratch routing_weights bf16[num_tokens * top_k]
scratch routed_sum bf16[num_tokens * hidden_size]
scratch one_hot int64[num_tokens * top_k * num_experts]
scratch counts int64[num_experts] zeroed
scratch seg int32[num_experts + 1]
scratch tile_off int32[num_experts + 1]
scratch row_token int32[num_tokens * top_k]
scratch row_slot int32[num_tokens * top_k]
scratch pos_of int32[num_tokens * top_k]
scratch current_state bf16[num_tokens * top_k * hidden_size]
scratch gate bf16[num_tokens * top_k * moe_intermediate_size]
scratch up bf16[num_tokens * top_k * moe_intermediate_size]
scratch gate_sigmoid bf16[num_tokens * top_k * moe_intermediate_size]
scratch activated bf16[num_tokens * top_k * moe_intermediate_size]
scratch hidden bf16[num_tokens * top_k * moe_intermediate_size]
scratch expert_out bf16[num_tokens * top_k * hidden_size]
scratch row_weights bf16[num_tokens * top_k]
scratch weighted bf16[num_tokens * top_k * hidden_size]
scratch shared_gate bf16[num_tokens * shared_expert_intermediate_size]
scratch shared_up bf16[num_tokens * shared_expert_intermediate_size]
scratch shared_sigmoid bf16[num_tokens * shared_expert_intermediate_size]
scratch shared_activated bf16[num_tokens * shared_expert_intermediate_size]
scratch shared_hidden bf16[num_tokens * shared_expert_intermediate_size]
scratch shared_out bf16[num_tokens * hidden_size]
scratch gate_logit bf16[num_tokens]
scratch gate_value bf16[num_tokens]
scratch shared_gated bf16[num_tokens * hidden_size]
# router: fp32 logits, softmax, top-10, renormalized, cast to bf16
launch to_fp32 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(hidden_f, hidden_states, i64(num_tokens * hidden_size))
launch to_fp32 grid(ceil_div(num_experts * hidden_size, 1024)) block(256) args(router_f, router_weight, i64(num_experts * hidden_size))
matmul c(logits) a(hidden_f) b(router_f) m(num_tokens) n(num_experts) k(hidden_size) transpose_b
launch softmax_rows grid(num_tokens) block(256) args(probs, logits, i32(num_experts))
launch topk_rows grid(ceil_div(num_tokens, 128)) block(128) args(probs, top_probs, selected, i32(num_tokens), i32(num_experts), i32(top_k))
launch row_sum grid(num_tokens) block(32) args(top_sums, top_probs, i32(top_k))
launch divide_rows grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(top_norm, top_probs, top_sums, u32(top_k), i64(num_tokens * top_k))
launch to_bf16 grid(ceil_div(num_tokens * top_k, 1024)) block(256) args(routing_weights, top_norm, i64(num_tokens * top_k))
launch fill_bf16 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(routed_sum, f32(0), i64(num_tokens * hidden_size))
# expert_mask = one_hot(...); expert_hit from its sums; per-expert torch.where, all experts in one launch
launch fill_i64 grid(ceil_div(num_tokens * top_k * num_experts, 1024)) block(256) args(one_hot, i64(0), i64(num_tokens * top_k * num_experts))
launch scatter_one_hot grid(ceil_div(num_tokens * top_k, 256)) block(256) args(one_hot, selected, i64(num_tokens * top_k), i32(num_experts))
launch sum_expert_columns grid(ceil_div(num_experts, 32), 256) block(32, 8) args(counts, one_hot, i64(num_tokens * top_k), i32(num_experts))
launch expert_offsets grid(1) block(32) args(seg, tile_off, counts, i32(num_experts), i32(64))
launch where_experts grid(num_experts) block(1024) args(row_token, row_slot, pos_of, one_hot, seg, i32(num_tokens), i32(top_k), i32(num_experts))
# the loop body over every expert's rows
launch gather_rows grid(ceil_div(num_tokens * top_k * hidden_size, 1024)) block(256)
  args(current_state, hidden_states, row_token, i32(hidden_size), i64(num_tokens * top_k))
launch grouped_gemm_bf16 grid(moe_intermediate_size / 64, ceil_div(num_tokens * top_k, 64) + num_experts) block(128)
  args(gate, current_state, routed_gate_proj, seg, tile_off, i32(num_experts), i32(moe_intermediate_size), i32(hidden_size))
launch grouped_gemm_bf16 grid(moe_intermediate_size / 64, ceil_div(num_tokens * top_k, 64) + num_experts) block(128)
  args(up, current_state, routed_up_proj, seg, tile_off, i32(num_experts), i32(moe_intermediate_size), i32(hidden_size))
launch sigmoid_bf16 grid(ceil_div(num_tokens * top_k * moe_intermediate_size, 1024)) block(256)
  args(gate_sigmoid, gate, i64(num_tokens * top_k * moe_intermediate_size))
launch mul_bf16 grid(ceil_div(num_tokens * top_k * moe_intermediate_size, 1024)) block(256)
  args(activated, gate, gate_sigmoid, i64(num_tokens * top_k * moe_intermediate_size))
launch mul_bf16 grid(ceil_div(num_tokens * top_k * moe_intermediate_size, 1024)) block(256)
  args(hidden, activated, up, i64(num_tokens * top_k * moe_intermediate_size))
launch grouped_gemm_bf16 grid(hidden_size / 64, ceil_div(num_tokens * top_k, 64) + num_experts) block(128)
  args(expert_out, hidden, routed_down_proj, seg, tile_off, i32(num_experts), i32(hidden_size), i32(moe_intermediate_size))
launch gather_row_weights grid(ceil_div(num_tokens * top_k, 256)) block(256)
  args(row_weights, routing_weights, row_token, row_slot, i32(top_k), i64(num_tokens * top_k))
launch mul_rows_bf16 grid(ceil_div(num_tokens * top_k * hidden_size, 1024)) block(256)
  args(weighted, expert_out, row_weights, u32(hidden_size), i64(num_tokens * top_k * hidden_size))
launch index_add_in_expert_order grid(num_tokens) block(256) args(routed_sum, weighted, pos_of, selected, i32(top_k), i32(hidden_size))
# shared expert and its sigmoid gate
matmul c(shared_gate) a(hidden_states) b(shared_gate_proj) m(num_tokens) n(shared_expert_intermediate_size) k(hidden_size) transpose_b
matmul c(shared_up) a(hidden_states) b(shared_up_proj) m(num_tokens) n(shared_expert_intermediate_size) k(hidden_size) transpose_b
launch sigmoid_bf16 grid(ceil_div(num_tokens * shared_expert_intermediate_size, 1024)) block(256)
  args(shared_sigmoid, shared_gate, i64(num_tokens * shared_expert_intermediate_size))
launch mul_bf16 grid(ceil_div(num_tokens * shared_expert_intermediate_size, 1024)) block(256)
  args(shared_activated, shared_gate, shared_sigmoid, i64(num_tokens * shared_expert_intermediate_size))
launch mul_bf16 grid(ceil_div(num_tokens * shared_expert_intermediate_size, 1024)) block(256)
  args(shared_hidden, shared_activated, shared_up, i64(num_tokens * shared_expert_intermediate_size))
matmul c(shared_out) a(shared_hidden) b(shared_down_proj) m(num_tokens) n(hidden_size) k(shared_expert_intermediate_size) transpose_b
matmul c(gate_logit) a(hidden_states) b(shared_expert_gate) m(num_tokens) n(1) k(hidden_size) transpose_b
launch sigmoid_bf16 grid(ceil_div(num_tokens, 1024)) block(256) args(gate_value, gate_logit, i64(num_tokens))
launch mul_rows_bf16 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256)
  args(shared_gated, shared_out, gate_value, u32(hidden_size), i64(num_tokens * hidden_size))
launch add_bf16 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256)
  args(final_hidden_states, routed_sum, shared_gated, i64(num_tokens * hidden_size))
launch to_bf16 grid(ceil_div(num_tokens * num_experts, 1024)) block(256) args(router_logits, logits, i64(num_tokens * num_experts))
*/
