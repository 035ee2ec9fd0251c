// The eager baseline: the device work of the original's reference() as eager PyTorch runs it, one
// launch per operation, intermediates in memory at eager's dtypes (fp32 scores, int64 indices).
// The whole cache is dequantized first, as the reference does. The per-sequence Python loop is batched:
// each op of the loop body is one launch with a grid over the sequences that reads seq_lens on the
// device (eager.py keeps the loop and its .item() syncs).
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

namespace mkb_ops {
template <> struct store_as<unsigned char> {
  __device__ static unsigned char from(unsigned char v) { return v; }
};
} // namespace mkb_ops

namespace {
constexpr int kPage = 64, kDim = 128, kHeads = 64;
constexpr int kPageBytes = kPage * (kDim + 4);  // 8448
constexpr int kValueBytes = kPage * kDim;       // 8192
constexpr int kScaleBytes = kPage * 4;          // 256

__device__ __forceinline__ float fp8_to_float(unsigned char byte) {
  __nv_fp8_e4m3 v;
  v.__x = byte;
  return float(v);
}
__device__ __forceinline__ int seq_pages(int seq_len) { return (seq_len + kPage - 1) / kPage; }
__device__ __forceinline__ int selected(int seq_len, int topk) { return seq_len < topk ? seq_len : topk; }
} // namespace

// ---- Once per call ---------------------------------------------------------------------------------
// q = q_index_fp8.to(float32)
MKB_MAP(q_to_fp32, float, (const unsigned char *q), fp8_to_float(q[i]))
// fp8_bytes = kv_flat[:, :page_size * head_dim].contiguous()   (32-bit indexing, as eager's)
MKB_MAP(copy_value_bytes, unsigned char, (const unsigned char *kv),
        kv[(long long)((unsigned)i / kValueBytes) * kPageBytes + (unsigned)i % kValueBytes])
// fp8_float = fp8_bytes.view(float8_e4m3fn).to(float32)
MKB_MAP(values_to_fp32, float, (const unsigned char *v), fp8_to_float(v[i]))
// scale_bytes = kv_flat[:, page_size * head_dim:].contiguous()
MKB_MAP(copy_scale_bytes, unsigned char, (const unsigned char *kv),
        kv[(long long)((unsigned)i / kScaleBytes) * kPageBytes + kValueBytes + (unsigned)i % kScaleBytes])
// K_all = fp8_float * scale   (scale [pages, 64, 1] broadcast over the 128 values of a token)
MKB_MAP(mul_scale, float, (const float *v, const float *scale), v[i] * scale[(unsigned)i / kDim])
// topk_indices = torch.full((batch, topk), -1)
MKB_MAP(fill_value, int, (int value), value)

// ---- The loop body, batched over sequences b = blockIdx.y -----------------------------------------
// page_indices = block_table[b, :num_pages_for_seq].to(long)
extern "C" __global__ void pages_to_long(long long *page_indices, const int *block_table, const int *seq_lens,
                                         int max_num_pages) {
  const int b = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < seq_pages(seq_lens[b])) page_indices[b * max_num_pages + j] = (long long)block_table[b * max_num_pages + j];
}

// K_paged = K_all[page_indices]: one block per page of the sequence, 8192 floats.
extern "C" __global__ void gather_pages(float *k_paged, const float *k_all, const long long *page_indices,
                                        const int *seq_lens, int max_num_pages) {
  const int b = blockIdx.y, j = blockIdx.x;
  if (j >= seq_pages(seq_lens[b])) return;
  const float4 *src = reinterpret_cast<const float4 *>(k_all + page_indices[b * max_num_pages + j] * kValueBytes);
  float4 *dst = reinterpret_cast<float4 *>(k_paged + ((long long)b * max_num_pages + j) * kValueBytes);
  for (int e = threadIdx.x; e < kValueBytes / 4; e += blockDim.x) dst[e] = src[e];
}

// scores = q_b @ K.T is the matmul step: [64, 2752] per sequence, columns past seq_len ignored.
// relu = torch.relu(scores)
extern "C" __global__ void relu_scores(float *out, const float *scores, const int *seq_lens, int cols) {
  const int b = blockIdx.z, h = blockIdx.y, t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= seq_lens[b] || t >= cols) return;
  const long long e = ((long long)b * kHeads + h) * cols + t;
  const float s = scores[e];
  out[e] = s > 0.0f ? s : 0.0f;
}

