// The eager baseline: the device work of the original's reference(), eager PyTorch at fp32.
// Before the loop, one launch per eager operation. The loop over the 1024 tokens cannot be a plan (a
// plan has no loops; 1024 x 11 launches is no plan either), so it is one launch, `kda_steps`: one
// block per (batch, head) pair steps through the tokens, and each of the 11 eager kernels of the loop
// body is one phase of the block, reading and writing its operands in global memory at fp32 (the
// block's slice of the [B, H, K, V], [B, H, K] and [B, H, V] tensors eager materializes), the phases
// separated by block barriers as eager's kernels are by their launches. Every operation rounds once, as
// eager's kernels do; what is not emulated is the launch overhead between eager's 11 x 1024 kernels.
#include "mkb_ops.cuh"

constexpr int kDim = 128, kStepThreads = 512;

// q, k, v, g, beta .to(fp32)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// F.normalize: x.norm(2, dim=-1, keepdim=True) (one block per row), .clamp_min(eps), x / denom
MKB_ROW_REDUCE(row_norm, float, float, mkb_ops::sum_op, (const float *x), x[(long long)r * cols + c] * x[(long long)r * cols + c], sqrtf(acc))
MKB_MAP(clamp_min, float, (const float *x, float low), fmaxf(x[i], low))
MKB_MAP(div_rows, float, (const float *x, const float *denom, unsigned cols), x[i] / denom[(unsigned long long)i / cols])
// repeat_interleave(G = 1, dim=2): a copy
MKB_MAP(copy_f32, float, (const float *x), x[i])
// * K ** -0.5
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
// k.new_zeros(B, HV, K, V) (S) and torch.zeros_like(v) (o)
MKB_MAP(fill_f32, float, (float value), value)
// o.to(bf16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

// The loop body, per token t and (b, h) pair, each line one eager kernel:
//   e = g_t[..., None].exp(); S1 = S * e; bk = beta_t[..., None] * k_t; ks = k_t[..., None] * S1;
//   r = ks.sum(-2); d = v_t - r; outer = einsum('bhk,bhv->bhkv', bk, d) (a broadcast multiply);
//   S = S1 + outer; q_c = q_t copied contiguous and o_t = bmm(q_c, S) (einsum('bhk,bhkv->bhv'): a cuBLAS
//   fp32 bmm, here one fp32 multiply-add chain per column); o[:, t] = o_t.
// [B, T, H, D] rows: token t of pair (b, h) is row (b * T + t) * H + h. Scratch written and read in the
// same launch is never const or read through the read-only cache.
extern "C" __global__ void __launch_bounds__(kStepThreads)
kda_steps(float *S, const float *kn, const float *qs, const float *vf, const float *gf, const float *betaf,
          float *o32, float *decay, float *decayed, float *beta_k, float *kS, float *colsum, float *diff,
          float *outer, float *q_copy, float *o_step, int seq_len, int num_heads) {
  const long long pair = blockIdx.x;
  const int b = blockIdx.x / num_heads, h = blockIdx.x % num_heads;
  const int tid = threadIdx.x;
  const long long mat = pair * kDim * kDim, vec = pair * kDim;
  float *s = S + mat, *s1 = decayed + mat, *ks = kS + mat, *op = outer + mat;
  float *e = decay + vec, *bk = beta_k + vec, *r = colsum + vec, *d = diff + vec, *qc = q_copy + vec, *ot = o_step + vec;
  for (int t = 0; t < seq_len; ++t) {
    const long long row = ((long long)b * seq_len + t) * num_heads + h;
    const float *k_t = kn + row * kDim, *q_t = qs + row * kDim, *v_t = vf + row * kDim, *g_t = gf + row * kDim;
    for (int i = tid; i < kDim; i += kStepThreads) e[i] = expf(g_t[i]);
    __syncthreads();
    for (int i = tid; i < kDim * kDim; i += kStepThreads) s1[i] = s[i] * e[i / kDim];
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) bk[i] = betaf[row] * k_t[i];
    __syncthreads();
    for (int i = tid; i < kDim * kDim; i += kStepThreads) ks[i] = k_t[i / kDim] * s1[i];
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) {
      float acc = 0.0f;
      for (int j = 0; j < kDim; ++j) acc += ks[j * kDim + i];
      r[i] = acc;
    }
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) d[i] = v_t[i] - r[i];
    __syncthreads();
    for (int i = tid; i < kDim * kDim; i += kStepThreads) op[i] = bk[i / kDim] * d[i % kDim];
    __syncthreads();
    for (int i = tid; i < kDim * kDim; i += kStepThreads) s[i] = s1[i] + op[i];
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) qc[i] = q_t[i];
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) {
      float acc = 0.0f;
      for (int j = 0; j < kDim; ++j) acc = fmaf(qc[j], s[j * kDim + i], acc);
      ot[i] = acc;
    }
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) o32[row * kDim + i] = ot[i];
    __syncthreads();
  }
}

