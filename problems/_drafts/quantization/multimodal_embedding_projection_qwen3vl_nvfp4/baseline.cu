// The eager baseline: one launch per operation of the reconstructed reference as eager PyTorch runs it
// (eager.py is that computation): the embedding lookup; the activations' NVFP4 quantization op by op
// (including the 16 masked assignments of the e2m1 cast, each a compare or two, an and, a masked fill);
// both operands dequantized op by op (the weight expanded over the batch, as the reference passes it:
// its int64 codes, lookups, stack and scales materialized 32 times); the batched fp32 product as a
// cuBLAS matmul step (no TF32); the bf16 cast, the bias, the clone of the text embeddings. Two kinds
// of host work become device work: the tensors built from Python values (the global encode scale, the
// e2m1 table) are written by one-thread launches, and the per-sequence loop (a nonzero, a host sync and
// an index_put per sequence) is one launch listing every sequence's positions and one writing every
// sequence's rows. Index decompositions are 32-bit (every tensor here has fewer than 2^31 elements).
#include <cuda_fp8.h>
#include "mkb_ops.cuh"

typedef __nv_fp8_e4m3 fp8;
__device__ __forceinline__ float f32(fp8 v) { return float(v); }
namespace mkb_ops {
// .to(torch.float8_e4m3fn): round to nearest even (the values are already clamped to +-448).
template <> struct store_as<fp8> {
  __device__ static fp8 from(float v) {
    fp8 r;
    r.__x = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    return r;
  }
};
} // namespace mkb_ops

__device__ __forceinline__ float max16(const float *a) {
  float m = a[0];
  for (int j = 1; j < 16; ++j) m = mkb_ops::max_op::apply(m, a[j]);
  return m;
}

// MKB_MAP for the integer and boolean tensors (the same loop: four elements per thread before any store),
// the value converted with a plain cast.
#define INT_MAP(name, out_type, params, expression)                                                   \
  extern "C" __global__ void name(out_type *__restrict__ out, MKB_OPS_EXPAND params, long long n) {   \
    for (long long base = (long long)blockIdx.x * blockDim.x * 4; base < n;                            \
         base += (long long)gridDim.x * blockDim.x * 4) {                                             \
      out_type values[4];                                                                             \
      _Pragma("unroll") for (int k = 0; k < 4; ++k) {                                                 \
        const long long i = base + threadIdx.x + (long long)k * blockDim.x;                           \
        if (i < n) values[k] = (out_type)(expression);                                                \
      }                                                                                               \
      _Pragma("unroll") for (int k = 0; k < 4; ++k) {                                                 \
        const long long i = base + threadIdx.x + (long long)k * blockDim.x;                           \
        if (i < n) out[i] = values[k];                                                                \
      }                                                                                               \
    }                                                                                                 \
  }

// F.embedding(input_ids, embed_weight)
MKB_MAP(embedding, bf16, (const long long *ids, const bf16 *table, unsigned hidden),
        table[ids[(unsigned)i / hidden] * (long long)hidden + (unsigned)i % hidden])
