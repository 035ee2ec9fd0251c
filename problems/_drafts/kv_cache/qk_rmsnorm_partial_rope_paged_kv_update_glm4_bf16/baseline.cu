// The eager baseline: the device work of the original's reference(), one launch per eager operation,
// intermediates at eager's dtypes (eager.py is that computation). The boolean indexing x[valid] runs
// torch.nonzero (cub kernels, then a host sync to size the result) and a gather; here nonzero is one
// single-block launch and the count of valid tokens stays on the device: every later kernel is sized for
// num_tokens rows and reads the count.
#include "mkb_ops.cuh"

// ---- _rms_norm_per_head ----------------------------------------------------------------------------
// x.to(float32) of the strided head view qkv[:, col0 : col0 + width] seen as [tokens, heads, head_dim]
MKB_MAP(view_to_f32, float, (const bf16 *qkv, unsigned width, unsigned row, unsigned col0),
        f32(qkv[(long long)((unsigned)i / width) * row + col0 + (unsigned)i % width]))
// wide.pow(2)
MKB_MAP(square, float, (const float *x), x[i] * x[i])
// .mean(dim=-1, keepdim=True)
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)
// variance + eps
MKB_MAP(add_scalar, float, (const float *x, float s), x[i] + s)
// torch.rsqrt
MKB_MAP(rsqrt_map, float, (const float *x), rsqrtf(x[i]))
// wide * rsqrt(...) (broadcast along the head)
MKB_MAP(mul_rows, float, (const float *x, const float *s, unsigned cols), x[i] * s[(unsigned)i / cols])
// normalized.to(bfloat16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
// (...) * weight: bf16 * bf16 -> bf16
MKB_MAP(mul_weight, bf16, (const bf16 *x, const bf16 *w, unsigned cols), f32(x[i]) * f32(w[(unsigned)i % cols]))

// ---- the rotation ----------------------------------------------------------------------------------
// cos_sin_cache.index_select(0, positions)
MKB_MAP(index_select_rows, bf16, (const bf16 *table, const long long *index, unsigned cols),
        f32(table[index[(unsigned)i / cols] * cols + (unsigned)i % cols]))
// x_part * cs_part over [tokens, heads, half]: x_part = x[..., x_off : x_off + half] of [tokens, heads, dim],
// cs_part = cs[:, c_off : c_off + half] of [tokens, rot] broadcast over the heads; bf16 result
MKB_MAP(mul_half, bf16, (const bf16 *x, const bf16 *cs, unsigned heads, unsigned half, unsigned dim, unsigned rot, unsigned x_off, unsigned c_off),
        f32(x[((unsigned)i / half) * dim + x_off + (unsigned)i % half]) *
            f32(cs[((unsigned)i / (heads * half)) * rot + c_off + (unsigned)i % half]))
MKB_MAP(sub_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) - f32(b[i]))
MKB_MAP(add_bf16, bf16, (const bf16 *a, const bf16 *b), f32(a[i]) + f32(b[i]))
// torch.cat((a, b), dim=-1) of two [rows, half] tensors -> [rows, 2 * half]
MKB_MAP(cat_halves, bf16, (const bf16 *a, const bf16 *b, unsigned half),
        f32((unsigned)i % (2 * half) < half ? a[((unsigned)i / (2 * half)) * half + (unsigned)i % (2 * half)]
                                            : b[((unsigned)i / (2 * half)) * half + (unsigned)i % (2 * half) - half]))
// torch.cat((rotated [rows, rot], x[..., rot:] of [rows, dim]), dim=-1) -> [rows, dim]
MKB_MAP(cat_pass, bf16, (const bf16 *rotated, const bf16 *x, unsigned rot, unsigned dim),
        f32((unsigned)i % dim < rot ? rotated[((unsigned)i / dim) * rot + (unsigned)i % dim] : x[i]))

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

// kv_cache[plane, blocks, offsets] = rows: index_put_ of `width` elements per (block, offset); `base` is
// the plane's first element.
extern "C" __global__ void put_rows_bf16(bf16 *cache, const bf16 *rows, const long long *blocks, const long long *offsets,
                                         const long long *count, long long base, long long block_size, long long width,
                                         long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long j = i / width;
  if (j >= *count) return;
  cache[base + (blocks[j] * block_size + offsets[j]) * width + i % width] = rows[i];
}

