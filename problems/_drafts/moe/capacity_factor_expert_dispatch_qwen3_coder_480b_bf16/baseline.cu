// The eager baseline: one launch per operation of the reference as eager PyTorch runs it (eager.py is
// that program). Dispatch bookkeeping in int64/fp32/bf16 as eager keeps it, the [160, 512, 6144] bf16
// capacity buffers, the three batched products as cuBLAS matmul steps (bf16, fp32 accumulation), silu and
// mul_ in bf16, the weighted gather in bf16 and an index_add_ into a bf16 result.
#include "mkb_ops.cuh"

namespace {
constexpr int kExperts = 160, kTopK = 8, kHidden = 6144;
__device__ __forceinline__ long long gstart() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long gstep() { return (long long)gridDim.x * blockDim.x; }
}

MKB_MAP(silu_bf16, bf16, (const bf16 *x), mkb_silu(f32(x[i])))
MKB_MAP(mul_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) * f32(b[i]))
MKB_MAP(fill_bf16, bf16, (float v), v)

// flat_token_ids = arange(T).repeat_interleave(8)
extern "C" __global__ void token_ids(long long *out, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = i / kTopK;
}
// torch.bincount(sorted_experts, minlength=160) (a block per expert)
extern "C" __global__ void bincount(long long *counts, const long long *flat_experts, long long n) {
  long long c = 0;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) c += flat_experts[i] == blockIdx.x;
  c = mkb_ops::block_reduce<mkb_ops::sum_op>(c);
  if (threadIdx.x == 0) counts[blockIdx.x] = c;
}
// starts = zeros(160); starts[1:] = counts[:-1].cumsum(0)
extern "C" __global__ void starts_cumsum(long long *starts, const long long *counts) {
  if (threadIdx.x != 0) return;
  long long s = 0;
  for (int e = 0; e < kExperts; ++e) {
    starts[e] = s;
    s += counts[e];
  }
}
// flat_experts.sort(stable=True): (sorted_experts, sorted_indices); a block of 1024 per expert places its
// entries at starts[e] .. in their original order
extern "C" __global__ void stable_sort(long long *sorted_experts, long long *sorted_indices, const long long *flat_experts,
                                       const long long *starts, int n) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int e = blockIdx.x;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int j0 = 0; j0 < n; j0 += blockDim.x) {
    const int j = j0 + threadIdx.x;
    const int hit = j < n ? flat_experts[j] == e : 0;
    int incl = hit;
    for (int o = 1; o < 32; o <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += v;
    }
    if (lane == 31) warp_sums[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      int ws = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0;
      for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, ws, o);
        if (lane >= o) ws += v;
      }
      warp_sums[lane] = ws;
    }
    __syncthreads();
    if (hit) {
      const long long p = starts[e] + base + (warp > 0 ? warp_sums[warp - 1] : 0) + incl - hit;
      sorted_experts[p] = e;
      sorted_indices[p] = j;
    }
    __syncthreads();
    if (threadIdx.x == 0) base += warp_sums[blockDim.x / 32 - 1];
    __syncthreads();
  }
}
// sorted_weights = flat_weights[sorted_indices]; sorted_token_ids = flat_token_ids[sorted_indices]
extern "C" __global__ void gather_bf16(bf16 *out, const bf16 *x, const long long *idx, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = x[idx[i]];
}
extern "C" __global__ void gather_i64(long long *out, const long long *x, const long long *idx, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) out[i] = x[idx[i]];
}
// within_pos = arange(n) - starts[sorted_experts]; valid = within_pos < capacity
extern "C" __global__ void within_pos(long long *pos, const long long *sorted_experts, const long long *starts, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) pos[i] = i - starts[sorted_experts[i]];
}
extern "C" __global__ void less_than(unsigned char *valid, const long long *pos, long long capacity, long long n) {
  for (long long i = gstart(); i < n; i += gstep()) valid[i] = pos[i] < capacity;
}
// v_exp, v_pos, v_tok, v_wt = x[valid] (boolean indexing: the valid entries, in order). The valid entries
// of expert e are the first min(count, capacity) of its sorted run, so each lands at
// sum_{e' < e} min(count_e', capacity) + within_pos. Also slot[flat index] = valid index or -1 (for the
// index_add, and num_valid in slot_total[0]).
extern "C" __global__ void compact_valid(long long *v_exp, long long *v_pos, long long *v_tok, bf16 *v_wt, int *slot,
                                         int *num_valid, const unsigned char *valid, const long long *sorted_experts,
                                         const long long *pos, const long long *sorted_tok, const bf16 *sorted_wt,
                                         const long long *sorted_indices, const long long *counts, long long capacity, long long n) {
  __shared__ long long before[kExperts + 1];
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int e = 0; e < kExperts; ++e) {
      before[e] = s;
      s += min(counts[e], capacity);
    }
    before[kExperts] = s;
    if (blockIdx.x == 0) num_valid[0] = (int)s;
  }
  __syncthreads();
  for (long long i = gstart(); i < n; i += gstep()) {
    if (!valid[i]) {
      slot[sorted_indices[i]] = -1;
      continue;
    }
    const long long v = before[sorted_experts[i]] + pos[i];
    v_exp[v] = sorted_experts[i];
    v_pos[v] = pos[i];
    v_tok[v] = sorted_tok[i];
    v_wt[v] = sorted_wt[i];
    slot[sorted_indices[i]] = (int)v;
  }
}
// expert_inputs[v_exp, v_pos] = hidden_states[v_tok]
extern "C" __global__ void index_put_rows(bf16 *expert_inputs, const bf16 *hidden, const long long *v_exp, const long long *v_pos,
                                          const long long *v_tok, const int *num_valid, int capacity) {
  const long long n = (long long)num_valid[0] * (kHidden / 8);
  for (long long i = gstart(); i < n; i += gstep()) {
    const long long v = i / (kHidden / 8), c = i % (kHidden / 8);
    reinterpret_cast<uint4 *>(expert_inputs)[(v_exp[v] * capacity + v_pos[v]) * (kHidden / 8) + c] =
        reinterpret_cast<const uint4 *>(hidden)[v_tok[v] * (kHidden / 8) + c];
  }
}
// valid_out = expert_outputs[v_exp, v_pos]
extern "C" __global__ void gather_valid(bf16 *out, const bf16 *expert_outputs, const long long *v_exp, const long long *v_pos,
                                        const int *num_valid, int capacity) {
  const long long n = (long long)num_valid[0] * (kHidden / 8);
  for (long long i = gstart(); i < n; i += gstep()) {
    const long long v = i / (kHidden / 8), c = i % (kHidden / 8);
    reinterpret_cast<uint4 *>(out)[i] = reinterpret_cast<const uint4 *>(expert_outputs)[(v_exp[v] * capacity + v_pos[v]) * (kHidden / 8) + c];
  }
}
// weighted_out = v_wt.unsqueeze(1) * valid_out (bf16)
extern "C" __global__ void scale_rows(bf16 *out, const bf16 *x, const bf16 *w, const int *num_valid) {
  const long long n = (long long)num_valid[0] * kHidden;
  for (long long i = gstart(); i < n; i += gstep()) out[i] = mkb_ops::store<bf16>(f32(w[i / kHidden]) * f32(x[i]));
}
// result.index_add_(0, v_tok, weighted_out) into the bf16 zeros: eager's atomic adds come in an
// unspecified order; here each token adds its valid pairs in slot order, one bf16 rounding per add
extern "C" __global__ void index_add_bf16(bf16 *result, const bf16 *weighted, const int *slot, long long tokens) {
  const long long n = tokens * kHidden;
  for (long long i = gstart(); i < n; i += gstep()) {
    const long long t = i / kHidden, h = i % kHidden;
    float acc = f32(result[i]);
    for (int k = 0; k < kTopK; ++k) {
      const int v = slot[t * kTopK + k];
      if (v >= 0) acc = mkb_ops::round_to<bf16>(acc + f32(weighted[(long long)v * kHidden + h]));
    }
    result[i] = mkb_ops::store<bf16>(acc);
  }
}

