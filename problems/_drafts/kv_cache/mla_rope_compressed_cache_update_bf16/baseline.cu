// The eager baseline: the device work of the original's reference(), one launch per eager operation,
// intermediates at eager's dtypes (eager.py is that computation). F.linear is a matmul step (cuBLAS, fp32
// accumulation, bf16 out) after one copy that eager does not make: q_c is a strided view of qkv_lora
// (row stride 2112) that eager's cuBLAS call reads with lda = 2112, while a matmul step needs a contiguous
// A. The boolean indexing x[valid] runs torch.nonzero (cub kernels, then a host sync to size the result)
// and a gather; here nonzero is one single-block launch and the count of valid tokens stays on the
// device: every later kernel is sized for num_tokens rows and reads the count.
#include "mkb_ops.cuh"

// q_c = qkv_lora[:, :q_lora_rank], made contiguous for the matmul step (not an eager operation)
MKB_MAP(copy_columns, bf16, (const bf16 *x, unsigned width, unsigned row), f32(x[(long long)((unsigned)i / width) * row + (unsigned)i % width]))
// cos_sin_cache.index_select(0, positions)
MKB_MAP(index_select_rows, bf16, (const bf16 *table, const long long *index, unsigned cols),
        f32(table[index[(unsigned)i / cols] * cols + (unsigned)i % cols]))
// x_part * cs_part over [tokens, heads, half]: x_part = x[t, h, x_off : x_off + half] of a view whose head
// rows are `dim` elements apart (heads of a token contiguous), cs_part = cs[:, c_off : c_off + half] of
// [tokens, rot] broadcast over the heads; bf16 result
MKB_MAP(mul_half, bf16, (const bf16 *x, const bf16 *cs, unsigned heads, unsigned half, unsigned dim, unsigned rot, unsigned x_off, unsigned c_off),
        f32(x[((unsigned)i / half) * dim + x_off + (unsigned)i % half]) *
            f32(cs[((unsigned)i / (heads * half)) * rot + c_off + (unsigned)i % half]))
MKB_MAP(sub_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) - f32(b[i]))
MKB_MAP(add_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) + f32(b[i]))
// torch.cat((a, b), dim=-1) of two [rows, half] tensors -> [rows, 2 * half]
MKB_MAP(cat_halves, bf16, (const bf16 *a, const bf16 *b, unsigned half),
        f32((unsigned)i % (2 * half) < half ? a[((unsigned)i / (2 * half)) * half + (unsigned)i % (2 * half)]
                                            : b[((unsigned)i / (2 * half)) * half + (unsigned)i % (2 * half) - half]))
// torch.cat((q_nope, q_pe), dim=-1): q_nope = q[..., :nope] of [rows, dim], q_pe [rows, dim - nope]
MKB_MAP(cat_nope_pe, bf16, (const bf16 *q, const bf16 *pe, unsigned nope, unsigned dim),
        f32((unsigned)i % dim < nope ? q[i] : pe[((unsigned)i / dim) * (dim - nope) + (unsigned)i % dim - nope]))

// ---- the cache write -------------------------------------------------------------------------------
// valid = slot_mapping >= 0
extern "C" __global__ void ge_zero(bool *out, const long long *x, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] >= 0;
}

// torch.nonzero(valid): the positions of the true elements in order, and their count. One block.
extern "C" __global__ void nonzero_1d(long long *positions, long long *count, const bool *mask, int n) {
  __shared__ int warp_sums[32];
  __shared__ int base;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if (threadIdx.x == 0) base = 0;
  __syncthreads();
  for (int start = 0; start < n; start += blockDim.x) {
    const int i = start + threadIdx.x;
    const int flag = i < n && mask[i] ? 1 : 0;
    int inclusive = flag;
    for (int offset = 1; offset < 32; offset *= 2) {
      const int up = __shfl_up_sync(0xffffffffu, inclusive, offset);
      if (lane >= offset) inclusive += up;
    }
    if (lane == 31) warp_sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      int total = lane < warps ? warp_sums[lane] : 0;
      for (int offset = 1; offset < 32; offset *= 2) {
        const int up = __shfl_up_sync(0xffffffffu, total, offset);
        if (lane >= offset) total += up;
      }
      if (lane < warps) warp_sums[lane] = total;  // inclusive over warps
    }
    __syncthreads();
    if (flag) positions[base + (warp > 0 ? warp_sums[warp - 1] : 0) + inclusive - 1] = i;
    __syncthreads();
    if (threadIdx.x == 0) base += warp_sums[warps - 1];
    __syncthreads();
  }
  if (threadIdx.x == 0) *count = base;
}

