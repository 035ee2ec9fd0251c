// The eager baseline: one launch per eager operation of the reference (eager.py), at eager's dtypes
// (fp32 from the first widening on, bf16 at the end). Shapes: b = 16, c = 1 chunk, l = s = 128
// positions, h = 32 heads, g = 8 groups, n = p = 128. The two broadcast products are materialized as
// eager materializes them ([b, c, l, s, h, 128] fp32, 4.3 GB each, one scratch buffer reused as eager's
// caching allocator reuses the freed block) and reduced by a second launch.
#include "mkb_ops.cuh"

// The masks are bool tensors: stored as eager stores them (mkb_ops leaves integer types to the problem).
namespace mkb_ops {
template <> struct store_as<bool> {
  __device__ static bool from(bool v) { return v; }
};
} // namespace mkb_ops

constexpr long long kLen = 128, kHeads = 32, kGroups = 8, kState = 128, kDim = 128;

// spread = a_cumsum[..., None].expand(..., 128).to(fp32): element (bhc, l, s) reads a[bhc, l]
MKB_MAP(expand_to_f32, float, (const bf16 *a), f32(a[i / kLen]))
// torch.ones(128, 128, dtype=bool); torch.tril(ones, diagonal); ~mask
MKB_MAP(fill_true, bool, (int unused), true)
MKB_MAP(tril_bool, bool, (const bool *m, int diagonal), m[i] && (i % kLen) - (i / kLen) <= diagonal)
MKB_MAP(not_bool, bool, (const bool *m), !m[i])
// x.masked_fill(mask, v) out of place: a contiguous clone, then masked_fill_ in place (two kernels)
MKB_MAP(copy_f32, float, (const float *x), x[i])
// (value: 0, or -inf when neg_inf is set)
extern "C" __global__ void masked_fill_inplace(float *x, const bool *mask, int neg_inf, long long n) {
  const float value = neg_inf ? -__int_as_float(0x7f800000) : 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (mask[i % (kLen * kLen)]) x[i] = value;
}
// torch.cumsum(x, dim=-2) over [rows, 128, 128]: one thread per column, the scan in order
extern "C" __global__ void cumsum_dim_m2(float *out, const float *x, long long columns) {
  const long long column = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (column >= columns) return;
  const long long base = (column / kLen) * kLen * kLen + column % kLen;
  float acc = 0.0f;
  for (int l = 0; l < kLen; ++l) {
    acc += x[base + l * kLen];
    out[base + l * kLen] = acc;
  }
}
MKB_MAP(exp_f32, float, (const float *x), expf(x[i]))
// B.to(fp32), C.to(fp32), hidden_states.to(fp32)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// repeat_interleave(4, dim=-2): [bcl, g, n] -> [bcl, h, n], head h reads group h / 4
MKB_MAP(repeat_heads, float, (const float *x),
        x[((i / (kHeads * kState)) * kGroups + (i / kState) % kHeads / (kHeads / kGroups)) * kState + i % kState])
// (C[:, :, :, None] * B[:, :, None]): element (bc, l, s, h, n)
MKB_MAP(outer_cb, float, (const float *c4, const float *b4),
        c4[((i / (kLen * kLen * kHeads * kState) * kLen + i / (kLen * kHeads * kState) % kLen) * kHeads +
            i / kState % kHeads) * kState + i % kState] *
        b4[((i / (kLen * kLen * kHeads * kState) * kLen + i / (kHeads * kState) % kLen) * kHeads + i / kState % kHeads) *
               kState + i % kState])
// .sum(dim=-1) over rows of 128: a warp per row, four rows per warp in flight
extern "C" __global__ void sum_rows_128(float *out, const float *x, long long rows) {
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  float4 v[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const long long row = warp * 4 + r;
    v[r] = row < rows ? reinterpret_cast<const float4 *>(x + row * 128)[lane] : make_float4(0, 0, 0, 0);
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    float s = (v[r].x + v[r].y) + (v[r].z + v[r].w);
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
    const long long row = warp * 4 + r;
    if (lane == 0 && row < rows) out[row] = s;
  }
}
// scores * decay.permute(0, 2, 3, 4, 1): element (b, c, l, s, h) reads decay[b, h, c, l, s]
MKB_MAP(mul_decay, float, (const float *scores, const float *decay, long long chunks),
        scores[i] * decay[(((i / (chunks * kLen * kLen * kHeads) * kHeads + i % kHeads) * chunks +
                            i / (kLen * kLen * kHeads) % chunks) * kLen + i / (kLen * kHeads) % kLen) * kLen +
                          i / kHeads % kLen])
