// The eager baseline: the device work of the reconstructed reference as eager PyTorch runs it, one
// launch per operation at eager's dtypes (bf16 tensors, fp32 rotary and softmax), cuBLAS matmul steps
// where eager calls cuBLAS. The per-sequence loop is written out: its lengths are fixed (SEQ_SPLITS), so
// each sequence's matmuls have their own shapes; one scratch set sized for the longest sequence (680)
// is reused by every sequence, in stream order.
#include "mkb_ops.cuh"

namespace {
constexpr int kHeads = 16, kHeadDim = 72, kHalf = 36, kEmbed = kHeads * kHeadDim, kQkv = 3 * kEmbed;
} // namespace

// qkv = F.linear(hidden_states, qkv_weight, qkv_bias): the bias added to cuBLAS's fp32 result, one rounding
// (eager's addmm adds it in cuBLAS's epilogue). Also the output projection's bias.
MKB_MAP(add_bias_bf16, bf16, (const float *x, const bf16 *bias, unsigned width), x[i] + f32(bias[(unsigned)i % width]))
// q.float(), k.float(): the strided views qkv[:, 0] and qkv[:, 1] of [tokens, 3, 16, 72] copied to fp32
MKB_MAP(part_to_f32, float, (const bf16 *qkv, unsigned part),
        f32(qkv[(long long)((unsigned)i / kEmbed) * kQkv + part * kEmbed + (unsigned)i % kEmbed]))
// cos.float(), sin.float()
MKB_MAP(to_f32, float, (const bf16 *x), f32(x[i]))
// x * cos, rotate_half(x) * sin
MKB_MAP(mul, float, (const float *a, const float *b), a[i] * b[i])
// -x2 with x2 = x[..., 36:]   ([tokens, 16, 36])
MKB_MAP(neg_upper_half, float, (const float *x), -x[(long long)((unsigned)i / kHalf) * kHeadDim + kHalf + (unsigned)i % kHalf])
// torch.cat((-x2, x1), dim=-1)
MKB_MAP(cat_halves, float, (const float *neg_x2, const float *x),
        (unsigned)i % kHeadDim < kHalf ? neg_x2[(long long)((unsigned)i / kHeadDim) * kHalf + (unsigned)i % kHeadDim]
                                       : x[(long long)((unsigned)i / kHeadDim) * kHeadDim + (unsigned)i % kHeadDim - kHalf])
// q_embed = (x * cos) + (rotate_half(x) * sin)
MKB_MAP(add, float, (const float *a, const float *b), a[i] + b[i])
// q_embed.to(bf16); probs.to(bf16)
MKB_MAP(f32_to_bf16, bf16, (const float *x), x[i])
// scores * scale (bf16 tensor times a Python float)
MKB_MAP(scale_bf16, bf16, (const bf16 *x, float s), f32(x[i]) * s)

__device__ __forceinline__ long long sequence_start(const long long *cu_seqlens, int seq) {
  return seq == 0 ? 0 : cu_seqlens[seq - 1];
}

// q_i, k_i, v_i = q[s:e].transpose(0, 1), ...: head-major [16, len, 72] copies (eager's bmm reads the views).
extern "C" __global__ void gather_sequence(bf16 *q_seq, bf16 *k_seq, bf16 *v_seq, const bf16 *q_rot, const bf16 *k_rot,
                                           const bf16 *qkv, const long long *cu_seqlens, int seq, int len) {
  const long long start = sequence_start(cu_seqlens, seq);
  const int n = kHeads * len * kHeadDim;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n; e += gridDim.x * blockDim.x) {
    const int h = e / (len * kHeadDim), l = (e / kHeadDim) % len, d = e % kHeadDim;
    const long long token = start + l;
    q_seq[e] = q_rot[token * kEmbed + h * kHeadDim + d];
    k_seq[e] = k_rot[token * kEmbed + h * kHeadDim + d];
    v_seq[e] = qkv[token * kQkv + 2 * kEmbed + h * kHeadDim + d];
  }
}