// x[valid]: row j < count of the result is row positions[j] of x, whose rows are `width` elements at
// x[row * stride + col0 ...]
#define GATHER_ROWS(name, T)                                                                                    \
  extern "C" __global__ void name(T *out, const T *x, const long long *positions, const long long *count,       \
                                  long long width, long long stride, long long col0, long long n) {            \
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                       \
    if (i >= n) return;                                                                                         \
    const long long j = i / width;                                                                              \
    if (j >= *count) return;                                                                                    \
    out[i] = x[positions[j] * stride + col0 + i % width];                                                       \
  }
GATHER_ROWS(gather_i64, long long)
GATHER_ROWS(gather_bf16, bf16)

// torch.div(slots, BLOCK_SIZE, rounding_mode="floor") and torch.remainder(slots, BLOCK_SIZE), int64
extern "C" __global__ void floor_div(long long *out, const long long *x, long long divisor, const long long *count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= *count) return;
  long long q = x[i] / divisor;
  if (x[i] % divisor != 0 && ((x[i] < 0) != (divisor < 0))) --q;
  out[i] = q;
}
extern "C" __global__ void remainder_map(long long *out, const long long *x, long long divisor, const long long *count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= *count) return;
  long long r = x[i] % divisor;
  if (r != 0 && ((r < 0) != (divisor < 0))) r += divisor;
  out[i] = r;
}

// kv_cache[blocks, offsets, 0, col_off : col_off + width] = rows (index_put_); cache rows are cache_row long.
extern "C" __global__ void put_rows_bf16(bf16 *cache, const bf16 *rows, const long long *blocks, const long long *offsets,
                                         const long long *count, long long block_size, long long width, long long cache_row,
                                         long long col_off, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long j = i / width;
  if (j >= *count) return;
  cache[(blocks[j] * block_size + offsets[j]) * cache_row + col_off + i % width] = rows[i];
}

