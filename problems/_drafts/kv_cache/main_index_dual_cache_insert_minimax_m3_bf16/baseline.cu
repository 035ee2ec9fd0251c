// The eager baseline: the device work of the original's reference(), one launch per eager operation,
// intermediates at eager's dtypes (eager.py is that computation): four _norm_rope calls of 23 kernels
// each (q, k, the indexer q, the indexer k), then the floor division and remainder of each slot mapping
// and one index_put_ per cache write. 99 launches; eager has no host synchronization here.
#include "mkb_ops.cuh"

// ---- _norm_rope --------------------------------------------------------------------------------------
// x.to(float32) of the strided head view qkv[:, col0 : col0 + width] seen as [tokens, heads, head_dim]
MKB_MAP(view_to_f32, float, (const bf16 *qkv, unsigned width, unsigned row, unsigned col0),
        f32(qkv[(long long)((unsigned)i / width) * row + col0 + (unsigned)i % width]))
// wide.pow(2)
MKB_MAP(square, float, (const float *x), x[i] * x[i])
// .mean(dim=-1, keepdim=True)
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)
// + EPS, and 1.0 + weight (Tensor.__radd__: weight + 1.0)
MKB_MAP(add_scalar, float, (const float *x, float s), x[i] + s)
// torch.rsqrt
MKB_MAP(rsqrt_map, float, (const float *x), rsqrtf(x[i]))
// wide * rsqrt(...) (broadcast along the head)
MKB_MAP(mul_rows, float, (const float *x, const float *s, unsigned cols), x[i] * s[(unsigned)i / cols])
// weight.to(float32); cs.to(float32)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// wide * (1 + w) (broadcast along the last dim)
MKB_MAP(mul_cols, float, (const float *x, const float *w, unsigned cols), x[i] * w[(unsigned)i % cols])
// .to(bfloat16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])
// cos_sin_cache.index_select(0, positions)
MKB_MAP(index_select_rows, bf16, (const bf16 *table, const long long *index, unsigned cols),
        f32(table[index[(unsigned)i / cols] * cols + (unsigned)i % cols]))
// normed[..., off : off + half].to(float32) -> [tokens, heads, half]
MKB_MAP(half_to_f32, float, (const bf16 *x, unsigned half, unsigned dim, unsigned off),
        f32(x[((unsigned)i / half) * dim + off + (unsigned)i % half]))
// x_part * cs_part: x_part [tokens, heads, half] contiguous fp32, cs_part = cs[:, c_off : c_off + half]
// of [tokens, rot] broadcast over the heads
MKB_MAP(mul_cs, float, (const float *x, const float *cs, unsigned heads, unsigned half, unsigned rot, unsigned c_off),
        x[i] * cs[((unsigned)i / (heads * half)) * rot + c_off + (unsigned)i % half])
MKB_MAP(sub_map, float, (const float *a, const float *b), a[i] - b[i])
MKB_MAP(add_map, float, (const float *a, const float *b), a[i] + b[i])
// torch.cat((a, b), dim=-1) of two [rows, half] fp32 tensors -> [rows, 2 * half]
MKB_MAP(cat_halves, float, (const float *a, const float *b, unsigned half),
        (unsigned)i % (2 * half) < half ? a[((unsigned)i / (2 * half)) * half + (unsigned)i % (2 * half)]
                                        : b[((unsigned)i / (2 * half)) * half + (unsigned)i % (2 * half) - half])
// torch.cat((rot [rows, rot], normed[..., rot:] of [rows, dim]), dim=-1) -> [rows, dim], bf16
MKB_MAP(cat_pass, bf16, (const bf16 *rotated, const bf16 *x, unsigned rot, unsigned dim),
        f32((unsigned)i % dim < rot ? rotated[((unsigned)i / dim) * rot + (unsigned)i % dim] : x[i]))

// ---- the cache inserts -------------------------------------------------------------------------------
// torch.div(slots, BLOCK_SIZE, rounding_mode="floor") and torch.remainder(slots, BLOCK_SIZE), int64
extern "C" __global__ void floor_div(long long *out, const long long *x, long long divisor, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long q = x[i] / divisor;
  if (x[i] % divisor != 0 && ((x[i] < 0) != (divisor < 0))) --q;
  out[i] = q;
}
extern "C" __global__ void remainder_map(long long *out, const long long *x, long long divisor, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long r = x[i] % divisor;
  if (r != 0 && ((r < 0) != (divisor < 0))) r += divisor;
  out[i] = r;
}