/* mkb:plan
scratch qw fp32[num_tokens * num_q_heads * head_dim]
scratch qsq fp32[num_tokens * num_q_heads * head_dim]
scratch qvar fp32[num_tokens * num_q_heads]
scratch qvar_eps fp32[num_tokens * num_q_heads]
scratch qrs fp32[num_tokens * num_q_heads]
scratch qnorm fp32[num_tokens * num_q_heads * head_dim]
scratch qnb bf16[num_tokens * num_q_heads * head_dim]
scratch qn bf16[num_tokens * num_q_heads * head_dim]
scratch kw fp32[num_tokens * num_kv_heads * head_dim]
scratch ksq fp32[num_tokens * num_kv_heads * head_dim]
scratch kvar fp32[num_tokens * num_kv_heads]
scratch kvar_eps fp32[num_tokens * num_kv_heads]
scratch krs fp32[num_tokens * num_kv_heads]
scratch knorm fp32[num_tokens * num_kv_heads * head_dim]
scratch knb bf16[num_tokens * num_kv_heads * head_dim]
scratch kn bf16[num_tokens * num_kv_heads * head_dim]
scratch cs bf16[num_tokens * rotary_dim]
scratch qa bf16[num_tokens * num_q_heads * rotary_dim / 2]
scratch qb bf16[num_tokens * num_q_heads * rotary_dim / 2]
scratch qc bf16[num_tokens * num_q_heads * rotary_dim / 2]
scratch qd bf16[num_tokens * num_q_heads * rotary_dim / 2]
scratch qe bf16[num_tokens * num_q_heads * rotary_dim / 2]
scratch qf bf16[num_tokens * num_q_heads * rotary_dim / 2]
scratch qrot bf16[num_tokens * num_q_heads * rotary_dim]
scratch ka bf16[num_tokens * num_kv_heads * rotary_dim / 2]
scratch kb bf16[num_tokens * num_kv_heads * rotary_dim / 2]
scratch kc bf16[num_tokens * num_kv_heads * rotary_dim / 2]
scratch kd bf16[num_tokens * num_kv_heads * rotary_dim / 2]
scratch ke bf16[num_tokens * num_kv_heads * rotary_dim / 2]
scratch kf bf16[num_tokens * num_kv_heads * rotary_dim / 2]
scratch krot bf16[num_tokens * num_kv_heads * rotary_dim]
scratch kout bf16[num_tokens * num_kv_heads * head_dim]
scratch valid bool[num_tokens]
scratch nz int64[num_tokens]
scratch nz_count int64[1]
scratch slots int64[num_tokens]
scratch blocks int64[num_tokens]
scratch offsets int64[num_tokens]
scratch k_rows bf16[num_tokens * num_kv_heads * head_dim]
scratch v_rows bf16[num_tokens * num_kv_heads * head_dim]
launch view_to_f32 grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(qw, qkv, u32(num_q_heads * head_dim), u32((num_q_heads + 2 * num_kv_heads) * head_dim), u32(0), i64(num_tokens * num_q_heads * head_dim))
launch square grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(qsq, qw, i64(num_tokens * num_q_heads * head_dim))
launch row_mean grid(num_tokens * num_q_heads) block(128) args(qvar, qsq, i32(head_dim))
launch add_scalar grid(ceil_div(num_tokens * num_q_heads, 1024)) block(256) args(qvar_eps, qvar, f32(eps), i64(num_tokens * num_q_heads))
launch rsqrt_map grid(ceil_div(num_tokens * num_q_heads, 1024)) block(256) args(qrs, qvar_eps, i64(num_tokens * num_q_heads))
launch mul_rows grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(qnorm, qw, qrs, u32(head_dim), i64(num_tokens * num_q_heads * head_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(qnb, qnorm, i64(num_tokens * num_q_heads * head_dim))
launch mul_weight grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(qn, qnb, q_norm_weight, u32(head_dim), i64(num_tokens * num_q_heads * head_dim))
launch view_to_f32 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(kw, qkv, u32(num_kv_heads * head_dim), u32((num_q_heads + 2 * num_kv_heads) * head_dim), u32(num_q_heads * head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch square grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(ksq, kw, i64(num_tokens * num_kv_heads * head_dim))
launch row_mean grid(num_tokens * num_kv_heads) block(128) args(kvar, ksq, i32(head_dim))
launch add_scalar grid(ceil_div(num_tokens * num_kv_heads, 1024)) block(256) args(kvar_eps, kvar, f32(eps), i64(num_tokens * num_kv_heads))
launch rsqrt_map grid(ceil_div(num_tokens * num_kv_heads, 1024)) block(256) args(krs, kvar_eps, i64(num_tokens * num_kv_heads))
launch mul_rows grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(knorm, kw, krs, u32(head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(knb, knorm, i64(num_tokens * num_kv_heads * head_dim))
launch mul_weight grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(kn, knb, k_norm_weight, u32(head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch index_select_rows grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(cs, cos_sin_cache, positions, u32(rotary_dim), i64(num_tokens * rotary_dim))
launch mul_half grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(qa, qn, cs, u32(num_q_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(0), u32(0), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(qb, qn, cs, u32(num_q_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(rotary_dim / 2), u32(rotary_dim / 2), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch sub_bf16 grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(qc, qa, qb, i64(num_tokens * num_q_heads * rotary_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(qd, qn, cs, u32(num_q_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(rotary_dim / 2), u32(0), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(qe, qn, cs, u32(num_q_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(0), u32(rotary_dim / 2), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch add_bf16 grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(qf, qd, qe, i64(num_tokens * num_q_heads * rotary_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * num_q_heads * rotary_dim, 1024)) block(256) args(qrot, qc, qf, u32(rotary_dim / 2), i64(num_tokens * num_q_heads * rotary_dim))
launch cat_pass grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(q, qrot, qn, u32(rotary_dim), u32(head_dim), i64(num_tokens * num_q_heads * head_dim))
launch mul_half grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(ka, kn, cs, u32(num_kv_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(0), u32(0), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(kb, kn, cs, u32(num_kv_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(rotary_dim / 2), u32(rotary_dim / 2), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch sub_bf16 grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(kc, ka, kb, i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(kd, kn, cs, u32(num_kv_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(rotary_dim / 2), u32(0), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch mul_half grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(ke, kn, cs, u32(num_kv_heads), u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim), u32(0), u32(rotary_dim / 2), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch add_bf16 grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(kf, kd, ke, i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * num_kv_heads * rotary_dim, 1024)) block(256) args(krot, kc, kf, u32(rotary_dim / 2), i64(num_tokens * num_kv_heads * rotary_dim))
launch cat_pass grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(kout, krot, kn, u32(rotary_dim), u32(head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch ge_zero grid(ceil_div(num_tokens, 256)) block(256) args(valid, slot_mapping, i64(num_tokens))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_i64 grid(ceil_div(num_tokens, 256)) block(256) args(slots, slot_mapping, nz, nz_count, i64(1), i64(1), i64(0), i64(num_tokens))
launch floor_div grid(ceil_div(num_tokens, 256)) block(256) args(blocks, slots, i64(block_size), nz_count)
launch remainder_map grid(ceil_div(num_tokens, 256)) block(256) args(offsets, slots, i64(block_size), nz_count)
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_bf16 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 256)) block(256) args(k_rows, kout, nz, nz_count, i64(num_kv_heads * head_dim), i64(num_kv_heads * head_dim), i64(0), i64(num_tokens * num_kv_heads * head_dim))
launch put_rows_bf16 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 256)) block(256) args(kv_cache, k_rows, blocks, offsets, nz_count, i64(0), i64(block_size), i64(num_kv_heads * head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_bf16 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 256)) block(256) args(v_rows, qkv, nz, nz_count, i64(num_kv_heads * head_dim), i64((num_q_heads + 2 * num_kv_heads) * head_dim), i64((num_q_heads + num_kv_heads) * head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch put_rows_bf16 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 256)) block(256) args(kv_cache, v_rows, blocks, offsets, nz_count, i64(num_blocks * block_size * num_kv_heads * head_dim), i64(block_size), i64(num_kv_heads * head_dim), i64(num_tokens * num_kv_heads * head_dim))
*/