// weighted = relu * weights[b][:, None]
extern "C" __global__ void weight_scores(float *out, const float *relu, const float *weights, const int *seq_lens,
                                         int cols) {
  const int b = blockIdx.z, h = blockIdx.y, t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= seq_lens[b] || t >= cols) return;
  const long long e = ((long long)b * kHeads + h) * cols + t;
  out[e] = relu[e] * weights[b * kHeads + h];
}

// final = weighted.sum(dim=0), fp32
extern "C" __global__ void sum_heads(float *final_scores, const float *weighted, const int *seq_lens, int cols) {
  const int b = blockIdx.y, t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= seq_lens[b] || t >= cols) return;
  float acc = 0.0f;
  for (int h = 0; h < kHeads; ++h) acc += weighted[((long long)b * kHeads + h) * cols + t];
  final_scores[(long long)b * cols + t] = acc;
}

// _, topk_idx = torch.topk(final, min(topk, seq_len)): indices by descending score (ties to the lower
// position). One block per sequence; an element's rank is how many elements beat it.
extern "C" __global__ void __launch_bounds__(1024)
topk_rank(float *topk_values, long long *topk_idx, const float *final_scores, const int *seq_lens, int cols,
          int topk) {
  __shared__ float s[43 * 64];
  const int b = blockIdx.x;
  const int n = seq_lens[b] < cols ? seq_lens[b] : cols;
  const int k = selected(n, topk);
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = final_scores[(long long)b * cols + i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = s[i];
    int rank = 0;
    for (int j = 0; j < n; ++j) rank += (s[j] > v || (s[j] == v && j < i)) ? 1 : 0;
    if (rank < k) {
      topk_values[(long long)b * topk + rank] = v;
      topk_idx[(long long)b * topk + rank] = i;
    }
  }
}

// topk_idx = topk_idx.sort().values (the indices are distinct: the new place is how many are smaller)
extern "C" __global__ void __launch_bounds__(1024)
sort_indices(long long *sorted, const long long *topk_idx, const int *seq_lens, int topk) {
  __shared__ long long v[2048];
  const int b = blockIdx.x;
  const int k = selected(seq_lens[b], topk < 2048 ? topk : 2048);
  for (int i = threadIdx.x; i < k; i += blockDim.x) v[i] = topk_idx[(long long)b * topk + i];
  __syncthreads();
  for (int i = threadIdx.x; i < k; i += blockDim.x) {
    int place = 0;
    for (int j = 0; j < k; ++j) place += v[j] < v[i] ? 1 : 0;
    sorted[(long long)b * topk + place] = v[i];
  }
}

// The index arithmetic, each op over j < min(topk, seq_len) of each sequence, int64 as in eager.
#define PER_SELECTED(name, out_type, params, expression)                                             \
  extern "C" __global__ void name(out_type *out, MKB_OPS_EXPAND params, const int *seq_lens, int topk) { \
    const int b = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (j >= selected(seq_lens[b], topk)) return;                                                    \
    const long long e = (long long)b * topk + j;                                                     \
    out[e] = (expression);                                                                           \
  }
// page_idx_per_token = topk_idx // page_size
PER_SELECTED(floor_div_page, long long, (const long long *idx), idx[e] / kPage)
// offset_per_token = topk_idx % page_size
PER_SELECTED(mod_page, long long, (const long long *idx), idx[e] % kPage)
// global_page_idx = page_indices[page_idx_per_token]
PER_SELECTED(gather_page_ids, long long, (const long long *page_indices, const long long *page_idx, int max_num_pages),
             page_indices[(long long)b * max_num_pages + page_idx[e]])
// global_page_idx * page_size
PER_SELECTED(mul_page, long long, (const long long *g), g[e] * kPage)
// ... + offset_per_token
PER_SELECTED(add_offset, long long, (const long long *a, const long long *offset), a[e] + offset[e])
// topk_tokens.to(int32)
PER_SELECTED(to_int32, int, (const long long *t), (int)t[e])
// topk_indices[b, :actual_topk] = ...
PER_SELECTED(copy_row, int, (const int *t), t[e])

