// The eager baseline: the device work of the original's reference(), one launch per eager operation,
// intermediates at eager's dtypes (eager.py is that computation). The boolean indexing x[valid] runs
// torch.nonzero (cub kernels, then a host sync to size the result) and a gather; here nonzero is one
// single-block launch and the count of valid tokens stays on the device: every later kernel is sized for
// num_tokens rows and reads the count.
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

// ---- _quantize(x) ----------------------------------------------------------------------------------
// wide = x.to(float32)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// wide.abs()
MKB_MAP(abs_map, float, (const float *x), fabsf(x[i]))
// .amax(dim=-1)
MKB_ROW_REDUCE(row_amax, float, float, mkb_ops::max_op, (const float *x), x[r * cols + c], acc)
// absmax / FP8_MAX: PyTorch on CUDA multiplies by the fp32 reciprocal of a Python-scalar divisor
MKB_MAP(div_scalar, float, (const float *x, float divisor), x[i] * (1.0f / divisor))
// .clamp(min=1e-6) (NaN propagates, as in PyTorch)
MKB_MAP(clamp_min_map, float, (const float *x, float low), x[i] != x[i] ? x[i] : fmaxf(x[i], low))
// 1.0 / scale: Tensor.__rtruediv__ is reciprocal() ...
MKB_MAP(reciprocal_map, float, (const float *x), 1.0f / x[i])
// ... then * 1.0
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
// wide * inv.unsqueeze(-1)
MKB_MAP(mul_rows, float, (const float *x, const float *inv, unsigned cols), x[i] * inv[(unsigned)i / cols])
// .clamp(FP8_MIN, FP8_MAX)
MKB_MAP(clamp_map, float, (const float *x, float low, float high), x[i] != x[i] ? x[i] : fminf(fmaxf(x[i], low), high))

// .to(torch.float8_e4m3fn): round to nearest even (inputs are within [-448, 448]); four per thread.
extern "C" __global__ void to_e4m3(unsigned char *__restrict__ out, const float *__restrict__ x, long long n) {
  for (long long base = (long long)blockIdx.x * blockDim.x * 4; base < n; base += (long long)gridDim.x * blockDim.x * 4) {
    unsigned char values[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      if (i < n) values[k] = (unsigned char)__nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = base + threadIdx.x + (long long)k * blockDim.x;
      if (i < n) out[i] = values[k];
    }
  }
}

// ---- The cache write ---------------------------------------------------------------------------------
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

// x[valid]: row j < count of the result is row positions[j] of x (rows of `width` elements, `stride` apart).
#define GATHER_ROWS(name, T)                                                                                    \
  extern "C" __global__ void name(T *out, const T *x, const long long *positions, const long long *count,       \
                                  long long width, long long stride, long long n) {                            \
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                       \
    if (i >= n) return;                                                                                         \
    const long long j = i / width;                                                                              \
    if (j >= *count) return;                                                                                    \
    out[i] = x[positions[j] * stride + i % width];                                                              \
  }
GATHER_ROWS(gather_i64, long long)
GATHER_ROWS(gather_u8, unsigned char)
GATHER_ROWS(gather_f32, float)

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

// cache[blocks, offsets] = rows: index_put_ of `width` elements per (block, offset).
#define PUT_ROWS(name, T)                                                                                       \
  extern "C" __global__ void name(T *cache, const T *rows, const long long *blocks, const long long *offsets,   \
                                  const long long *count, long long block_size, long long width, long long n) { \
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                       \
    if (i >= n) return;                                                                                         \
    const long long j = i / width;                                                                              \
    if (j >= *count) return;                                                                                    \
    cache[(blocks[j] * block_size + offsets[j]) * width + i % width] = rows[i];                                 \
  }
PUT_ROWS(put_u8, unsigned char)
PUT_ROWS(put_f32, float)

