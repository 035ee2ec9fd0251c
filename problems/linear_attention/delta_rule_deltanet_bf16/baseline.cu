// The eager baseline: the device work of the original's reference(), eager PyTorch at fp32.
// Before the loop, one launch per eager operation (as eager runs them). The loop over the 1024 tokens
// cannot be a plan (a plan has no loops, and 1024 x 11 launches is no plan either), so the loop runs in
// one launch, `delta_rule_steps`: one block per (batch, head) pair steps through the tokens, and each
// of the 11 eager operations of the loop body is one phase of the block, reading and writing its
// operands in global memory at fp32 (the [B, H, K, V] and [B, H, V] tensors eager materializes, here
// the block's slice of each), the phases separated by a block barrier as eager's kernels are by their
// launches. Every operation rounds once, as eager's kernels do; what is not emulated is eager's launch
// overhead between the 11 x 1024 kernels.
#include "mkb_ops.cuh"

constexpr int kKey = 128, kValue = 128, kStepThreads = 512;

// q.to(fp32), k.to(fp32), v.to(fp32), beta.to(fp32)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// F.normalize: x.norm(2, dim=-1, keepdim=True) (one block per row), .clamp_min(eps), x / denom
MKB_ROW_REDUCE(row_norm, float, float, mkb_ops::sum_op, (const float *x), x[(long long)r * cols + c] * x[(long long)r * cols + c], sqrtf(acc))
MKB_MAP(clamp_min, float, (const float *x, float low), fmaxf(x[i], low))
MKB_MAP(div_rows, float, (const float *x, const float *denom, unsigned cols), x[i] / denom[(unsigned long long)i / cols])
// torch.zeros_like(v) (o), torch.zeros(b, h, K, V).to(v) (S: a host tensor copied to the device in eager)
MKB_MAP(fill_f32, float, (float value), value)
// q * key_dim ** -0.5
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
// S += initial_state: here S's zeros (a scratch) plus initial_state, written to final_state
MKB_MAP(add_f32, float, (const float *a, const float *b), a[i] + b[i])
// o.to(bf16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

// The loop body, per token t and (b, h) pair, each line one eager kernel:
//   v_c = v[:, :, t].clone(); c1 = S.clone(); p = c1 * k_t[..., None]; u = p.sum(-2); d = v_c - u;
//   w = d * beta_t; c2 = S.clone(); outer = k_t.unsqueeze(-1) * w.unsqueeze(-2); S = c2 + outer;
//   o_t = einsum("bhd,bhdm->bhm", q_t, S) (a cuBLAS fp32 bmm; here one fp32 multiply-add chain per
//   column); o[:, :, t] = o_t.
// S lives in final_state (eager's last S is the returned tensor). Scratch pointers are written and
// read in the same launch, so none is const or read through the read-only cache.
extern "C" __global__ void __launch_bounds__(kStepThreads)
delta_rule_steps(float *S, const float *kn, const float *qs, const float *vf, const float *betaf, float *o32,
                 float *v_clone, float *clone1, float *prod, float *colsum, float *diff, float *scaled,
                 float *clone2, float *outer, float *o_step, int seq_len) {
  const long long pair = blockIdx.x;
  const int tid = threadIdx.x;
  const long long mat = pair * kKey * kValue, vec = pair * kValue;
  float *s = S + mat, *c1 = clone1 + mat, *p = prod + mat, *c2 = clone2 + mat, *op = outer + mat;
  float *vc = v_clone + vec, *u = colsum + vec, *d = diff + vec, *w = scaled + vec, *ot = o_step + vec;
  for (int t = 0; t < seq_len; ++t) {
    const long long row = pair * seq_len + t;
    const float *k_t = kn + row * kKey, *q_t = qs + row * kKey;
    for (int e = tid; e < kValue; e += kStepThreads) vc[e] = vf[row * kValue + e];
    __syncthreads();
    for (int e = tid; e < kKey * kValue; e += kStepThreads) c1[e] = s[e];
    __syncthreads();
    for (int e = tid; e < kKey * kValue; e += kStepThreads) p[e] = c1[e] * k_t[e / kValue];
    __syncthreads();
    for (int e = tid; e < kValue; e += kStepThreads) {
      float acc = 0.0f;
      for (int r = 0; r < kKey; ++r) acc += p[r * kValue + e];
      u[e] = acc;
    }
    __syncthreads();
    for (int e = tid; e < kValue; e += kStepThreads) d[e] = vc[e] - u[e];
    __syncthreads();
    for (int e = tid; e < kValue; e += kStepThreads) w[e] = d[e] * betaf[row];
    __syncthreads();
    for (int e = tid; e < kKey * kValue; e += kStepThreads) c2[e] = s[e];
    __syncthreads();
    for (int e = tid; e < kKey * kValue; e += kStepThreads) op[e] = k_t[e / kValue] * w[e % kValue];
    __syncthreads();
    for (int e = tid; e < kKey * kValue; e += kStepThreads) s[e] = c2[e] + op[e];
    __syncthreads();
    for (int e = tid; e < kValue; e += kStepThreads) {
      float acc = 0.0f;
      for (int r = 0; r < kKey; ++r) acc = fmaf(q_t[r], s[r * kValue + e], acc);
      ot[e] = acc;
    }
    __syncthreads();
    for (int e = tid; e < kValue; e += kStepThreads) o32[row * kValue + e] = ot[e];
    __syncthreads();
  }
}