// torch.softmax(scores, dim=-1, dtype=float32): one block per row, exp(x - max) / sum in fp32.
extern "C" __global__ void softmax_rows(float *out, const bf16 *x, int cols) {
  const long long row = blockIdx.x;
  const bf16 *xr = x + row * cols;
  float m = -__int_as_float(0x7f800000);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, f32(xr[c]));
  m = mkb_ops::block_reduce<mkb_ops::max_op>(m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(f32(xr[c]) - m);
  s = mkb_ops::block_reduce<mkb_ops::sum_op>(s);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[row * cols + c] = expf(f32(xr[c]) - m) / s;
}

// torch.cat(outputs, dim=0) of the [len, 16, 72] views: sequence seq's rows of attn [tokens, 1152].
extern "C" __global__ void scatter_sequence(bf16 *attn, const bf16 *o_seq, const long long *cu_seqlens, int seq, int len) {
  const long long start = sequence_start(cu_seqlens, seq);
  const int n = kHeads * len * kHeadDim;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n; e += gridDim.x * blockDim.x) {
    const int h = e / (len * kHeadDim), l = (e / kHeadDim) % len, d = e % kHeadDim;
    attn[(start + l) * kEmbed + h * kHeadDim + d] = o_seq[e];
  }
}

/* mkb:plan
scratch qkv_mm fp32[total_seq_len * qkv_dim]
scratch qkv bf16[total_seq_len * qkv_dim]
scratch qf fp32[total_seq_len * embed_dim]
scratch kf fp32[total_seq_len * embed_dim]
scratch cf fp32[total_seq_len * embed_dim]
scratch sf fp32[total_seq_len * embed_dim]
scratch t1 fp32[total_seq_len * embed_dim]
scratch neg_half fp32[total_seq_len * embed_dim / 2]
scratch rot fp32[total_seq_len * embed_dim]
scratch t2 fp32[total_seq_len * embed_dim]
scratch emb fp32[total_seq_len * embed_dim]
scratch q_rot bf16[total_seq_len * embed_dim]
scratch k_rot bf16[total_seq_len * embed_dim]
scratch q_seq bf16[num_heads * 680 * head_dim]
scratch k_seq bf16[num_heads * 680 * head_dim]
scratch v_seq bf16[num_heads * 680 * head_dim]
scratch scores bf16[num_heads * 680 * 680]
scratch scaled bf16[num_heads * 680 * 680]
scratch probs32 fp32[num_heads * 680 * 680]
scratch probs bf16[num_heads * 680 * 680]
scratch o_seq bf16[num_heads * 680 * head_dim]
scratch attn bf16[total_seq_len * embed_dim]
scratch proj_mm fp32[total_seq_len * embed_dim]
matmul c(qkv_mm) a(hidden_states) b(qkv_weight) m(total_seq_len) n(qkv_dim) k(embed_dim) transpose_b
launch add_bias_bf16 grid(ceil_div(total_seq_len * qkv_dim, 1024)) block(256) args(qkv, qkv_mm, qkv_bias, u32(qkv_dim), i64(total_seq_len * qkv_dim))
launch part_to_f32 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(qf, qkv, u32(0), i64(total_seq_len * embed_dim))
launch part_to_f32 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(kf, qkv, u32(1), i64(total_seq_len * embed_dim))
launch to_f32 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(cf, cos, i64(total_seq_len * embed_dim))
launch to_f32 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(sf, sin, i64(total_seq_len * embed_dim))
launch mul grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(t1, qf, cf, i64(total_seq_len * embed_dim))
launch neg_upper_half grid(ceil_div(total_seq_len * embed_dim / 2, 1024)) block(256) args(neg_half, qf, i64(total_seq_len * embed_dim / 2))
launch cat_halves grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(rot, neg_half, qf, i64(total_seq_len * embed_dim))
launch mul grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(t2, rot, sf, i64(total_seq_len * embed_dim))
launch add grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(emb, t1, t2, i64(total_seq_len * embed_dim))
launch f32_to_bf16 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(q_rot, emb, i64(total_seq_len * embed_dim))
launch mul grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(t1, kf, cf, i64(total_seq_len * embed_dim))
launch neg_upper_half grid(ceil_div(total_seq_len * embed_dim / 2, 1024)) block(256) args(neg_half, kf, i64(total_seq_len * embed_dim / 2))
launch cat_halves grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(rot, neg_half, kf, i64(total_seq_len * embed_dim))
launch mul grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(t2, rot, sf, i64(total_seq_len * embed_dim))
launch add grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(emb, t1, t2, i64(total_seq_len * embed_dim))
launch f32_to_bf16 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(k_rot, emb, i64(total_seq_len * embed_dim))
# sequence 0: 255 tokens
launch gather_sequence grid(1148) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(0), i32(255))
matmul c(scores) a(q_seq) b(k_seq) m(255) n(255) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 255 * 255))
launch softmax_rows grid(num_heads * 255) block(128) args(probs32, scaled, i32(255))
launch f32_to_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(probs, probs32, i64(num_heads * 255 * 255))
matmul c(o_seq) a(probs) b(v_seq) m(255) n(head_dim) k(255) batch(num_heads)
launch scatter_sequence grid(1148) block(256) args(attn, o_seq, cu_seqlens, i32(0), i32(255))
# sequence 1: 85 tokens
launch gather_sequence grid(383) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(1), i32(85))
matmul c(scores) a(q_seq) b(k_seq) m(85) n(85) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 85 * 85))
launch softmax_rows grid(num_heads * 85) block(128) args(probs32, scaled, i32(85))
launch f32_to_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(probs, probs32, i64(num_heads * 85 * 85))
matmul c(o_seq) a(probs) b(v_seq) m(85) n(head_dim) k(85) batch(num_heads)
launch scatter_sequence grid(383) block(256) args(attn, o_seq, cu_seqlens, i32(1), i32(85))
# sequence 2: 425 tokens
launch gather_sequence grid(1913) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(2), i32(425))
matmul c(scores) a(q_seq) b(k_seq) m(425) n(425) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 425 * 425, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 425 * 425))
launch softmax_rows grid(num_heads * 425) block(128) args(probs32, scaled, i32(425))
launch f32_to_bf16 grid(ceil_div(num_heads * 425 * 425, 1024)) block(256) args(probs, probs32, i64(num_heads * 425 * 425))
matmul c(o_seq) a(probs) b(v_seq) m(425) n(head_dim) k(425) batch(num_heads)
launch scatter_sequence grid(1913) block(256) args(attn, o_seq, cu_seqlens, i32(2), i32(425))
# sequence 3: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(3), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(3), i32(170))
# sequence 4: 680 tokens
launch gather_sequence grid(3060) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(4), i32(680))
matmul c(scores) a(q_seq) b(k_seq) m(680) n(680) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 680 * 680, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 680 * 680))
launch softmax_rows grid(num_heads * 680) block(128) args(probs32, scaled, i32(680))
launch f32_to_bf16 grid(ceil_div(num_heads * 680 * 680, 1024)) block(256) args(probs, probs32, i64(num_heads * 680 * 680))
matmul c(o_seq) a(probs) b(v_seq) m(680) n(head_dim) k(680) batch(num_heads)
launch scatter_sequence grid(3060) block(256) args(attn, o_seq, cu_seqlens, i32(4), i32(680))
# sequence 5: 85 tokens
launch gather_sequence grid(383) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(5), i32(85))
matmul c(scores) a(q_seq) b(k_seq) m(85) n(85) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 85 * 85))
launch softmax_rows grid(num_heads * 85) block(128) args(probs32, scaled, i32(85))
launch f32_to_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(probs, probs32, i64(num_heads * 85 * 85))
matmul c(o_seq) a(probs) b(v_seq) m(85) n(head_dim) k(85) batch(num_heads)
launch scatter_sequence grid(383) block(256) args(attn, o_seq, cu_seqlens, i32(5), i32(85))
# sequence 6: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(6), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(6), i32(170))
# sequence 7: 340 tokens
launch gather_sequence grid(1530) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(7), i32(340))
matmul c(scores) a(q_seq) b(k_seq) m(340) n(340) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 340 * 340, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 340 * 340))
launch softmax_rows grid(num_heads * 340) block(128) args(probs32, scaled, i32(340))
launch f32_to_bf16 grid(ceil_div(num_heads * 340 * 340, 1024)) block(256) args(probs, probs32, i64(num_heads * 340 * 340))
matmul c(o_seq) a(probs) b(v_seq) m(340) n(head_dim) k(340) batch(num_heads)
launch scatter_sequence grid(1530) block(256) args(attn, o_seq, cu_seqlens, i32(7), i32(340))
# sequence 8: 85 tokens
launch gather_sequence grid(383) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(8), i32(85))
matmul c(scores) a(q_seq) b(k_seq) m(85) n(85) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 85 * 85))
launch softmax_rows grid(num_heads * 85) block(128) args(probs32, scaled, i32(85))
launch f32_to_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(probs, probs32, i64(num_heads * 85 * 85))
matmul c(o_seq) a(probs) b(v_seq) m(85) n(head_dim) k(85) batch(num_heads)
launch scatter_sequence grid(383) block(256) args(attn, o_seq, cu_seqlens, i32(8), i32(85))
# sequence 9: 510 tokens
launch gather_sequence grid(2295) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(9), i32(510))
matmul c(scores) a(q_seq) b(k_seq) m(510) n(510) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 510 * 510, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 510 * 510))
launch softmax_rows grid(num_heads * 510) block(128) args(probs32, scaled, i32(510))
launch f32_to_bf16 grid(ceil_div(num_heads * 510 * 510, 1024)) block(256) args(probs, probs32, i64(num_heads * 510 * 510))
matmul c(o_seq) a(probs) b(v_seq) m(510) n(head_dim) k(510) batch(num_heads)
launch scatter_sequence grid(2295) block(256) args(attn, o_seq, cu_seqlens, i32(9), i32(510))
# sequence 10: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(10), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(10), i32(170))
# sequence 11: 255 tokens
launch gather_sequence grid(1148) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(11), i32(255))
matmul c(scores) a(q_seq) b(k_seq) m(255) n(255) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 255 * 255))
launch softmax_rows grid(num_heads * 255) block(128) args(probs32, scaled, i32(255))
launch f32_to_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(probs, probs32, i64(num_heads * 255 * 255))
matmul c(o_seq) a(probs) b(v_seq) m(255) n(head_dim) k(255) batch(num_heads)
launch scatter_sequence grid(1148) block(256) args(attn, o_seq, cu_seqlens, i32(11), i32(255))
# sequence 12: 85 tokens
launch gather_sequence grid(383) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(12), i32(85))
matmul c(scores) a(q_seq) b(k_seq) m(85) n(85) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 85 * 85))
launch softmax_rows grid(num_heads * 85) block(128) args(probs32, scaled, i32(85))
launch f32_to_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(probs, probs32, i64(num_heads * 85 * 85))
matmul c(o_seq) a(probs) b(v_seq) m(85) n(head_dim) k(85) batch(num_heads)
launch scatter_sequence grid(383) block(256) args(attn, o_seq, cu_seqlens, i32(12), i32(85))
# sequence 13: 340 tokens
launch gather_sequence grid(1530) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(13), i32(340))
matmul c(scores) a(q_seq) b(k_seq) m(340) n(340) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 340 * 340, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 340 * 340))
launch softmax_rows grid(num_heads * 340) block(128) args(probs32, scaled, i32(340))
launch f32_to_bf16 grid(ceil_div(num_heads * 340 * 340, 1024)) block(256) args(probs, probs32, i64(num_heads * 340 * 340))
matmul c(o_seq) a(probs) b(v_seq) m(340) n(head_dim) k(340) batch(num_heads)
launch scatter_sequence grid(1530) block(256) args(attn, o_seq, cu_seqlens, i32(13), i32(340))
# sequence 14: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(14), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(14), i32(170))
# sequence 15: 425 tokens
launch gather_sequence grid(1913) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(15), i32(425))
matmul c(scores) a(q_seq) b(k_seq) m(425) n(425) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 425 * 425, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 425 * 425))
launch softmax_rows grid(num_heads * 425) block(128) args(probs32, scaled, i32(425))
launch f32_to_bf16 grid(ceil_div(num_heads * 425 * 425, 1024)) block(256) args(probs, probs32, i64(num_heads * 425 * 425))
matmul c(o_seq) a(probs) b(v_seq) m(425) n(head_dim) k(425) batch(num_heads)
launch scatter_sequence grid(1913) block(256) args(attn, o_seq, cu_seqlens, i32(15), i32(425))
# sequence 16: 85 tokens
launch gather_sequence grid(383) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(16), i32(85))
matmul c(scores) a(q_seq) b(k_seq) m(85) n(85) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 85 * 85))
launch softmax_rows grid(num_heads * 85) block(128) args(probs32, scaled, i32(85))
launch f32_to_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(probs, probs32, i64(num_heads * 85 * 85))
matmul c(o_seq) a(probs) b(v_seq) m(85) n(head_dim) k(85) batch(num_heads)
launch scatter_sequence grid(383) block(256) args(attn, o_seq, cu_seqlens, i32(16), i32(85))
# sequence 17: 255 tokens
launch gather_sequence grid(1148) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(17), i32(255))
matmul c(scores) a(q_seq) b(k_seq) m(255) n(255) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 255 * 255))
launch softmax_rows grid(num_heads * 255) block(128) args(probs32, scaled, i32(255))
launch f32_to_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(probs, probs32, i64(num_heads * 255 * 255))
matmul c(o_seq) a(probs) b(v_seq) m(255) n(head_dim) k(255) batch(num_heads)
launch scatter_sequence grid(1148) block(256) args(attn, o_seq, cu_seqlens, i32(17), i32(255))
# sequence 18: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(18), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(18), i32(170))
# sequence 19: 85 tokens
launch gather_sequence grid(383) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(19), i32(85))
matmul c(scores) a(q_seq) b(k_seq) m(85) n(85) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 85 * 85))
launch softmax_rows grid(num_heads * 85) block(128) args(probs32, scaled, i32(85))
launch f32_to_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(probs, probs32, i64(num_heads * 85 * 85))
matmul c(o_seq) a(probs) b(v_seq) m(85) n(head_dim) k(85) batch(num_heads)
launch scatter_sequence grid(383) block(256) args(attn, o_seq, cu_seqlens, i32(19), i32(85))
# sequence 20: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(20), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(20), i32(170))
# sequence 21: 510 tokens
launch gather_sequence grid(2295) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(21), i32(510))
matmul c(scores) a(q_seq) b(k_seq) m(510) n(510) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 510 * 510, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 510 * 510))
launch softmax_rows grid(num_heads * 510) block(128) args(probs32, scaled, i32(510))
launch f32_to_bf16 grid(ceil_div(num_heads * 510 * 510, 1024)) block(256) args(probs, probs32, i64(num_heads * 510 * 510))
matmul c(o_seq) a(probs) b(v_seq) m(510) n(head_dim) k(510) batch(num_heads)
launch scatter_sequence grid(2295) block(256) args(attn, o_seq, cu_seqlens, i32(21), i32(510))
# sequence 22: 340 tokens
launch gather_sequence grid(1530) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(22), i32(340))
matmul c(scores) a(q_seq) b(k_seq) m(340) n(340) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 340 * 340, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 340 * 340))
launch softmax_rows grid(num_heads * 340) block(128) args(probs32, scaled, i32(340))
launch f32_to_bf16 grid(ceil_div(num_heads * 340 * 340, 1024)) block(256) args(probs, probs32, i64(num_heads * 340 * 340))
matmul c(o_seq) a(probs) b(v_seq) m(340) n(head_dim) k(340) batch(num_heads)
launch scatter_sequence grid(1530) block(256) args(attn, o_seq, cu_seqlens, i32(22), i32(340))
# sequence 23: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(23), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(23), i32(170))
# sequence 24: 255 tokens
launch gather_sequence grid(1148) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(24), i32(255))
matmul c(scores) a(q_seq) b(k_seq) m(255) n(255) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 255 * 255))
launch softmax_rows grid(num_heads * 255) block(128) args(probs32, scaled, i32(255))
launch f32_to_bf16 grid(ceil_div(num_heads * 255 * 255, 1024)) block(256) args(probs, probs32, i64(num_heads * 255 * 255))
matmul c(o_seq) a(probs) b(v_seq) m(255) n(head_dim) k(255) batch(num_heads)
launch scatter_sequence grid(1148) block(256) args(attn, o_seq, cu_seqlens, i32(24), i32(255))
# sequence 25: 170 tokens
launch gather_sequence grid(765) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(25), i32(170))
matmul c(scores) a(q_seq) b(k_seq) m(170) n(170) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 170 * 170))
launch softmax_rows grid(num_heads * 170) block(128) args(probs32, scaled, i32(170))
launch f32_to_bf16 grid(ceil_div(num_heads * 170 * 170, 1024)) block(256) args(probs, probs32, i64(num_heads * 170 * 170))
matmul c(o_seq) a(probs) b(v_seq) m(170) n(head_dim) k(170) batch(num_heads)
launch scatter_sequence grid(765) block(256) args(attn, o_seq, cu_seqlens, i32(25), i32(170))
# sequence 26: 85 tokens
launch gather_sequence grid(383) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(26), i32(85))
matmul c(scores) a(q_seq) b(k_seq) m(85) n(85) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 85 * 85))
launch softmax_rows grid(num_heads * 85) block(128) args(probs32, scaled, i32(85))
launch f32_to_bf16 grid(ceil_div(num_heads * 85 * 85, 1024)) block(256) args(probs, probs32, i64(num_heads * 85 * 85))
matmul c(o_seq) a(probs) b(v_seq) m(85) n(head_dim) k(85) batch(num_heads)
launch scatter_sequence grid(383) block(256) args(attn, o_seq, cu_seqlens, i32(26), i32(85))
# sequence 27: 623 tokens
launch gather_sequence grid(2804) block(256) args(q_seq, k_seq, v_seq, q_rot, k_rot, qkv, cu_seqlens, i32(27), i32(623))
matmul c(scores) a(q_seq) b(k_seq) m(623) n(623) k(head_dim) batch(num_heads) transpose_b
launch scale_bf16 grid(ceil_div(num_heads * 623 * 623, 1024)) block(256) args(scaled, scores, f32(scale), i64(num_heads * 623 * 623))
launch softmax_rows grid(num_heads * 623) block(128) args(probs32, scaled, i32(623))
launch f32_to_bf16 grid(ceil_div(num_heads * 623 * 623, 1024)) block(256) args(probs, probs32, i64(num_heads * 623 * 623))
matmul c(o_seq) a(probs) b(v_seq) m(623) n(head_dim) k(623) batch(num_heads)
launch scatter_sequence grid(2804) block(256) args(attn, o_seq, cu_seqlens, i32(27), i32(623))
matmul c(proj_mm) a(attn) b(proj_weight) m(total_seq_len) n(embed_dim) k(embed_dim) transpose_b
launch add_bias_bf16 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(output, proj_mm, proj_bias, u32(embed_dim), i64(total_seq_len * embed_dim))
*/