/* mkb:plan
scratch flat_tok int64[num_tokens * num_experts_per_tok]
scratch sorted_experts int64[num_tokens * num_experts_per_tok]
scratch sorted_indices int64[num_tokens * num_experts_per_tok]
scratch sorted_wt bf16[num_tokens * num_experts_per_tok]
scratch sorted_tok int64[num_tokens * num_experts_per_tok]
scratch counts int64[num_experts]
scratch starts int64[num_experts]
scratch pos int64[num_tokens * num_experts_per_tok]
scratch valid uint8[num_tokens * num_experts_per_tok]
scratch v_exp int64[num_tokens * num_experts_per_tok]
scratch v_pos int64[num_tokens * num_experts_per_tok]
scratch v_tok int64[num_tokens * num_experts_per_tok]
scratch v_wt bf16[num_tokens * num_experts_per_tok]
scratch slot int32[num_tokens * num_experts_per_tok]
scratch num_valid int32[1]
scratch expert_inputs bf16[num_experts * capacity * hidden_size]
scratch gate_out bf16[num_experts * capacity * moe_intermediate_size]
scratch up_out bf16[num_experts * capacity * moe_intermediate_size]
scratch silu_out bf16[num_experts * capacity * moe_intermediate_size]
scratch activated bf16[num_experts * capacity * moe_intermediate_size]
scratch expert_outputs bf16[num_experts * capacity * hidden_size]
scratch valid_out bf16[num_tokens * num_experts_per_tok * hidden_size]
scratch weighted bf16[num_tokens * num_experts_per_tok * hidden_size]
launch token_ids grid(ceil_div(num_tokens * num_experts_per_tok, 256)) block(256) args(flat_tok, i64(num_tokens * num_experts_per_tok))
launch bincount grid(num_experts) block(1024) args(counts, selected_experts, i64(num_tokens * num_experts_per_tok))
launch starts_cumsum grid(1) block(32) args(starts, counts)
launch stable_sort grid(num_experts) block(1024) args(sorted_experts, sorted_indices, selected_experts, starts, i32(num_tokens * num_experts_per_tok))
launch gather_bf16 grid(ceil_div(num_tokens * num_experts_per_tok, 256)) block(256)
  args(sorted_wt, routing_weights, sorted_indices, i64(num_tokens * num_experts_per_tok))
launch gather_i64 grid(ceil_div(num_tokens * num_experts_per_tok, 256)) block(256)
  args(sorted_tok, flat_tok, sorted_indices, i64(num_tokens * num_experts_per_tok))
launch within_pos grid(ceil_div(num_tokens * num_experts_per_tok, 256)) block(256)
  args(pos, sorted_experts, starts, i64(num_tokens * num_experts_per_tok))
launch less_than grid(ceil_div(num_tokens * num_experts_per_tok, 256)) block(256)
  args(valid, pos, i64(capacity), i64(num_tokens * num_experts_per_tok))
launch compact_valid grid(ceil_div(num_tokens * num_experts_per_tok, 256)) block(256)
  args(v_exp, v_pos, v_tok, v_wt, slot, num_valid, valid, sorted_experts, pos, sorted_tok, sorted_wt, sorted_indices, counts,
       i64(capacity), i64(num_tokens * num_experts_per_tok))
launch fill_bf16 grid(ceil_div(num_experts * capacity * hidden_size, 1024)) block(256)
  args(expert_inputs, f32(0.0), i64(num_experts * capacity * hidden_size))
launch index_put_rows grid(8192) block(256) args(expert_inputs, hidden_states, v_exp, v_pos, v_tok, num_valid, i32(capacity))
matmul c(gate_out) a(expert_inputs) b(expert_gate_weights) m(capacity) n(moe_intermediate_size) k(hidden_size) batch(num_experts)
matmul c(up_out) a(expert_inputs) b(expert_up_weights) m(capacity) n(moe_intermediate_size) k(hidden_size) batch(num_experts)
launch silu_bf16 grid(ceil_div(num_experts * capacity * moe_intermediate_size, 1024)) block(256)
  args(silu_out, gate_out, i64(num_experts * capacity * moe_intermediate_size))
launch mul_bf16 grid(ceil_div(num_experts * capacity * moe_intermediate_size, 1024)) block(256)
  args(activated, silu_out, up_out, i64(num_experts * capacity * moe_intermediate_size))
matmul c(expert_outputs) a(activated) b(expert_down_weights) m(capacity) n(hidden_size) k(moe_intermediate_size) batch(num_experts)
launch gather_valid grid(8192) block(256) args(valid_out, expert_outputs, v_exp, v_pos, num_valid, i32(capacity))
launch scale_rows grid(8192) block(256) args(weighted, valid_out, v_wt, num_valid)
launch fill_bf16 grid(ceil_div(num_tokens * hidden_size, 1024)) block(256) args(output, f32(0.0), i64(num_tokens * hidden_size))
launch index_add_bf16 grid(8192) block(256) args(output, weighted, slot, i64(num_tokens))
*/
