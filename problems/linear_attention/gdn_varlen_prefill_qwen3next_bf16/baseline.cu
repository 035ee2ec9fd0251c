// The eager baseline: the device work of the original's reference(), eager PyTorch at its dtypes.
// Before the loops, one launch per eager operation. The reference loops in Python over the 4 sequences
// (.item() syncs, a clone of the sequence's state, a copy of the final state back) and, inside, over each
// sequence's tokens (17 kernels per token). The per-sequence clone and copy-back are one launch each over
// all sequences. The token loop cannot be a plan (up to 890 dependent tokens; a plan has no loops), so it
// is one launch, `gdn_steps`: one 512-thread block per (sequence, value head) steps through the
// sequence's tokens, each of the 17 eager kernels one phase over the block's slice of eager's tensors in
// global memory at eager's dtypes, a block barrier between phases as eager's kernels are separated by
// their launches. Layouts: the working state is the clone's k-last [V, K] memory read as [K, V];
// elementwise results keep that layout; the einsum outer products are [K, V]. What is not emulated is
// the launch overhead between eager's 17 x 959 kernels.
#include "mkb_ops.cuh"

constexpr int kDim = 128, kVHeads = 16, kGroup = 2, kStepThreads = 512;
constexpr int kMat = kDim * kDim;

// x = a.to(fp32) + dt_bias; g = exp(-exp(A_log) * softplus(x)); beta = sigmoid(b.to(fp32)), over [T, 16]
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
MKB_MAP(add_heads, float, (const float *x, const float *per_head), x[i] + per_head[i % kVHeads])
MKB_MAP(exp_map, float, (const float *x), expf(x[i]))
MKB_MAP(neg_map, float, (const float *x), -x[i])
MKB_MAP(softplus_map, float, (const float *x), x[i] * 1.0f > 20.0f ? x[i] : log1pf(expf(x[i] * 1.0f)) / 1.0f)
MKB_MAP(mul_heads, float, (const float *per_head, const float *x), per_head[i % kVHeads] * x[i])
MKB_MAP(sigmoid_map, float, (const float *x), 1.0f / (1.0f + expf(-x[i])))
// q.repeat_interleave(2, dim=1) in bf16: [T, 8, 128] -> [T, 16, 128]
MKB_MAP(repeat_heads, bf16, (const bf16 *x), x[(i / (kVHeads * kDim)) * (kVHeads / kGroup) * kDim + ((i / kDim) % kVHeads) / kGroup * kDim + i % kDim])
// torch.zeros(...) for output (bf16) and new_state (fp32)
MKB_MAP(fill_bf16, bf16, (float value), value)
MKB_MAP(fill_f32, float, (float value), value)
// state[seq].clone() for every sequence; new_state[seq] = state_HKV.transpose(-1, -2) (the same memory order)
MKB_MAP(copy_f32, float, (const float *x), x[i])

