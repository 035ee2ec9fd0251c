// The eager baseline: the device work of the original's reference(), eager PyTorch at fp32.
// Before the loop, one launch per eager operation. The loop body is 8 eager kernels per token:
//   q_t = q[:, :, t] * scale; e = gk[:, :, t].exp(); kv = k_t[..., None] * v_t[..., None, :];
//   h1 = h * e[..., None]; h = h1 + kv; p = q_t[..., None] * h; o_t = p.sum(-2); o[:, :, t] = o_t.
// The first two do not depend on the state: each is one launch over all the tokens before the loop
// (the same values, the same traffic). The other six cannot be a plan over 1024 tokens (a plan has no
// loops), so they are one launch, `gla_steps`: one 512-thread block per (64 value channels, b, h) steps
// through the tokens, each of the six operations one phase over the block's slice of eager's fp32
// tensors in global memory ([B, H, K, V] and [B, H, V]), a block barrier between phases as eager's
// kernels are separated by their launches. Every operation rounds once, as eager's kernels do; what
// is not emulated is the launch overhead between eager's 8 x 1024 kernels.
#include "mkb_ops.cuh"

constexpr int kKey = 256, kValue = 512, kCols = 64, kStepThreads = 512;

// x.transpose(1, 2).to(fp32) for q, k, v, gk (the transposed view keeps its strides: a plain cast)
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// torch.zeros_like(v) (o) and q.new_zeros(B, H, K, V) (h)
MKB_MAP(fill_f32, float, (float value), value)
// q[:, :, t] * K ** -0.5 and gk[:, :, t].exp(), for every t at once
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
MKB_MAP(exp_map, float, (const float *x), expf(x[i]))
// o.transpose(1, 2).to(bf16)
MKB_MAP(to_bf16, bf16, (const float *x), x[i])

// [B, T, H, D] rows: token t of (b, h) is row (b * T + t) * H + h. h and the per-token tensors are
// [B, H, K, V] / [B, H, V]; a block owns columns c0 .. c0 + 63 of its pair's slice. Scratch written and
// read in the same launch is never const or read through the read-only cache.
extern "C" __global__ void __launch_bounds__(kStepThreads)
gla_steps(float *hs, const float *kf, const float *vf, const float *qs, const float *decay, float *o32,
          float *kv, float *h1, float *prod, float *o_step, int seq_len, int num_heads) {
  const long long pair = blockIdx.y;
  const int b = blockIdx.y / num_heads, h = blockIdx.y % num_heads, c0 = blockIdx.x * kCols;
  const int tid = threadIdx.x;
  const long long mat = pair * kKey * kValue + c0;
  float *st = hs + mat, *kvp = kv + mat, *h1p = h1 + mat, *pp = prod + mat, *ot = o_step + pair * kValue + c0;
  for (int t = 0; t < seq_len; ++t) {
    const long long row = ((long long)b * seq_len + t) * num_heads + h;
    const float *k_t = kf + row * kKey, *q_t = qs + row * kKey, *e_t = decay + row * kKey, *v_t = vf + row * kValue + c0;
    for (int i = tid; i < kKey * kCols; i += kStepThreads) {
      const int r = i / kCols, c = i % kCols;
      kvp[r * kValue + c] = k_t[r] * v_t[c];
    }
    __syncthreads();
    for (int i = tid; i < kKey * kCols; i += kStepThreads) {
      const int r = i / kCols, c = i % kCols;
      h1p[r * kValue + c] = st[r * kValue + c] * e_t[r];
    }
    __syncthreads();
    for (int i = tid; i < kKey * kCols; i += kStepThreads) {
      const int r = i / kCols, c = i % kCols;
      st[r * kValue + c] = h1p[r * kValue + c] + kvp[r * kValue + c];
    }
    __syncthreads();
    for (int i = tid; i < kKey * kCols; i += kStepThreads) {
      const int r = i / kCols, c = i % kCols;
      pp[r * kValue + c] = q_t[r] * st[r * kValue + c];
    }
    __syncthreads();
    for (int c = tid; c < kCols; c += kStepThreads) {
      float acc = 0.0f;
      for (int r = 0; r < kKey; ++r) acc += pp[r * kValue + c];
      ot[c] = acc;
    }
    __syncthreads();
    for (int c = tid; c < kCols; c += kStepThreads) o32[row * kValue + c0 + c] = ot[c];
    __syncthreads();
  }
}

/* mkb:plan
scratch qf fp32[batch_size * seq_len * num_heads * key_dim]
scratch kf fp32[batch_size * seq_len * num_heads * key_dim]
scratch vf fp32[batch_size * seq_len * num_heads * value_dim]
scratch gf fp32[batch_size * seq_len * num_heads * key_dim]
scratch o32 fp32[batch_size * seq_len * num_heads * value_dim]
scratch hs fp32[batch_size * num_heads * key_dim * value_dim]
scratch qs fp32[batch_size * seq_len * num_heads * key_dim]
scratch decay fp32[batch_size * seq_len * num_heads * key_dim]
scratch kv fp32[batch_size * num_heads * key_dim * value_dim]
scratch h1 fp32[batch_size * num_heads * key_dim * value_dim]
scratch prod fp32[batch_size * num_heads * key_dim * value_dim]
scratch o_step fp32[batch_size * num_heads * value_dim]
launch to_f32 grid(ceil_div(batch_size * seq_len * num_heads * key_dim, 1024)) block(256) args(qf, q, i64(batch_size * seq_len * num_heads * key_dim))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_heads * key_dim, 1024)) block(256) args(kf, k, i64(batch_size * seq_len * num_heads * key_dim))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_heads * value_dim, 1024)) block(256) args(vf, v, i64(batch_size * seq_len * num_heads * value_dim))
launch to_f32 grid(ceil_div(batch_size * seq_len * num_heads * key_dim, 1024)) block(256) args(gf, gk, i64(batch_size * seq_len * num_heads * key_dim))
launch fill_f32 grid(ceil_div(batch_size * seq_len * num_heads * value_dim, 1024)) block(256) args(o32, f32(0), i64(batch_size * seq_len * num_heads * value_dim))
launch fill_f32 grid(ceil_div(batch_size * num_heads * key_dim * value_dim, 1024)) block(256) args(hs, f32(0), i64(batch_size * num_heads * key_dim * value_dim))
launch mul_scalar grid(ceil_div(batch_size * seq_len * num_heads * key_dim, 1024)) block(256) args(qs, qf, f32(scale), i64(batch_size * seq_len * num_heads * key_dim))
launch exp_map grid(ceil_div(batch_size * seq_len * num_heads * key_dim, 1024)) block(256) args(decay, gf, i64(batch_size * seq_len * num_heads * key_dim))
launch gla_steps grid(value_dim / 64, batch_size * num_heads) block(512)
  args(hs, kf, vf, qs, decay, o32, kv, h1, prod, o_step, i32(seq_len), i32(num_heads))
launch to_bf16 grid(ceil_div(batch_size * seq_len * num_heads * value_dim, 1024)) block(256) args(o, o32, i64(batch_size * seq_len * num_heads * value_dim))
*/