/* mkb:plan
scratch qf fp32[batch_size * num_heads * seq_len * key_dim]
scratch kf fp32[batch_size * num_heads * seq_len * key_dim]
scratch vf fp32[batch_size * num_heads * seq_len * value_dim]
scratch betaf fp32[batch_size * num_heads * seq_len]
scratch q_norm fp32[batch_size * num_heads * seq_len]
scratch q_den fp32[batch_size * num_heads * seq_len]
scratch qn fp32[batch_size * num_heads * seq_len * key_dim]
scratch k_norm fp32[batch_size * num_heads * seq_len]
scratch k_den fp32[batch_size * num_heads * seq_len]
scratch kn fp32[batch_size * num_heads * seq_len * key_dim]
scratch o32 fp32[batch_size * num_heads * seq_len * value_dim]
scratch qs fp32[batch_size * num_heads * seq_len * key_dim]
scratch v_clone fp32[batch_size * num_heads * value_dim]
scratch clone1 fp32[batch_size * num_heads * key_dim * value_dim]
scratch prod fp32[batch_size * num_heads * key_dim * value_dim]
scratch colsum fp32[batch_size * num_heads * value_dim]
scratch diff fp32[batch_size * num_heads * value_dim]
scratch scaled fp32[batch_size * num_heads * value_dim]
scratch clone2 fp32[batch_size * num_heads * key_dim * value_dim]
scratch outer fp32[batch_size * num_heads * key_dim * value_dim]
scratch o_step fp32[batch_size * num_heads * value_dim]
scratch s_zeros fp32[batch_size * num_heads * key_dim * value_dim]
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(qf, q, i64(batch_size * num_heads * seq_len * key_dim))
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(kf, k, i64(batch_size * num_heads * seq_len * key_dim))
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len * value_dim, 1024)) block(256) args(vf, v, i64(batch_size * num_heads * seq_len * value_dim))
launch to_f32 grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(betaf, beta, i64(batch_size * num_heads * seq_len))
launch row_norm grid(batch_size * num_heads * seq_len) block(128) args(q_norm, qf, i32(key_dim))
launch clamp_min grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(q_den, q_norm, f32(norm_eps), i64(batch_size * num_heads * seq_len))
launch div_rows grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(qn, qf, q_den, u32(key_dim), i64(batch_size * num_heads * seq_len * key_dim))
launch row_norm grid(batch_size * num_heads * seq_len) block(128) args(k_norm, kf, i32(key_dim))
launch clamp_min grid(ceil_div(batch_size * num_heads * seq_len, 1024)) block(256) args(k_den, k_norm, f32(norm_eps), i64(batch_size * num_heads * seq_len))
launch div_rows grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(kn, kf, k_den, u32(key_dim), i64(batch_size * num_heads * seq_len * key_dim))
launch fill_f32 grid(ceil_div(batch_size * num_heads * seq_len * value_dim, 1024)) block(256) args(o32, f32(0), i64(batch_size * num_heads * seq_len * value_dim))
launch fill_f32 grid(ceil_div(batch_size * num_heads * key_dim * value_dim, 1024)) block(256) args(s_zeros, f32(0), i64(batch_size * num_heads * key_dim * value_dim))
launch mul_scalar grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(qs, qn, f32(scale), i64(batch_size * num_heads * seq_len * key_dim))
launch add_f32 grid(ceil_div(batch_size * num_heads * key_dim * value_dim, 1024)) block(256) args(final_state, s_zeros, initial_state, i64(batch_size * num_heads * key_dim * value_dim))
launch delta_rule_steps grid(batch_size * num_heads) block(512)
  args(final_state, kn, qs, vf, betaf, o32, v_clone, clone1, prod, colsum, diff, scaled, clone2, outer, o_step, i32(seq_len))
launch to_bf16 grid(ceil_div(batch_size * num_heads * seq_len * value_dim, 1024)) block(256) args(o, o32, i64(batch_size * num_heads * seq_len * value_dim))
*/