/* mkb:plan
scratch qf fp32[batch_size * seq_len * num_k_heads * head_dim]
scratch kf fp32[batch_size * seq_len * num_k_heads * head_dim]
scratch vf fp32[batch_size * seq_len * num_v_heads * head_dim]
scratch gf fp32[batch_size * seq_len * num_v_heads * head_dim]
scratch betaf fp32[batch_size * seq_len * num_v_heads]
scratch q_norm fp32[batch_size * seq_len * num_k_heads]
scratch q_den fp32[batch_size * seq_len * num_k_heads]
scratch qn fp32[batch_size * seq_len * num_k_heads * head_dim]
scratch k_norm fp32[batch_size * seq_len * num_k_heads]
scratch k_den fp32[batch_size * seq_len * num_k_heads]
scratch kn fp32[batch_size * seq_len * num_k_heads * head_dim]
scratch q_rep fp32[batch_size * seq_len * num_v_heads * head_dim]
scratch qs fp32[batch_size * seq_len * num_v_heads * head_dim]
scratch k_rep fp32[batch_size * seq_len * num_v_heads * head_dim]
scratch S fp32[batch_size * num_v_heads * head_dim * head_dim]
scratch o32 fp32[batch_size * seq_len * num_v_heads * head_dim]
scratch decay fp32[batch_size * num_v_heads * head_dim]
scratch decayed fp32[batch_size * num_v_heads * head_dim * head_dim]
scratch beta_k fp32[batch_size * num_v_heads * head_dim]
scratch kS fp32[batch_size * num_v_heads * head_dim * head_dim]
scratch colsum fp32[batch_size * num_v_heads * head_dim]
scratch diff fp32[batch_size * num_v_heads * head_dim]
scratch outer fp32[batch_size * num_v_heads * head_dim * head_dim]
scratch q_copy fp32[batch_size * num_v_heads * head_dim]
scratch o_step fp32[batch_size * num_v_heads * head_dim]
launch to_f32 grid(ceil_div(batch_size * seq_len * num_k_heads * head_dim, 1024)) block(256) args(qf, q, i64(batch_size * seq_len * num_k_heads * head_dim))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_k_heads * head_dim, 1024)) block(256) args(kf, k, i64(batch_size * seq_len * num_k_heads * head_dim))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_v_heads * head_dim, 1024)) block(256) args(vf, v, i64(batch_size * seq_len * num_v_heads * head_dim))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_v_heads * head_dim, 1024)) block(256) args(gf, g, i64(batch_size * seq_len * num_v_heads * head_dim))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_v_heads, 1024)) block(256) args(betaf, beta, i64(batch_size * seq_len * num_v_heads))
launch row_norm grid(batch_size * seq_len * num_k_heads) block(128) args(q_norm, qf, i32(head_dim))
launch clamp_min grid(ceil_div(batch_size * seq_len * num_k_heads, 1024)) block(256) args(q_den, q_norm, f32(norm_eps), i64(batch_size * seq_len * num_k_heads))
launch div_rows grid(ceil_div(batch_size * seq_len * num_k_heads * head_dim, 1024)) block(256) args(qn, qf, q_den, u32(head_dim), i64(batch_size * seq_len * num_k_heads * head_dim))
launch row_norm grid(batch_size * seq_len * num_k_heads) block(128) args(k_norm, kf, i32(head_dim))
launch clamp_min grid(ceil_div(batch_size * seq_len * num_k_heads, 1024)) block(256) args(k_den, k_norm, f32(norm_eps), i64(batch_size * seq_len * num_k_heads))
launch div_rows grid(ceil_div(batch_size * seq_len * num_k_heads * head_dim, 1024)) block(256) args(kn, kf, k_den, u32(head_dim), i64(batch_size * seq_len * num_k_heads * head_dim))
launch copy_f32 grid(ceil_div(batch_size * seq_len * num_v_heads * head_dim, 1024)) block(256) args(q_rep, qn, i64(batch_size * seq_len * num_v_heads * head_dim))
launch mul_scalar grid(ceil_div(batch_size * seq_len * num_v_heads * head_dim, 1024)) block(256) args(qs, q_rep, f32(scale), i64(batch_size * seq_len * num_v_heads * head_dim))
launch copy_f32 grid(ceil_div(batch_size * seq_len * num_v_heads * head_dim, 1024)) block(256) args(k_rep, kn, i64(batch_size * seq_len * num_v_heads * head_dim))
launch fill_f32 grid(ceil_div(batch_size * num_v_heads * head_dim * head_dim, 1024)) block(256) args(S, f32(0), i64(batch_size * num_v_heads * head_dim * head_dim))
launch fill_f32 grid(ceil_div(batch_size * seq_len * num_v_heads * head_dim, 1024)) block(256) args(o32, f32(0), i64(batch_size * seq_len * num_v_heads * head_dim))
launch kda_steps grid(batch_size * num_v_heads) block(512)
  args(S, k_rep, qs, vf, gf, betaf, o32, decay, decayed, beta_k, kS, colsum, diff, outer, q_copy, o_step, i32(seq_len), i32(num_v_heads))
launch to_bf16 grid(ceil_div(batch_size * seq_len * num_v_heads * head_dim, 1024)) block(256) args(o, o32, i64(batch_size * seq_len * num_v_heads * head_dim))
*/
