// The float64 anchor: the reconstructed Gemma 3n audio local attention exact in double.
// For frame t of batch b and head n, the window is the keys s = t - r, r = 0..12 (the chunked local
// causal window of Hugging Face's Gemma3nAudioAttention, written per query), a key being valid when
// s >= 0 and mask[b, s] is False. With q = (x Wq^T) * (head_dim^-0.5 / softplus(0)) * softplus(per_dim_scale):
//   logit(r) = q . k_s + q . P[r],  P[r] = [sin(r * inv), cos(r * inv)] Wpos^T  (head n's 64 columns)
//   logit    = cap * tanh(logit / cap),  softmax over the valid r,  out = sum_r p(r) v_s.
#include "mkb_ops.cuh"

MKB_MAP(anchor_to_f64, double, (const float *a), f64(a[i]))
// sig[p, j] for relative distance p = 0..12: sin(p * inv[j]) for j < 256, cos(p * inv[j - 256]) above.
MKB_MAP(anchor_timing, double, (const float *inv, int half),
        (i % (2 * half)) < half ? sin((double)(i / (2 * half)) * f64(inv[i % (2 * half)]))
                                : cos((double)(i / (2 * half)) * f64(inv[i % (2 * half) - half])))

constexpr int kHeads = 8, kHeadDim = 64, kHidden = 512, kWindow = 13;

// One thread per (b, t, head).
extern "C" __global__ void anchor_local_attention(double *out, const double *q, const double *k, const double *v,
                                                  const double *pos, const unsigned char *mask,
                                                  const float *per_dim_scale, double cap, int batch, int seq) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)batch * seq * kHeads) return;
  const int n = (int)(idx % kHeads);
  const long long bt = idx / kHeads;  // b * seq + t
  const int t = (int)(bt % seq);
  const long long b = bt / seq;
  const double q_scale = 0.125 / log1p(exp(0.0));  // head_dim ** -0.5 / softplus(0)
  double qs[kHeadDim];
  for (int d = 0; d < kHeadDim; ++d) {
    const double sp = log1p(exp(f64(per_dim_scale[d])));
    qs[d] = q[bt * kHidden + n * kHeadDim + d] * q_scale * sp;
  }
  double logit[kWindow];
  bool valid[kWindow];
  double mx = -1e300;
  for (int r = 0; r < kWindow; ++r) {
    const int s = t - r;
    valid[r] = s >= 0 && mask[b * seq + s] == 0;
    logit[r] = 0.0;
    if (!valid[r]) continue;
    const double *kr = k + (b * seq + s) * kHidden + n * kHeadDim;
    const double *pr = pos + (long long)r * kHidden + n * kHeadDim;
    double ac = 0.0, bd = 0.0;
    for (int d = 0; d < kHeadDim; ++d) {
      ac += qs[d] * kr[d];
      bd += qs[d] * pr[d];
    }
    const double l = cap * tanh((ac + bd) / cap);
    logit[r] = l;
    mx = l > mx ? l : mx;
  }
  double sum = 0.0;
  for (int r = 0; r < kWindow; ++r)
    if (valid[r]) {
      logit[r] = exp(logit[r] - mx);
      sum += logit[r];
    }
  double acc[kHeadDim];
  for (int d = 0; d < kHeadDim; ++d) acc[d] = 0.0;
  for (int r = 0; r < kWindow; ++r) {
    if (!valid[r]) continue;
    const double p = logit[r] / sum;
    const double *vr = v + (b * seq + t - r) * kHidden + n * kHeadDim;
    for (int d = 0; d < kHeadDim; ++d) acc[d] += p * vr[d];
  }
  for (int d = 0; d < kHeadDim; ++d) out[bt * kHidden + n * kHeadDim + d] = acc[d];
}

/* mkb:plan
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch wq64 fp64[hidden_size * hidden_size]
scratch wk64 fp64[hidden_size * hidden_size]
scratch wv64 fp64[hidden_size * hidden_size]
scratch wp64 fp64[hidden_size * hidden_size]
scratch q64 fp64[batch_size * seq_len * hidden_size]
scratch k64 fp64[batch_size * seq_len * hidden_size]
scratch v64 fp64[batch_size * seq_len * hidden_size]
scratch sig64 fp64[num_rel_positions * hidden_size]
scratch pos64 fp64[num_rel_positions * hidden_size]
launch anchor_to_f64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch anchor_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wq64, q_proj_weight, i64(hidden_size * hidden_size))
launch anchor_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wk64, k_proj_weight, i64(hidden_size * hidden_size))
launch anchor_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wv64, v_proj_weight, i64(hidden_size * hidden_size))
launch anchor_to_f64 grid(ceil_div(hidden_size * hidden_size, 1024)) block(256) args(wp64, pos_proj_weight, i64(hidden_size * hidden_size))
matmul c(q64) a(x64) b(wq64) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
matmul c(k64) a(x64) b(wk64) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
matmul c(v64) a(x64) b(wv64) m(batch_size * seq_len) n(hidden_size) k(hidden_size) transpose_b
launch anchor_timing grid(ceil_div(num_rel_positions * hidden_size, 1024)) block(256)
  args(sig64, inv_timescales, i32(num_timescales), i64(num_rel_positions * hidden_size))
matmul c(pos64) a(sig64) b(wp64) m(num_rel_positions) n(hidden_size) k(hidden_size) transpose_b
launch anchor_local_attention grid(ceil_div(batch_size * seq_len * num_heads, 128)) block(128)
  args(context_vectors, q64, k64, v64, pos64, mask, per_dim_scale, f64(attention_logits_soft_cap), i32(batch_size), i32(seq_len))
*/