// .to(torch.float32)
MKB_MAP(to_fp32, float, (const bf16 *s), f32(s[i]))
// .abs()
MKB_MAP(abs_map, float, (const float *x), fabsf(x[i]))
// .amax(dim=-1) over 16 elements
MKB_MAP(amax16, float, (const float *a), max16(a + 16 * i))
// a / python float: a multiply by its fp32 reciprocal
MKB_MAP(mul_scalar, float, (const float *a, float s), a[i] * s)
// a * t with t a 0-dim tensor
MKB_MAP(mul_tensor0, float, (const float *a, const float *t), a[i] * t[0])
// torch.reciprocal (1.0 / t is reciprocal() then * 1.0)
MKB_MAP(reciprocal_map, float, (const float *a), 1.0f / a[i])
// torch.clamp
MKB_MAP(clamp_map, float, (const float *x, float lo, float hi), fminf(fmaxf(x[i], lo), hi))
// .to(torch.float8_e4m3fn)
MKB_MAP(to_fp8, fp8, (const float *x), x[i])
// .to(torch.float32) of e4m3 values; of an expanded [1, ...] tensor read per batch
MKB_MAP(fp8_to_fp32, float, (const fp8 *q), f32(q[i]))
MKB_MAP(fp8_to_fp32_expand, float, (const fp8 *q, unsigned per_batch), f32(q[(unsigned)i % per_batch]))
// blocks / decode_scale.unsqueeze(-1)
MKB_MAP(div16, float, (const float *x, const float *d), x[i] / d[(unsigned)i / 16u])
// torch.zeros_like(x, dtype=torch.uint8)
INT_MAP(zeros_u8, unsigned char, (int zero), zero)
// the comparisons of the e2m1 cast and their &
INT_MAP(cmp_ge, bool, (const float *x, float t), x[i] >= t)
INT_MAP(cmp_gt, bool, (const float *x, float t), x[i] > t)
INT_MAP(cmp_le, bool, (const float *x, float t), x[i] <= t)
INT_MAP(cmp_lt, bool, (const float *x, float t), x[i] < t)
INT_MAP(and_map, bool, (const bool *a, const bool *b), a[i] && b[i])
// codes[mask] = value (index_put_ with a boolean mask and a scalar: masked_fill_, in place)
extern "C" __global__ void masked_fill_u8(unsigned char *codes, const bool *mask, int value, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (mask[i]) codes[i] = (unsigned char)value;
}
// codes[..., 1::2] * 16, then codes[..., ::2] | that
INT_MAP(odd_times16, unsigned char, (const unsigned char *c), c[2 * i + 1] * 16)
INT_MAP(even_or, unsigned char, (const unsigned char *c, const unsigned char *t), c[2 * i] | t[i])
// fp4.view(torch.uint8).to(torch.int64); of the expanded weight, read per batch
INT_MAP(u8_to_i64, long long, (const unsigned char *p), (long long)p[i])
INT_MAP(u8_to_i64_expand, long long, (const unsigned char *p, unsigned per_batch), (long long)p[(unsigned)i % per_batch])
// torch.tensor(_E2M1_VALUES, dtype=compute_dtype, device): a host-to-device copy
extern "C" __global__ void e2m1_table(float *values) {
  const float v[16] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
  if (threadIdx.x < 16) values[threadIdx.x] = v[threadIdx.x];
}
// torch.tensor(2688 / global_amax) from the Python float of .max().item(): a host-to-device copy
extern "C" __global__ void global_encode(float *encode, const int *amax_bits) {
  const float amax = __int_as_float(*amax_bits);
  *encode = amax > 0.0f ? __fdiv_rn(2688.0f, amax) : 1.0f;
}
// tensor.abs().max(): one reduction (into the zeroed bits of a non-negative float)
extern "C" __global__ void max_reduce(int *amax_bits, const float *a, long long n) {
  float m = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    m = fmaxf(m, a[i]);
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  if (threadIdx.x == 0) atomicMax(amax_bits, __float_as_int(m));
}
// codes & 15, codes >> 4
INT_MAP(and15, long long, (const long long *c), c[i] & 15)
INT_MAP(shr4, long long, (const long long *c), c[i] >> 4)
// values[idx]. The table parameter must not be named `values`: MKB_MAP's body declares a local
// `out_type values[4]` (the four results before any store), which would shadow it and turn the lookup
// into reads of that uninitialised local array (out of bounds for codes 4..15): garbage and NaN.
MKB_MAP(lookup, float, (const long long *idx, const float *e2m1_values), e2m1_values[idx[i]])
// torch.stack((lo, hi), dim=-1)
MKB_MAP(stack2, float, (const float *lo, const float *hi), (i & 1) ? hi[i >> 1] : lo[i >> 1])
// unpacked * scales.unsqueeze(-1)
MKB_MAP(mul16, float, (const float *u, const float *s), u[i] * s[(unsigned)i / 16u])
// .to(dtype)
MKB_MAP(to_bf16, bf16, (const float *y), y[i])
// vision_embeds + vision_proj_bias.to(dtype): a bf16 sum
MKB_MAP(add_bias_bf16, bf16, (const bf16 *v, const bf16 *b, unsigned cols), f32(v[i]) + f32(b[(unsigned)i % cols]))
// text_embeds.clone()
MKB_MAP(copy_bf16, bf16, (const bf16 *a), a[i])
// the loop's vision_token_mask[b].nonzero(), every sequence: its positions in order (one block each)
extern "C" __global__ void row_positions(const bool *mask, int *pos, int *count, int seq) {
  if (threadIdx.x == 0) {
    int c = 0;
    for (int s = 0; s < seq; ++s)
      if (mask[(long long)blockIdx.x * seq + s]) pos[(long long)blockIdx.x * seq + c++] = s;
    count[blockIdx.x] = c;
  }
}
// the loop's output[b, positions[:n]] = vision_embeds[b, :n], every sequence; n = min(count, vision_tokens)
extern "C" __global__ void scatter_rows(bf16 *out, const bf16 *vision, const int *pos, const int *count, int seq,
                                        int vision_tokens, int hidden) {
  const int b = blockIdx.y, j = blockIdx.x;
  if (j >= min(count[b], vision_tokens)) return;
  const bf16 *src = vision + ((long long)b * vision_tokens + j) * hidden;
  bf16 *dst = out + ((long long)b * seq + pos[(long long)b * seq + j]) * hidden;
  for (int n = threadIdx.x; n < hidden; n += blockDim.x) dst[n] = src[n];
}