// Per token `tok` of the block's sequence and value head h, each phase one eager kernel:
//   qf, kf, vf = q_exp[tok, h].to(fp32), k_exp[tok, h].to(fp32), v[tok, h].to(fp32); old = g * S;
//   old_v = k @ old (cuBLAS bmm: here an fp32 multiply-add chain); bv = beta * v; omb = 1 - beta;
//   t2 = omb * old_v; new_v = bv + t2; rem = einsum(k^T, old_v) and upd = einsum(k^T, new_v) (broadcast
//   multiplies: nothing summed); h1 = old - rem; S = h1 + upd; ov = q @ S (bmm); o2 = scale * ov;
//   ob = o2.to(bf16); output[tok] = ob.
// Scratch written and read in the same launch is never const or read through the read-only cache.
extern "C" __global__ void __launch_bounds__(kStepThreads)
gdn_steps(float *ws, const bf16 *q_exp, const bf16 *k_exp, const bf16 *v, const float *g, const float *beta,
          const long long *cu_seqlens, bf16 *output, float *qf, float *kf, float *vf, float *old, float *old_v,
          float *bv, float *omb, float *t2, float *new_v, float *rem, float *upd, float *h1, float *ov, float *o2,
          bf16 *ob, float scale) {
  const int pair = blockIdx.x, seq = pair / kVHeads, h = pair % kVHeads, tid = threadIdx.x;
  const long long mat = (long long)pair * kMat, vec = (long long)pair * kDim;
  float *S = ws + mat, *op = old + mat, *rp = rem + mat, *up = upd + mat, *hp = h1 + mat;
  float *qv = qf + vec, *kv = kf + vec, *vv = vf + vec, *ovv = old_v + vec, *bvv = bv + vec, *t2v = t2 + vec;
  float *nv = new_v + vec, *ovp = ov + vec, *o2v = o2 + vec, *om = omb + pair;
  bf16 *obv = ob + vec;
  for (long long tok = cu_seqlens[seq]; tok < cu_seqlens[seq + 1]; ++tok) {
    const long long row = (tok * kVHeads + h) * kDim, gate = tok * kVHeads + h;
    for (int i = tid; i < kDim; i += kStepThreads) qv[i] = f32(q_exp[row + i]);
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) kv[i] = f32(k_exp[row + i]);
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) vv[i] = f32(v[row + i]);
    __syncthreads();
    for (int i = tid; i < kMat; i += kStepThreads) op[i] = g[gate] * S[i];  // [v][k]
    __syncthreads();
    for (int c = tid; c < kDim; c += kStepThreads) {
      float acc = 0.0f;
      for (int j = 0; j < kDim; ++j) acc = fmaf(kv[j], op[c * kDim + j], acc);
      ovv[c] = acc;
    }
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) bvv[i] = beta[gate] * vv[i];
    __syncthreads();
    if (tid == 0) om[0] = 1.0f - beta[gate];
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) t2v[i] = om[0] * ovv[i];
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) nv[i] = bvv[i] + t2v[i];
    __syncthreads();
    for (int i = tid; i < kMat; i += kStepThreads) rp[i] = kv[i / kDim] * ovv[i % kDim];  // [k][v]
    __syncthreads();
    for (int i = tid; i < kMat; i += kStepThreads) up[i] = kv[i / kDim] * nv[i % kDim];
    __syncthreads();
    for (int i = tid; i < kMat; i += kStepThreads) hp[i] = op[i] - rp[(i % kDim) * kDim + i / kDim];
    __syncthreads();
    for (int i = tid; i < kMat; i += kStepThreads) S[i] = hp[i] + up[(i % kDim) * kDim + i / kDim];
    __syncthreads();
    for (int c = tid; c < kDim; c += kStepThreads) {
      float acc = 0.0f;
      for (int j = 0; j < kDim; ++j) acc = fmaf(qv[j], S[c * kDim + j], acc);
      ovp[c] = acc;
    }
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) o2v[i] = scale * ovp[i];
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) obv[i] = mkb_ops::store<bf16>(o2v[i]);
    __syncthreads();
    for (int i = tid; i < kDim; i += kStepThreads) output[row + i] = obv[i];
    __syncthreads();
  }
}