/* mkb:plan
scratch q_c bf16[num_tokens * q_lora_rank]
scratch q bf16[num_tokens * num_heads * qk_head_dim]
scratch cs bf16[num_tokens * rope_dim]
scratch qa bf16[num_tokens * num_heads * rope_dim / 2]
scratch qb bf16[num_tokens * num_heads * rope_dim / 2]
scratch qc bf16[num_tokens * num_heads * rope_dim / 2]
scratch qd bf16[num_tokens * num_heads * rope_dim / 2]
scratch qe bf16[num_tokens * num_heads * rope_dim / 2]
scratch qf bf16[num_tokens * num_heads * rope_dim / 2]
scratch q_pe bf16[num_tokens * num_heads * rope_dim]
scratch ka bf16[num_tokens * rope_dim / 2]
scratch kb bf16[num_tokens * rope_dim / 2]
scratch kc bf16[num_tokens * rope_dim / 2]
scratch kd bf16[num_tokens * rope_dim / 2]
scratch ke bf16[num_tokens * rope_dim / 2]
scratch kf bf16[num_tokens * rope_dim / 2]
scratch k_pe bf16[num_tokens * rope_dim]
scratch valid bool[num_tokens]
scratch nz int64[num_tokens]
scratch nz_count int64[1]
scratch slots int64[num_tokens]
scratch blocks int64[num_tokens]
scratch offsets int64[num_tokens]
scratch kv_rows bf16[num_tokens * kv_lora_rank]
scratch pe_rows bf16[num_tokens * rope_dim]
launch copy_columns grid(ceil_div(num_tokens * q_lora_rank, 1024)) block(256) args(q_c, qkv_lora, u32(q_lora_rank), u32(q_lora_rank + kv_lora_rank + rope_dim), i64(num_tokens * q_lora_rank))
matmul c(q) a(q_c) b(q_b_weight) m(num_tokens) n(num_heads * qk_head_dim) k(q_lora_rank) transpose_b
launch index_select_rows grid(ceil_div(num_tokens * rope_dim, 1024)) block(256) args(cs, cos_sin_cache, positions, u32(rope_dim), i64(num_tokens * rope_dim))
launch mul_half grid(ceil_div(num_tokens * num_heads * rope_dim / 2, 1024)) block(256) args(qa, q, cs, u32(num_heads), u32(rope_dim / 2), u32(qk_head_dim), u32(rope_dim), u32(qk_nope_dim), u32(0), i64(num_tokens * num_heads * rope_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_heads * rope_dim / 2, 1024)) block(256) args(qb, q, cs, u32(num_heads), u32(rope_dim / 2), u32(qk_head_dim), u32(rope_dim), u32(qk_nope_dim + rope_dim / 2), u32(rope_dim / 2), i64(num_tokens * num_heads * rope_dim / 2))
launch sub_bf16 grid(ceil_div(num_tokens * num_heads * rope_dim / 2, 1024)) block(256) args(qc, qa, qb, i64(num_tokens * num_heads * rope_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_heads * rope_dim / 2, 1024)) block(256) args(qd, q, cs, u32(num_heads), u32(rope_dim / 2), u32(qk_head_dim), u32(rope_dim), u32(qk_nope_dim + rope_dim / 2), u32(0), i64(num_tokens * num_heads * rope_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_heads * rope_dim / 2, 1024)) block(256) args(qe, q, cs, u32(num_heads), u32(rope_dim / 2), u32(qk_head_dim), u32(rope_dim), u32(qk_nope_dim), u32(rope_dim / 2), i64(num_tokens * num_heads * rope_dim / 2))
launch add_bf16 grid(ceil_div(num_tokens * num_heads * rope_dim / 2, 1024)) block(256) args(qf, qd, qe, i64(num_tokens * num_heads * rope_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * num_heads * rope_dim, 1024)) block(256) args(q_pe, qc, qf, u32(rope_dim / 2), i64(num_tokens * num_heads * rope_dim))
launch mul_half grid(ceil_div(num_tokens * rope_dim / 2, 1024)) block(256) args(ka, qkv_lora, cs, u32(1), u32(rope_dim / 2), u32(q_lora_rank + kv_lora_rank + rope_dim), u32(rope_dim), u32(q_lora_rank + kv_lora_rank), u32(0), i64(num_tokens * rope_dim / 2))
launch mul_half grid(ceil_div(num_tokens * rope_dim / 2, 1024)) block(256) args(kb, qkv_lora, cs, u32(1), u32(rope_dim / 2), u32(q_lora_rank + kv_lora_rank + rope_dim), u32(rope_dim), u32(q_lora_rank + kv_lora_rank + rope_dim / 2), u32(rope_dim / 2), i64(num_tokens * rope_dim / 2))
launch sub_bf16 grid(ceil_div(num_tokens * rope_dim / 2, 1024)) block(256) args(kc, ka, kb, i64(num_tokens * rope_dim / 2))
launch mul_half grid(ceil_div(num_tokens * rope_dim / 2, 1024)) block(256) args(kd, qkv_lora, cs, u32(1), u32(rope_dim / 2), u32(q_lora_rank + kv_lora_rank + rope_dim), u32(rope_dim), u32(q_lora_rank + kv_lora_rank + rope_dim / 2), u32(0), i64(num_tokens * rope_dim / 2))
launch mul_half grid(ceil_div(num_tokens * rope_dim / 2, 1024)) block(256) args(ke, qkv_lora, cs, u32(1), u32(rope_dim / 2), u32(q_lora_rank + kv_lora_rank + rope_dim), u32(rope_dim), u32(q_lora_rank + kv_lora_rank), u32(rope_dim / 2), i64(num_tokens * rope_dim / 2))
launch add_bf16 grid(ceil_div(num_tokens * rope_dim / 2, 1024)) block(256) args(kf, kd, ke, i64(num_tokens * rope_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * rope_dim, 1024)) block(256) args(k_pe, kc, kf, u32(rope_dim / 2), i64(num_tokens * rope_dim))
launch cat_nope_pe grid(ceil_div(num_tokens * num_heads * qk_head_dim, 1024)) block(256) args(q_out, q, q_pe, u32(qk_nope_dim), u32(qk_head_dim), i64(num_tokens * num_heads * qk_head_dim))
launch ge_zero grid(ceil_div(num_tokens, 256)) block(256) args(valid, slot_mapping, i64(num_tokens))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_i64 grid(ceil_div(num_tokens, 256)) block(256) args(slots, slot_mapping, nz, nz_count, i64(1), i64(1), i64(0), i64(num_tokens))
launch floor_div grid(ceil_div(num_tokens, 256)) block(256) args(blocks, slots, i64(block_size), nz_count)
launch remainder_map grid(ceil_div(num_tokens, 256)) block(256) args(offsets, slots, i64(block_size), nz_count)
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_bf16 grid(ceil_div(num_tokens * kv_lora_rank, 256)) block(256) args(kv_rows, qkv_lora, nz, nz_count, i64(kv_lora_rank), i64(q_lora_rank + kv_lora_rank + rope_dim), i64(q_lora_rank), i64(num_tokens * kv_lora_rank))
launch put_rows_bf16 grid(ceil_div(num_tokens * kv_lora_rank, 256)) block(256) args(kv_cache, kv_rows, blocks, offsets, nz_count, i64(block_size), i64(kv_lora_rank), i64(kv_lora_rank + rope_dim), i64(0), i64(num_tokens * kv_lora_rank))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_bf16 grid(ceil_div(num_tokens * rope_dim, 256)) block(256) args(pe_rows, k_pe, nz, nz_count, i64(rope_dim), i64(rope_dim), i64(0), i64(num_tokens * rope_dim))
launch put_rows_bf16 grid(ceil_div(num_tokens * rope_dim, 256)) block(256) args(kv_cache, pe_rows, blocks, offsets, nz_count, i64(block_size), i64(rope_dim), i64(kv_lora_rank + rope_dim), i64(kv_lora_rank), i64(num_tokens * rope_dim))
*/