/* mkb:plan
scratch q fp32[batch_size * num_index_heads * index_head_dim]
scratch value_bytes uint8[num_pages * page_size * index_head_dim]
scratch values fp32[num_pages * page_size * index_head_dim]
scratch scale_bytes uint8[num_pages * page_size * 4]
scratch k_all fp32[num_pages * page_size * index_head_dim]
scratch page_indices int64[batch_size * max_num_pages]
scratch k_paged fp32[batch_size * max_num_pages * page_size * index_head_dim]
scratch scores fp32[batch_size * num_index_heads * max_num_pages * page_size]
scratch relu fp32[batch_size * num_index_heads * max_num_pages * page_size]
scratch weighted fp32[batch_size * num_index_heads * max_num_pages * page_size]
scratch final fp32[batch_size * max_num_pages * page_size]
scratch topk_values fp32[batch_size * topk]
scratch topk_idx int64[batch_size * topk]
scratch sorted int64[batch_size * topk]
scratch page_idx int64[batch_size * topk]
scratch offset int64[batch_size * topk]
scratch global_page int64[batch_size * topk]
scratch page_base int64[batch_size * topk]
scratch tokens int64[batch_size * topk]
scratch tokens32 int32[batch_size * topk]
launch q_to_fp32 grid(ceil_div(batch_size * num_index_heads * index_head_dim, 1024)) block(256)
  args(q, q_index_fp8, i64(batch_size * num_index_heads * index_head_dim))
launch copy_value_bytes grid(ceil_div(num_pages * page_size * index_head_dim, 1024)) block(256)
  args(value_bytes, k_index_cache_fp8, i64(num_pages * page_size * index_head_dim))
launch values_to_fp32 grid(ceil_div(num_pages * page_size * index_head_dim, 1024)) block(256)
  args(values, value_bytes, i64(num_pages * page_size * index_head_dim))
launch copy_scale_bytes grid(ceil_div(num_pages * page_size * 4, 1024)) block(256)
  args(scale_bytes, k_index_cache_fp8, i64(num_pages * page_size * 4))
launch mul_scale grid(ceil_div(num_pages * page_size * index_head_dim, 1024)) block(256)
  args(k_all, values, scale_bytes, i64(num_pages * page_size * index_head_dim))
launch fill_value grid(ceil_div(batch_size * topk, 1024)) block(256) args(topk_indices, i32(-1), i64(batch_size * topk))
launch pages_to_long grid(1, batch_size) block(64) args(page_indices, block_table, seq_lens, i32(max_num_pages))
launch gather_pages grid(max_num_pages, batch_size) block(256)
  args(k_paged, k_all, page_indices, seq_lens, i32(max_num_pages))
matmul c(scores) a(q) b(k_paged) m(num_index_heads) n(max_num_pages * page_size) k(index_head_dim) batch(batch_size) transpose_b
launch relu_scores grid(ceil_div(max_num_pages * page_size, 256), num_index_heads, batch_size) block(256)
  args(relu, scores, seq_lens, i32(max_num_pages * page_size))
launch weight_scores grid(ceil_div(max_num_pages * page_size, 256), num_index_heads, batch_size) block(256)
  args(weighted, relu, weights, seq_lens, i32(max_num_pages * page_size))
launch sum_heads grid(ceil_div(max_num_pages * page_size, 256), batch_size) block(256)
  args(final, weighted, seq_lens, i32(max_num_pages * page_size))
launch topk_rank grid(batch_size) block(1024) args(topk_values, topk_idx, final, seq_lens, i32(max_num_pages * page_size), i32(topk))
launch sort_indices grid(batch_size) block(1024) args(sorted, topk_idx, seq_lens, i32(topk))
launch floor_div_page grid(ceil_div(topk, 256), batch_size) block(256) args(page_idx, sorted, seq_lens, i32(topk))
launch mod_page grid(ceil_div(topk, 256), batch_size) block(256) args(offset, sorted, seq_lens, i32(topk))
launch gather_page_ids grid(ceil_div(topk, 256), batch_size) block(256)
  args(global_page, page_indices, page_idx, i32(max_num_pages), seq_lens, i32(topk))
launch mul_page grid(ceil_div(topk, 256), batch_size) block(256) args(page_base, global_page, seq_lens, i32(topk))
launch add_offset grid(ceil_div(topk, 256), batch_size) block(256) args(tokens, page_base, offset, seq_lens, i32(topk))
launch to_int32 grid(ceil_div(topk, 256), batch_size) block(256) args(tokens32, tokens, seq_lens, i32(topk))
launch copy_row grid(ceil_div(topk, 256), batch_size) block(256) args(topk_indices, tokens32, seq_lens, i32(topk))
*/