// (weights[..., None] * x[:, :, None]): element (bc, l, s, h, p)
MKB_MAP(outer_wx, float, (const float *weights, const float *x),
        weights[i / kDim] * x[((i / (kLen * kLen * kHeads * kDim) * kLen + i / (kHeads * kDim) % kLen) * kHeads +
                              i / kDim % kHeads) * kDim + i % kDim])
// .sum(dim=3): for each (bc, l), 4096 columns (h, p) summed over the 128 rows s; four columns a thread
extern "C" __global__ void sum_over_s(float *out, const float *x) {
  const long long bcl = blockIdx.y;
  const int column = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const float *base = x + bcl * kLen * kHeads * kDim + column;
  float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll 8
  for (int s = 0; s < kLen; ++s) {
    const float4 v = *reinterpret_cast<const float4 *>(base + (long long)s * kHeads * kDim);
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
  }
  *reinterpret_cast<float4 *>(out + bcl * kHeads * kDim + column) = acc;
}
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

/* mkb:plan
scratch spread fp32[batch_size * num_heads * num_chunks * chunk_size * chunk_size]
scratch masked fp32[batch_size * num_heads * num_chunks * chunk_size * chunk_size]
scratch seg fp32[batch_size * num_heads * num_chunks * chunk_size * chunk_size]
scratch seg_masked fp32[batch_size * num_heads * num_chunks * chunk_size * chunk_size]
scratch decay fp32[batch_size * num_heads * num_chunks * chunk_size * chunk_size]
scratch ones1 bool[chunk_size * chunk_size]
scratch below bool[chunk_size * chunk_size]
scratch not_below bool[chunk_size * chunk_size]
scratch ones2 bool[chunk_size * chunk_size]
scratch on_or_below bool[chunk_size * chunk_size]
scratch above bool[chunk_size * chunk_size]
scratch b_wide fp32[batch_size * num_chunks * chunk_size * n_groups * state_size]
scratch c_wide fp32[batch_size * num_chunks * chunk_size * n_groups * state_size]
scratch b_heads fp32[batch_size * num_chunks * chunk_size * num_heads * state_size]
scratch c_heads fp32[batch_size * num_chunks * chunk_size * num_heads * state_size]
scratch product fp32[batch_size * num_chunks * chunk_size * chunk_size * num_heads * state_size]
scratch scores fp32[batch_size * num_chunks * chunk_size * chunk_size * num_heads]
scratch weights fp32[batch_size * num_chunks * chunk_size * chunk_size * num_heads]
scratch x_wide fp32[batch_size * num_chunks * chunk_size * num_heads * head_dim]
scratch y_wide fp32[batch_size * num_chunks * chunk_size * num_heads * head_dim]
launch expand_to_f32 grid(ceil_div(batch_size * num_heads * num_chunks * chunk_size * chunk_size, 1024)) block(256) args(spread, a_cumsum, i64(batch_size * num_heads * num_chunks * chunk_size * chunk_size))
launch fill_true grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(ones1, i32(0), i64(chunk_size * chunk_size))
launch tril_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(below, ones1, i32(-1), i64(chunk_size * chunk_size))
launch not_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(not_below, below, i64(chunk_size * chunk_size))
launch copy_f32 grid(ceil_div(batch_size * num_heads * num_chunks * chunk_size * chunk_size, 1024)) block(256) args(masked, spread, i64(batch_size * num_heads * num_chunks * chunk_size * chunk_size))
launch masked_fill_inplace grid(ceil_div(batch_size * num_heads * num_chunks * chunk_size * chunk_size, 256)) block(256) args(masked, not_below, i32(0), i64(batch_size * num_heads * num_chunks * chunk_size * chunk_size))
launch cumsum_dim_m2 grid(ceil_div(batch_size * num_heads * num_chunks * chunk_size, 128)) block(128) args(seg, masked, i64(batch_size * num_heads * num_chunks * chunk_size))
launch fill_true grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(ones2, i32(0), i64(chunk_size * chunk_size))
launch tril_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(on_or_below, ones2, i32(0), i64(chunk_size * chunk_size))
launch not_bool grid(ceil_div(chunk_size * chunk_size, 1024)) block(256) args(above, on_or_below, i64(chunk_size * chunk_size))
launch copy_f32 grid(ceil_div(batch_size * num_heads * num_chunks * chunk_size * chunk_size, 1024)) block(256) args(seg_masked, seg, i64(batch_size * num_heads * num_chunks * chunk_size * chunk_size))
launch masked_fill_inplace grid(ceil_div(batch_size * num_heads * num_chunks * chunk_size * chunk_size, 256)) block(256) args(seg_masked, above, i32(1), i64(batch_size * num_heads * num_chunks * chunk_size * chunk_size))
launch exp_f32 grid(ceil_div(batch_size * num_heads * num_chunks * chunk_size * chunk_size, 1024)) block(256) args(decay, seg_masked, i64(batch_size * num_heads * num_chunks * chunk_size * chunk_size))
launch to_f32 grid(ceil_div(batch_size * num_chunks * chunk_size * n_groups * state_size, 1024)) block(256) args(b_wide, B, i64(batch_size * num_chunks * chunk_size * n_groups * state_size))
launch to_f32 grid(ceil_div(batch_size * num_chunks * chunk_size * n_groups * state_size, 1024)) block(256) args(c_wide, C, i64(batch_size * num_chunks * chunk_size * n_groups * state_size))
launch repeat_heads grid(ceil_div(batch_size * num_chunks * chunk_size * num_heads * state_size, 1024)) block(256) args(b_heads, b_wide, i64(batch_size * num_chunks * chunk_size * num_heads * state_size))
launch repeat_heads grid(ceil_div(batch_size * num_chunks * chunk_size * num_heads * state_size, 1024)) block(256) args(c_heads, c_wide, i64(batch_size * num_chunks * chunk_size * num_heads * state_size))
launch outer_cb grid(ceil_div(batch_size * num_chunks * chunk_size * chunk_size * num_heads * state_size, 1024)) block(256) args(product, c_heads, b_heads, i64(batch_size * num_chunks * chunk_size * chunk_size * num_heads * state_size))
launch sum_rows_128 grid(ceil_div(batch_size * num_chunks * chunk_size * chunk_size * num_heads, 32)) block(256) args(scores, product, i64(batch_size * num_chunks * chunk_size * chunk_size * num_heads))
launch mul_decay grid(ceil_div(batch_size * num_chunks * chunk_size * chunk_size * num_heads, 1024)) block(256) args(weights, scores, decay, i64(num_chunks), i64(batch_size * num_chunks * chunk_size * chunk_size * num_heads))
launch to_f32 grid(ceil_div(batch_size * num_chunks * chunk_size * num_heads * head_dim, 1024)) block(256) args(x_wide, hidden_states, i64(batch_size * num_chunks * chunk_size * num_heads * head_dim))
launch outer_wx grid(ceil_div(batch_size * num_chunks * chunk_size * chunk_size * num_heads * head_dim, 1024)) block(256) args(product, weights, x_wide, i64(batch_size * num_chunks * chunk_size * chunk_size * num_heads * head_dim))
launch sum_over_s grid(num_heads * head_dim / 256, batch_size * num_chunks * chunk_size) block(64) args(y_wide, product)
launch to_bf16 grid(ceil_div(batch_size * num_chunks * chunk_size * num_heads * head_dim, 1024)) block(256) args(y_diag, y_wide, i64(batch_size * num_chunks * chunk_size * num_heads * head_dim))
*/