/* mkb:plan
scratch text bf16[batch_size * seq_len * hidden_size]
scratch vf32 fp32[batch_size * num_vision_tokens * vision_hidden_size]
scratch vabs fp32[batch_size * num_vision_tokens * vision_hidden_size]
scratch amax_bits int32[1] zeroed
scratch encode fp32[1]
scratch babs fp32[batch_size * num_vision_tokens * vision_hidden_size]
scratch bamax fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch bdiv fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch decr fp32[1]
scratch decode fp32[1]
scratch bprod fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch bclamp fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch s8 fp8_e4m3[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch s8f fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch dsc fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch scaled fp32[batch_size * num_vision_tokens * vision_hidden_size]
scratch clipped fp32[batch_size * num_vision_tokens * vision_hidden_size]
scratch codes uint8[batch_size * num_vision_tokens * vision_hidden_size]
scratch m1 bool[batch_size * num_vision_tokens * vision_hidden_size]
scratch m2 bool[batch_size * num_vision_tokens * vision_hidden_size]
scratch m3 bool[batch_size * num_vision_tokens * vision_hidden_size]
scratch odd16 uint8[batch_size * num_vision_tokens * vision_hidden_size / 2]
scratch packed uint8[batch_size * num_vision_tokens * vision_hidden_size / 2]
scratch values fp32[16]
scratch a64 int64[batch_size * num_vision_tokens * vision_hidden_size / 2]
scratch aidx int64[batch_size * num_vision_tokens * vision_hidden_size / 2]
scratch alo fp32[batch_size * num_vision_tokens * vision_hidden_size / 2]
scratch ahi fp32[batch_size * num_vision_tokens * vision_hidden_size / 2]
scratch aun fp32[batch_size * num_vision_tokens * vision_hidden_size]
scratch asf fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch asc fp32[batch_size * num_vision_tokens * vision_hidden_size / 16]
scratch dqa fp32[batch_size * num_vision_tokens * vision_hidden_size]
scratch w64 fp32[batch_size * hidden_size * vision_hidden_size]
scratch widx fp32[batch_size * hidden_size * vision_hidden_size]
scratch wlo fp32[batch_size * hidden_size * vision_hidden_size / 2]
scratch whi fp32[batch_size * hidden_size * vision_hidden_size / 2]
scratch wsf fp32[batch_size * hidden_size * vision_hidden_size / 16]
scratch wsc fp32[batch_size * hidden_size * vision_hidden_size / 16]
scratch vis32 fp32[batch_size * num_vision_tokens * hidden_size]
scratch vis bf16[batch_size * num_vision_tokens * hidden_size]
scratch visb bf16[batch_size * num_vision_tokens * hidden_size]
scratch pos int32[batch_size * seq_len]
scratch cnt int32[batch_size]
# text_embeds = F.embedding(input_ids, embed_weight)
launch embedding grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(text, input_ids, embed_weight, u32(hidden_size), i64(batch_size * seq_len * hidden_size))
# _quantize_nvfp4(vision_features): tensor.to(float32); global_amax = tensor.abs().max().item()
launch to_fp32 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(vf32, vision_features, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch abs_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(vabs, vf32, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch max_reduce grid(1024) block(256) args(amax_bits, vabs, i64(batch_size * num_vision_tokens * vision_hidden_size))
# _nvfp4_scales: (blocks.abs().amax(dim=-1) / _E2M1_MAX); the encode tensor; 1.0 / encode; clamp(block_amax * encode)
launch abs_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(babs, vf32, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch amax16 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(bamax, babs, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch mul_scalar grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(bdiv, bamax, f32(1.0 / 6), i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch global_encode grid(1) block(1) args(encode, amax_bits)
launch reciprocal_map grid(1) block(256) args(decr, encode, i64(1))
launch mul_scalar grid(1) block(256) args(decode, decr, f32(1), i64(1))
launch mul_tensor0 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(bprod, bdiv, encode, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch clamp_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(bclamp, bprod, f32(-448), f32(448), i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch to_fp8 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(s8, bclamp, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
# decode_scale = scale_fp8.to(float32) * global_decode; scaled = blocks / decode_scale; clamp(+-6)
launch fp8_to_fp32 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(s8f, s8, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch mul_tensor0 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(dsc, s8f, decode, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch div16 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(scaled, vf32, dsc, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch clamp_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(clipped, scaled, f32(-6), f32(6), i64(batch_size * num_vision_tokens * vision_hidden_size))
# _cast_to_fp4x2: zeros, then codes[mask] = c for the 16 ranges
launch zeros_u8 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(codes, i32(0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(0.0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_le grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(0.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_gt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(0.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(0.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(1), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(0.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_le grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(1.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(2), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_gt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(1.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(1.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(3), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(1.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_le grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(2.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(4), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_gt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(2.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(3.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(3.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_le grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(5.0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(6), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_gt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, clipped, f32(5.0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(7), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(-0.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(0.0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(8), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_gt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(-0.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(-0.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(9), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(-1.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_le grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(-0.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(10), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_gt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(-1.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(-1.25), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(11), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(-2.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_le grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(-1.75), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(12), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_gt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(-3.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(-2.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(13), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_ge grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m1, clipped, f32(-5.0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_le grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m2, clipped, f32(-3.5), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch and_map grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, m1, m2, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(14), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch cmp_lt grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(m3, clipped, f32(-5.0), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch masked_fill_u8 grid(4096) block(256) args(codes, m3, i32(15), i64(batch_size * num_vision_tokens * vision_hidden_size))
launch odd_times16 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 2, 1024)) block(256) args(odd16, codes, i64(batch_size * num_vision_tokens * vision_hidden_size / 2))
launch even_or grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 2, 1024)) block(256) args(packed, codes, odd16, i64(batch_size * num_vision_tokens * vision_hidden_size / 2))
# _scaled_mm_nvfp4: _dequantize_nvfp4 of the activations
launch u8_to_i64 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 2, 1024)) block(256) args(a64, packed, i64(batch_size * num_vision_tokens * vision_hidden_size / 2))
launch e2m1_table grid(1) block(32) args(values)
launch and15 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 2, 1024)) block(256) args(aidx, a64, i64(batch_size * num_vision_tokens * vision_hidden_size / 2))
launch lookup grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 2, 1024)) block(256) args(alo, aidx, values, i64(batch_size * num_vision_tokens * vision_hidden_size / 2))
launch shr4 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 2, 1024)) block(256) args(aidx, a64, i64(batch_size * num_vision_tokens * vision_hidden_size / 2))
launch lookup grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 2, 1024)) block(256) args(ahi, aidx, values, i64(batch_size * num_vision_tokens * vision_hidden_size / 2))
launch stack2 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(aun, alo, ahi, i64(batch_size * num_vision_tokens * vision_hidden_size))
launch fp8_to_fp32 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(asf, s8, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch mul_tensor0 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size / 16, 1024)) block(256) args(asc, asf, decode, i64(batch_size * num_vision_tokens * vision_hidden_size / 16))
launch mul16 grid(ceil_div(batch_size * num_vision_tokens * vision_hidden_size, 1024)) block(256) args(dqa, aun, asc, i64(batch_size * num_vision_tokens * vision_hidden_size))
# _dequantize_nvfp4 of the weight, expanded over the batch (the 32 copies are materialized); buffers of dead
# intermediates are reused: w64 and widx are declared fp32 [W] (the bytes of int64 [W / 2]) and hold the int64
# codes and indices, then the stacked values (widx) and the dequantized weight (w64)
launch u8_to_i64_expand grid(ceil_div(batch_size * hidden_size * vision_hidden_size / 2, 1024)) block(256) args(w64, vision_proj_weight_fp4, u32(hidden_size * vision_hidden_size / 2), i64(batch_size * hidden_size * vision_hidden_size / 2))
launch e2m1_table grid(1) block(32) args(values)
launch and15 grid(ceil_div(batch_size * hidden_size * vision_hidden_size / 2, 1024)) block(256) args(widx, w64, i64(batch_size * hidden_size * vision_hidden_size / 2))
launch lookup grid(ceil_div(batch_size * hidden_size * vision_hidden_size / 2, 1024)) block(256) args(wlo, widx, values, i64(batch_size * hidden_size * vision_hidden_size / 2))
launch shr4 grid(ceil_div(batch_size * hidden_size * vision_hidden_size / 2, 1024)) block(256) args(widx, w64, i64(batch_size * hidden_size * vision_hidden_size / 2))
launch lookup grid(ceil_div(batch_size * hidden_size * vision_hidden_size / 2, 1024)) block(256) args(whi, widx, values, i64(batch_size * hidden_size * vision_hidden_size / 2))
launch stack2 grid(ceil_div(batch_size * hidden_size * vision_hidden_size, 1024)) block(256) args(widx, wlo, whi, i64(batch_size * hidden_size * vision_hidden_size))
launch fp8_to_fp32_expand grid(ceil_div(batch_size * hidden_size * vision_hidden_size / 16, 1024)) block(256) args(wsf, vision_proj_weight_scale, u32(hidden_size * vision_hidden_size / 16), i64(batch_size * hidden_size * vision_hidden_size / 16))
launch mul_tensor0 grid(ceil_div(batch_size * hidden_size * vision_hidden_size / 16, 1024)) block(256) args(wsc, wsf, vision_proj_global_decode, i64(batch_size * hidden_size * vision_hidden_size / 16))
launch mul16 grid(ceil_div(batch_size * hidden_size * vision_hidden_size, 1024)) block(256) args(w64, widx, wsc, i64(batch_size * hidden_size * vision_hidden_size))
# torch.bmm(dequant_a, dequant_b.transpose(1, 2)).to(dtype); + vision_proj_bias
matmul c(vis32) a(dqa) b(w64) m(num_vision_tokens) n(hidden_size) k(vision_hidden_size) batch(batch_size) transpose_b
launch to_bf16 grid(ceil_div(batch_size * num_vision_tokens * hidden_size, 1024)) block(256) args(vis, vis32, i64(batch_size * num_vision_tokens * hidden_size))
launch add_bias_bf16 grid(ceil_div(batch_size * num_vision_tokens * hidden_size, 1024)) block(256) args(visb, vis, vision_proj_bias, u32(hidden_size), i64(batch_size * num_vision_tokens * hidden_size))
# output = text_embeds.clone(); the per-sequence loop
launch copy_bf16 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(output, text, i64(batch_size * seq_len * hidden_size))
launch row_positions grid(batch_size) block(32) args(vision_token_mask, pos, cnt, i32(seq_len))
launch scatter_rows grid(num_vision_tokens, batch_size) block(256) args(output, visb, pos, cnt, i32(seq_len), i32(num_vision_tokens), i32(hidden_size))
*/