// cache[blocks, :, offsets, col_off : col_off + dim] = src (index_put_): element (t, h, d) of the value
// [tokens, heads, dim], read at src[t * src_row + src_col0 + h * dim + d], goes to
// cache[((blocks[t] * heads + h) * block_size + offsets[t]) * cache_dim + col_off + d]. With heads = 1 and
// cache_dim = dim this is index_cache[blocks, offsets] = src.
extern "C" __global__ void put_heads(bf16 *cache, const bf16 *src, const long long *blocks, const long long *offsets,
                                     long long src_row, long long src_col0, long long heads, long long dim,
                                     long long block_size, long long cache_dim, long long col_off, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long t = i / (heads * dim), h = (i / dim) % heads, d = i % dim;
  cache[((blocks[t] * heads + h) * block_size + offsets[t]) * cache_dim + col_off + d] = src[t * src_row + src_col0 + h * dim + d];
}

/* mkb:plan
scratch q_w fp32[num_tokens * num_q_heads * head_dim]
scratch q_sq fp32[num_tokens * num_q_heads * head_dim]
scratch q_var fp32[num_tokens * num_q_heads]
scratch q_var_eps fp32[num_tokens * num_q_heads]
scratch q_rs fp32[num_tokens * num_q_heads]
scratch q_y fp32[num_tokens * num_q_heads * head_dim]
scratch q_wf fp32[head_dim]
scratch q_w1 fp32[head_dim]
scratch q_yw fp32[num_tokens * num_q_heads * head_dim]
scratch q_n bf16[num_tokens * num_q_heads * head_dim]
scratch q_cs bf16[num_tokens * rotary_dim]
scratch q_csf fp32[num_tokens * rotary_dim]
scratch q_x1 fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_x2 fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_a fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_b fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_c fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_d fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_e fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_f fp32[num_tokens * num_q_heads * rotary_dim / 2]
scratch q_rot fp32[num_tokens * num_q_heads * rotary_dim]
scratch q_rotb bf16[num_tokens * num_q_heads * rotary_dim]
scratch k_w fp32[num_tokens * num_kv_heads * head_dim]
scratch k_sq fp32[num_tokens * num_kv_heads * head_dim]
scratch k_var fp32[num_tokens * num_kv_heads]
scratch k_var_eps fp32[num_tokens * num_kv_heads]
scratch k_rs fp32[num_tokens * num_kv_heads]
scratch k_y fp32[num_tokens * num_kv_heads * head_dim]
scratch k_wf fp32[head_dim]
scratch k_w1 fp32[head_dim]
scratch k_yw fp32[num_tokens * num_kv_heads * head_dim]
scratch k_n bf16[num_tokens * num_kv_heads * head_dim]
scratch k_cs bf16[num_tokens * rotary_dim]
scratch k_csf fp32[num_tokens * rotary_dim]
scratch k_x1 fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_x2 fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_a fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_b fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_c fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_d fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_e fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_f fp32[num_tokens * num_kv_heads * rotary_dim / 2]
scratch k_rot fp32[num_tokens * num_kv_heads * rotary_dim]
scratch k_rotb bf16[num_tokens * num_kv_heads * rotary_dim]
scratch k_out bf16[num_tokens * num_kv_heads * head_dim]
scratch iq_w fp32[num_tokens * num_index_q_heads * head_dim]
scratch iq_sq fp32[num_tokens * num_index_q_heads * head_dim]
scratch iq_var fp32[num_tokens * num_index_q_heads]
scratch iq_var_eps fp32[num_tokens * num_index_q_heads]
scratch iq_rs fp32[num_tokens * num_index_q_heads]
scratch iq_y fp32[num_tokens * num_index_q_heads * head_dim]
scratch iq_wf fp32[head_dim]
scratch iq_w1 fp32[head_dim]
scratch iq_yw fp32[num_tokens * num_index_q_heads * head_dim]
scratch iq_n bf16[num_tokens * num_index_q_heads * head_dim]
scratch iq_cs bf16[num_tokens * rotary_dim]
scratch iq_csf fp32[num_tokens * rotary_dim]
scratch iq_x1 fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_x2 fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_a fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_b fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_c fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_d fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_e fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_f fp32[num_tokens * num_index_q_heads * rotary_dim / 2]
scratch iq_rot fp32[num_tokens * num_index_q_heads * rotary_dim]
scratch iq_rotb bf16[num_tokens * num_index_q_heads * rotary_dim]
scratch ik_w fp32[num_tokens * 1 * head_dim]
scratch ik_sq fp32[num_tokens * 1 * head_dim]
scratch ik_var fp32[num_tokens * 1]
scratch ik_var_eps fp32[num_tokens * 1]
scratch ik_rs fp32[num_tokens * 1]
scratch ik_y fp32[num_tokens * 1 * head_dim]
scratch ik_wf fp32[head_dim]
scratch ik_w1 fp32[head_dim]
scratch ik_yw fp32[num_tokens * 1 * head_dim]
scratch ik_n bf16[num_tokens * 1 * head_dim]
scratch ik_cs bf16[num_tokens * rotary_dim]
scratch ik_csf fp32[num_tokens * rotary_dim]
scratch ik_x1 fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_x2 fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_a fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_b fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_c fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_d fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_e fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_f fp32[num_tokens * 1 * rotary_dim / 2]
scratch ik_rot fp32[num_tokens * 1 * rotary_dim]
scratch ik_rotb bf16[num_tokens * 1 * rotary_dim]
scratch ik_out bf16[num_tokens * 1 * head_dim]
scratch blocks int64[num_tokens]
scratch offsets int64[num_tokens]
scratch index_blocks int64[num_tokens]
scratch index_offsets int64[num_tokens]
launch view_to_f32 grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(q_w, qkv, u32(num_q_heads * head_dim), u32((num_q_heads + 2 * num_kv_heads + num_index_q_heads + 1) * head_dim), u32(0), i64(num_tokens * num_q_heads * head_dim))
launch square grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(q_sq, q_w, i64(num_tokens * num_q_heads * head_dim))
launch row_mean grid(num_tokens * num_q_heads) block(128) args(q_var, q_sq, i32(head_dim))
launch add_scalar grid(ceil_div(num_tokens * num_q_heads, 1024)) block(256) args(q_var_eps, q_var, f32(eps), i64(num_tokens * num_q_heads))
launch rsqrt_map grid(ceil_div(num_tokens * num_q_heads, 1024)) block(256) args(q_rs, q_var_eps, i64(num_tokens * num_q_heads))
launch mul_rows grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(q_y, q_w, q_rs, u32(head_dim), i64(num_tokens * num_q_heads * head_dim))
launch to_f32 grid(ceil_div(head_dim, 1024)) block(256) args(q_wf, q_norm_weight, i64(head_dim))
launch add_scalar grid(ceil_div(head_dim, 1024)) block(256) args(q_w1, q_wf, f32(1.0), i64(head_dim))
launch mul_cols grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(q_yw, q_y, q_w1, u32(head_dim), i64(num_tokens * num_q_heads * head_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(q_n, q_yw, i64(num_tokens * num_q_heads * head_dim))
launch index_select_rows grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(q_cs, cos_sin_cache, positions, u32(rotary_dim), i64(num_tokens * rotary_dim))
launch to_f32 grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(q_csf, q_cs, i64(num_tokens * rotary_dim))
launch half_to_f32 grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_x1, q_n, u32(rotary_dim / 2), u32(head_dim), u32(0), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch half_to_f32 grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_x2, q_n, u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim / 2), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_a, q_x1, q_csf, u32(num_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_b, q_x2, q_csf, u32(num_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch sub_map grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_c, q_a, q_b, i64(num_tokens * num_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_d, q_x2, q_csf, u32(num_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_e, q_x1, q_csf, u32(num_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * num_q_heads * rotary_dim / 2))
launch add_map grid(ceil_div(num_tokens * num_q_heads * rotary_dim / 2, 1024)) block(256) args(q_f, q_d, q_e, i64(num_tokens * num_q_heads * rotary_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * num_q_heads * rotary_dim, 1024)) block(256) args(q_rot, q_c, q_f, u32(rotary_dim / 2), i64(num_tokens * num_q_heads * rotary_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_q_heads * rotary_dim, 1024)) block(256) args(q_rotb, q_rot, i64(num_tokens * num_q_heads * rotary_dim))
launch cat_pass grid(ceil_div(num_tokens * num_q_heads * head_dim, 1024)) block(256) args(q, q_rotb, q_n, u32(rotary_dim), u32(head_dim), i64(num_tokens * num_q_heads * head_dim))
launch view_to_f32 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(k_w, qkv, u32(num_kv_heads * head_dim), u32((num_q_heads + 2 * num_kv_heads + num_index_q_heads + 1) * head_dim), u32(num_q_heads * head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch square grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(k_sq, k_w, i64(num_tokens * num_kv_heads * head_dim))
launch row_mean grid(num_tokens * num_kv_heads) block(128) args(k_var, k_sq, i32(head_dim))
launch add_scalar grid(ceil_div(num_tokens * num_kv_heads, 1024)) block(256) args(k_var_eps, k_var, f32(eps), i64(num_tokens * num_kv_heads))
launch rsqrt_map grid(ceil_div(num_tokens * num_kv_heads, 1024)) block(256) args(k_rs, k_var_eps, i64(num_tokens * num_kv_heads))
launch mul_rows grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(k_y, k_w, k_rs, u32(head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch to_f32 grid(ceil_div(head_dim, 1024)) block(256) args(k_wf, k_norm_weight, i64(head_dim))
launch add_scalar grid(ceil_div(head_dim, 1024)) block(256) args(k_w1, k_wf, f32(1.0), i64(head_dim))
launch mul_cols grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(k_yw, k_y, k_w1, u32(head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(k_n, k_yw, i64(num_tokens * num_kv_heads * head_dim))
launch index_select_rows grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(k_cs, cos_sin_cache, positions, u32(rotary_dim), i64(num_tokens * rotary_dim))
launch to_f32 grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(k_csf, k_cs, i64(num_tokens * rotary_dim))
launch half_to_f32 grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_x1, k_n, u32(rotary_dim / 2), u32(head_dim), u32(0), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch half_to_f32 grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_x2, k_n, u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim / 2), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_a, k_x1, k_csf, u32(num_kv_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_b, k_x2, k_csf, u32(num_kv_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch sub_map grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_c, k_a, k_b, i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_d, k_x2, k_csf, u32(num_kv_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_e, k_x1, k_csf, u32(num_kv_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch add_map grid(ceil_div(num_tokens * num_kv_heads * rotary_dim / 2, 1024)) block(256) args(k_f, k_d, k_e, i64(num_tokens * num_kv_heads * rotary_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * num_kv_heads * rotary_dim, 1024)) block(256) args(k_rot, k_c, k_f, u32(rotary_dim / 2), i64(num_tokens * num_kv_heads * rotary_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_kv_heads * rotary_dim, 1024)) block(256) args(k_rotb, k_rot, i64(num_tokens * num_kv_heads * rotary_dim))
launch cat_pass grid(ceil_div(num_tokens * num_kv_heads * head_dim, 1024)) block(256) args(k_out, k_rotb, k_n, u32(rotary_dim), u32(head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch view_to_f32 grid(ceil_div(num_tokens * num_index_q_heads * head_dim, 1024)) block(256) args(iq_w, qkv, u32(num_index_q_heads * head_dim), u32((num_q_heads + 2 * num_kv_heads + num_index_q_heads + 1) * head_dim), u32((num_q_heads + 2 * num_kv_heads) * head_dim), i64(num_tokens * num_index_q_heads * head_dim))
launch square grid(ceil_div(num_tokens * num_index_q_heads * head_dim, 1024)) block(256) args(iq_sq, iq_w, i64(num_tokens * num_index_q_heads * head_dim))
launch row_mean grid(num_tokens * num_index_q_heads) block(128) args(iq_var, iq_sq, i32(head_dim))
launch add_scalar grid(ceil_div(num_tokens * num_index_q_heads, 1024)) block(256) args(iq_var_eps, iq_var, f32(eps), i64(num_tokens * num_index_q_heads))
launch rsqrt_map grid(ceil_div(num_tokens * num_index_q_heads, 1024)) block(256) args(iq_rs, iq_var_eps, i64(num_tokens * num_index_q_heads))
launch mul_rows grid(ceil_div(num_tokens * num_index_q_heads * head_dim, 1024)) block(256) args(iq_y, iq_w, iq_rs, u32(head_dim), i64(num_tokens * num_index_q_heads * head_dim))
launch to_f32 grid(ceil_div(head_dim, 1024)) block(256) args(iq_wf, index_q_norm_weight, i64(head_dim))
launch add_scalar grid(ceil_div(head_dim, 1024)) block(256) args(iq_w1, iq_wf, f32(1.0), i64(head_dim))
launch mul_cols grid(ceil_div(num_tokens * num_index_q_heads * head_dim, 1024)) block(256) args(iq_yw, iq_y, iq_w1, u32(head_dim), i64(num_tokens * num_index_q_heads * head_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_index_q_heads * head_dim, 1024)) block(256) args(iq_n, iq_yw, i64(num_tokens * num_index_q_heads * head_dim))
launch index_select_rows grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(iq_cs, cos_sin_cache, positions, u32(rotary_dim), i64(num_tokens * rotary_dim))
launch to_f32 grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(iq_csf, iq_cs, i64(num_tokens * rotary_dim))
launch half_to_f32 grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_x1, iq_n, u32(rotary_dim / 2), u32(head_dim), u32(0), i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch half_to_f32 grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_x2, iq_n, u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim / 2), i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_a, iq_x1, iq_csf, u32(num_index_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_b, iq_x2, iq_csf, u32(num_index_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch sub_map grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_c, iq_a, iq_b, i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_d, iq_x2, iq_csf, u32(num_index_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_e, iq_x1, iq_csf, u32(num_index_q_heads), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch add_map grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim / 2, 1024)) block(256) args(iq_f, iq_d, iq_e, i64(num_tokens * num_index_q_heads * rotary_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim, 1024)) block(256) args(iq_rot, iq_c, iq_f, u32(rotary_dim / 2), i64(num_tokens * num_index_q_heads * rotary_dim))
launch to_bf16 grid(ceil_div(num_tokens * num_index_q_heads * rotary_dim, 1024)) block(256) args(iq_rotb, iq_rot, i64(num_tokens * num_index_q_heads * rotary_dim))
launch cat_pass grid(ceil_div(num_tokens * num_index_q_heads * head_dim, 1024)) block(256) args(iq, iq_rotb, iq_n, u32(rotary_dim), u32(head_dim), i64(num_tokens * num_index_q_heads * head_dim))
launch view_to_f32 grid(ceil_div(num_tokens * 1 * head_dim, 1024)) block(256) args(ik_w, qkv, u32(1 * head_dim), u32((num_q_heads + 2 * num_kv_heads + num_index_q_heads + 1) * head_dim), u32((num_q_heads + 2 * num_kv_heads + num_index_q_heads) * head_dim), i64(num_tokens * 1 * head_dim))
launch square grid(ceil_div(num_tokens * 1 * head_dim, 1024)) block(256) args(ik_sq, ik_w, i64(num_tokens * 1 * head_dim))
launch row_mean grid(num_tokens * 1) block(128) args(ik_var, ik_sq, i32(head_dim))
launch add_scalar grid(ceil_div(num_tokens * 1, 1024)) block(256) args(ik_var_eps, ik_var, f32(eps), i64(num_tokens * 1))
launch rsqrt_map grid(ceil_div(num_tokens * 1, 1024)) block(256) args(ik_rs, ik_var_eps, i64(num_tokens * 1))
launch mul_rows grid(ceil_div(num_tokens * 1 * head_dim, 1024)) block(256) args(ik_y, ik_w, ik_rs, u32(head_dim), i64(num_tokens * 1 * head_dim))
launch to_f32 grid(ceil_div(head_dim, 1024)) block(256) args(ik_wf, index_k_norm_weight, i64(head_dim))
launch add_scalar grid(ceil_div(head_dim, 1024)) block(256) args(ik_w1, ik_wf, f32(1.0), i64(head_dim))
launch mul_cols grid(ceil_div(num_tokens * 1 * head_dim, 1024)) block(256) args(ik_yw, ik_y, ik_w1, u32(head_dim), i64(num_tokens * 1 * head_dim))
launch to_bf16 grid(ceil_div(num_tokens * 1 * head_dim, 1024)) block(256) args(ik_n, ik_yw, i64(num_tokens * 1 * head_dim))
launch index_select_rows grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(ik_cs, cos_sin_cache, positions, u32(rotary_dim), i64(num_tokens * rotary_dim))
launch to_f32 grid(ceil_div(num_tokens * rotary_dim, 1024)) block(256) args(ik_csf, ik_cs, i64(num_tokens * rotary_dim))
launch half_to_f32 grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_x1, ik_n, u32(rotary_dim / 2), u32(head_dim), u32(0), i64(num_tokens * 1 * rotary_dim / 2))
launch half_to_f32 grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_x2, ik_n, u32(rotary_dim / 2), u32(head_dim), u32(rotary_dim / 2), i64(num_tokens * 1 * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_a, ik_x1, ik_csf, u32(1), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * 1 * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_b, ik_x2, ik_csf, u32(1), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * 1 * rotary_dim / 2))
launch sub_map grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_c, ik_a, ik_b, i64(num_tokens * 1 * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_d, ik_x2, ik_csf, u32(1), u32(rotary_dim / 2), u32(rotary_dim), u32(0), i64(num_tokens * 1 * rotary_dim / 2))
launch mul_cs grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_e, ik_x1, ik_csf, u32(1), u32(rotary_dim / 2), u32(rotary_dim), u32(rotary_dim / 2), i64(num_tokens * 1 * rotary_dim / 2))
launch add_map grid(ceil_div(num_tokens * 1 * rotary_dim / 2, 1024)) block(256) args(ik_f, ik_d, ik_e, i64(num_tokens * 1 * rotary_dim / 2))
launch cat_halves grid(ceil_div(num_tokens * 1 * rotary_dim, 1024)) block(256) args(ik_rot, ik_c, ik_f, u32(rotary_dim / 2), i64(num_tokens * 1 * rotary_dim))
launch to_bf16 grid(ceil_div(num_tokens * 1 * rotary_dim, 1024)) block(256) args(ik_rotb, ik_rot, i64(num_tokens * 1 * rotary_dim))
launch cat_pass grid(ceil_div(num_tokens * 1 * head_dim, 1024)) block(256) args(ik_out, ik_rotb, ik_n, u32(rotary_dim), u32(head_dim), i64(num_tokens * 1 * head_dim))
launch floor_div grid(ceil_div(num_tokens, 256)) block(256) args(blocks, slot_mapping, i64(block_size), i64(num_tokens))
launch remainder_map grid(ceil_div(num_tokens, 256)) block(256) args(offsets, slot_mapping, i64(block_size), i64(num_tokens))
launch put_heads grid(ceil_div(num_tokens * num_kv_heads * head_dim, 256)) block(256) args(kv_cache, k_out, blocks, offsets, i64(num_kv_heads * head_dim), i64(0), i64(num_kv_heads), i64(head_dim), i64(block_size), i64(2 * head_dim), i64(0), i64(num_tokens * num_kv_heads * head_dim))
launch put_heads grid(ceil_div(num_tokens * num_kv_heads * head_dim, 256)) block(256) args(kv_cache, qkv, blocks, offsets, i64((num_q_heads + 2 * num_kv_heads + num_index_q_heads + 1) * head_dim), i64((num_q_heads + num_kv_heads) * head_dim), i64(num_kv_heads), i64(head_dim), i64(block_size), i64(2 * head_dim), i64(head_dim), i64(num_tokens * num_kv_heads * head_dim))
launch floor_div grid(ceil_div(num_tokens, 256)) block(256) args(index_blocks, index_slot_mapping, i64(block_size), i64(num_tokens))
launch remainder_map grid(ceil_div(num_tokens, 256)) block(256) args(index_offsets, index_slot_mapping, i64(block_size), i64(num_tokens))
launch put_heads grid(ceil_div(num_tokens * head_dim, 256)) block(256) args(index_cache, ik_out, index_blocks, index_offsets, i64(head_dim), i64(0), i64(1), i64(head_dim), i64(block_size), i64(head_dim), i64(0), i64(num_tokens * head_dim))
*/