/* mkb:plan
scratch a32 fp32[total_seq_len * num_v_heads]
scratch x fp32[total_seq_len * num_v_heads]
scratch a_exp fp32[num_v_heads]
scratch a_neg fp32[num_v_heads]
scratch sp fp32[total_seq_len * num_v_heads]
scratch gm fp32[total_seq_len * num_v_heads]
scratch g fp32[total_seq_len * num_v_heads]
scratch b32 fp32[total_seq_len * num_v_heads]
scratch beta fp32[total_seq_len * num_v_heads]
scratch q_exp bf16[total_seq_len * num_v_heads * head_size]
scratch k_exp bf16[total_seq_len * num_v_heads * head_size]
scratch ws fp32[num_seqs * num_v_heads * head_size * head_size]
scratch qf fp32[num_seqs * num_v_heads * head_size]
scratch kf fp32[num_seqs * num_v_heads * head_size]
scratch vf fp32[num_seqs * num_v_heads * head_size]
scratch old fp32[num_seqs * num_v_heads * head_size * head_size]
scratch old_v fp32[num_seqs * num_v_heads * head_size]
scratch bv fp32[num_seqs * num_v_heads * head_size]
scratch omb fp32[num_seqs * num_v_heads]
scratch t2 fp32[num_seqs * num_v_heads * head_size]
scratch new_v fp32[num_seqs * num_v_heads * head_size]
scratch rem fp32[num_seqs * num_v_heads * head_size * head_size]
scratch upd fp32[num_seqs * num_v_heads * head_size * head_size]
scratch h1 fp32[num_seqs * num_v_heads * head_size * head_size]
scratch ov fp32[num_seqs * num_v_heads * head_size]
scratch o2 fp32[num_seqs * num_v_heads * head_size]
scratch ob bf16[num_seqs * num_v_heads * head_size]
launch to_f32 grid(ceil_div(total_seq_len * num_v_heads, 1024)) block(256) args(a32, a, i64(total_seq_len * num_v_heads))
launch add_heads grid(ceil_div(total_seq_len * num_v_heads, 1024)) block(256) args(x, a32, dt_bias, i64(total_seq_len * num_v_heads))
launch exp_map grid(1) block(256) args(a_exp, A_log, i64(num_v_heads))
launch neg_map grid(1) block(256) args(a_neg, a_exp, i64(num_v_heads))
launch softplus_map grid(ceil_div(total_seq_len * num_v_heads, 1024)) block(256) args(sp, x, i64(total_seq_len * num_v_heads))
launch mul_heads grid(ceil_div(total_seq_len * num_v_heads, 1024)) block(256) args(gm, a_neg, sp, i64(total_seq_len * num_v_heads))
launch exp_map grid(ceil_div(total_seq_len * num_v_heads, 1024)) block(256) args(g, gm, i64(total_seq_len * num_v_heads))
launch to_f32 grid(ceil_div(total_seq_len * num_v_heads, 1024)) block(256) args(b32, b, i64(total_seq_len * num_v_heads))
launch sigmoid_map grid(ceil_div(total_seq_len * num_v_heads, 1024)) block(256) args(beta, b32, i64(total_seq_len * num_v_heads))
launch repeat_heads grid(ceil_div(total_seq_len * num_v_heads * head_size, 1024)) block(256) args(q_exp, q, i64(total_seq_len * num_v_heads * head_size))
launch repeat_heads grid(ceil_div(total_seq_len * num_v_heads * head_size, 1024)) block(256) args(k_exp, k, i64(total_seq_len * num_v_heads * head_size))
launch fill_bf16 grid(ceil_div(total_seq_len * num_v_heads * head_size, 1024)) block(256) args(output, f32(0), i64(total_seq_len * num_v_heads * head_size))
launch fill_f32 grid(ceil_div(num_seqs * num_v_heads * head_size * head_size, 1024)) block(256) args(new_state, f32(0), i64(num_seqs * num_v_heads * head_size * head_size))
launch copy_f32 grid(ceil_div(num_seqs * num_v_heads * head_size * head_size, 1024)) block(256) args(ws, state, i64(num_seqs * num_v_heads * head_size * head_size))
launch gdn_steps grid(num_seqs * num_v_heads) block(512)
  args(ws, q_exp, k_exp, v, g, beta, cu_seqlens, output, qf, kf, vf, old, old_v, bv, omb, t2, new_v, rem, upd, h1, ov, o2, ob, f32(scale))
launch copy_f32 grid(ceil_div(num_seqs * num_v_heads * head_size * head_size, 1024)) block(256) args(new_state, ws, i64(num_seqs * num_v_heads * head_size * head_size))
*/