/* mkb:plan
scratch kw fp32[num_tokens * num_heads * head_dim]
scratch kabs fp32[num_tokens * num_heads * head_dim]
scratch kmax fp32[num_tokens * num_heads]
scratch kdiv fp32[num_tokens * num_heads]
scratch kscale fp32[num_tokens * num_heads]
scratch krec fp32[num_tokens * num_heads]
scratch kinv fp32[num_tokens * num_heads]
scratch kprod fp32[num_tokens * num_heads * head_dim]
scratch kclamp fp32[num_tokens * num_heads * head_dim]
scratch kq uint8[num_tokens * num_heads * head_dim]
scratch vw fp32[num_tokens * num_heads * head_dim]
scratch vabs fp32[num_tokens * num_heads * head_dim]
scratch vmax fp32[num_tokens * num_heads]
scratch vdiv fp32[num_tokens * num_heads]
scratch vscale fp32[num_tokens * num_heads]
scratch vrec fp32[num_tokens * num_heads]
scratch vinv fp32[num_tokens * num_heads]
scratch vprod fp32[num_tokens * num_heads * head_dim]
scratch vclamp fp32[num_tokens * num_heads * head_dim]
scratch vq uint8[num_tokens * num_heads * head_dim]
scratch valid bool[num_tokens]
scratch nz int64[num_tokens]
scratch nz_count int64[1]
scratch slots int64[num_tokens]
scratch blocks int64[num_tokens]
scratch offsets int64[num_tokens]
scratch kq_rows uint8[num_tokens * num_heads * head_dim]
scratch vq_rows uint8[num_tokens * num_heads * head_dim]
scratch sk_rows fp32[num_tokens * num_heads]
scratch sv_rows fp32[num_tokens * num_heads]
launch to_f32 grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(kw, key, i64(num_tokens * num_heads * head_dim))
launch abs_map grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(kabs, kw, i64(num_tokens * num_heads * head_dim))
launch row_amax grid(num_tokens * num_heads) block(128) args(kmax, kabs, i32(head_dim))
launch div_scalar grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(kdiv, kmax, f32(fp8_max), i64(num_tokens * num_heads))
launch clamp_min_map grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(kscale, kdiv, f32(min_scale), i64(num_tokens * num_heads))
launch reciprocal_map grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(krec, kscale, i64(num_tokens * num_heads))
launch mul_scalar grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(kinv, krec, f32(1.0), i64(num_tokens * num_heads))
launch mul_rows grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(kprod, kw, kinv, u32(head_dim), i64(num_tokens * num_heads * head_dim))
launch clamp_map grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(kclamp, kprod, f32(fp8_min), f32(fp8_max), i64(num_tokens * num_heads * head_dim))
launch to_e4m3 grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(kq, kclamp, i64(num_tokens * num_heads * head_dim))
launch to_f32 grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(vw, value, i64(num_tokens * num_heads * head_dim))
launch abs_map grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(vabs, vw, i64(num_tokens * num_heads * head_dim))
launch row_amax grid(num_tokens * num_heads) block(128) args(vmax, vabs, i32(head_dim))
launch div_scalar grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(vdiv, vmax, f32(fp8_max), i64(num_tokens * num_heads))
launch clamp_min_map grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(vscale, vdiv, f32(min_scale), i64(num_tokens * num_heads))
launch reciprocal_map grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(vrec, vscale, i64(num_tokens * num_heads))
launch mul_scalar grid(ceil_div(num_tokens * num_heads, 1024)) block(256) args(vinv, vrec, f32(1.0), i64(num_tokens * num_heads))
launch mul_rows grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(vprod, vw, vinv, u32(head_dim), i64(num_tokens * num_heads * head_dim))
launch clamp_map grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(vclamp, vprod, f32(fp8_min), f32(fp8_max), i64(num_tokens * num_heads * head_dim))
launch to_e4m3 grid(ceil_div(num_tokens * num_heads * head_dim, 1024)) block(256) args(vq, vclamp, i64(num_tokens * num_heads * head_dim))
launch ge_zero grid(ceil_div(num_tokens, 256)) block(256) args(valid, slot_mapping, i64(num_tokens))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_i64 grid(ceil_div(num_tokens, 256)) block(256) args(slots, slot_mapping, nz, nz_count, i64(1), i64(1), i64(num_tokens))
launch floor_div grid(ceil_div(num_tokens, 256)) block(256) args(blocks, slots, i64(block_size), nz_count)
launch remainder_map grid(ceil_div(num_tokens, 256)) block(256) args(offsets, slots, i64(block_size), nz_count)
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_u8 grid(ceil_div(num_tokens * num_heads * head_dim, 256)) block(256) args(kq_rows, kq, nz, nz_count, i64(num_heads * head_dim), i64(num_heads * head_dim), i64(num_tokens * num_heads * head_dim))
launch put_u8 grid(ceil_div(num_tokens * num_heads * head_dim, 256)) block(256) args(key_cache, kq_rows, blocks, offsets, nz_count, i64(block_size), i64(num_heads * head_dim), i64(num_tokens * num_heads * head_dim))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_u8 grid(ceil_div(num_tokens * num_heads * head_dim, 256)) block(256) args(vq_rows, vq, nz, nz_count, i64(num_heads * head_dim), i64(num_heads * head_dim), i64(num_tokens * num_heads * head_dim))
launch put_u8 grid(ceil_div(num_tokens * num_heads * head_dim, 256)) block(256) args(value_cache, vq_rows, blocks, offsets, nz_count, i64(block_size), i64(num_heads * head_dim), i64(num_tokens * num_heads * head_dim))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_f32 grid(ceil_div(num_tokens * num_heads, 256)) block(256) args(sk_rows, kscale, nz, nz_count, i64(num_heads), i64(num_heads), i64(num_tokens * num_heads))
launch put_f32 grid(ceil_div(num_tokens * num_heads, 256)) block(256) args(k_scale_cache, sk_rows, blocks, offsets, nz_count, i64(block_size), i64(num_heads), i64(num_tokens * num_heads))
launch nonzero_1d grid(1) block(1024) args(nz, nz_count, valid, i32(num_tokens))
launch gather_f32 grid(ceil_div(num_tokens * num_heads, 256)) block(256) args(sv_rows, vscale, nz, nz_count, i64(num_heads), i64(num_heads), i64(num_tokens * num_heads))
launch put_f32 grid(ceil_div(num_tokens * num_heads, 256)) block(256) args(v_scale_cache, sv_rows, blocks, offsets, nz_count, i64(block_size), i64(num_heads), i64(num_tokens * num_heads))
*/
