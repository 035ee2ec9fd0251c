// The float64 anchor: the semantics with every intermediate in double and no rounding. Projections are
// fp64 matmul steps on fp64 copies of the inputs; the rotary embedding, the per-sequence attention
// (exact softmax) and the biases are kernels here.
#include "mkb_ops.cuh"

namespace {
constexpr int kSequences = 28, kHeads = 16, kHeadDim = 72, kHalf = 36, kEmbed = kHeads * kHeadDim, kQkv = 3 * kEmbed;
constexpr int kMaxLen = 1024;  // longer than any sequence (680)
} // namespace

MKB_MAP(to_f64, double, (const bf16 *x), f64(x[i]))
// qkv = hidden @ qkv_weight^T + qkv_bias ; output = attn @ proj_weight^T + proj_bias
MKB_MAP(add_bias, double, (const double *x, const bf16 *bias, long long width), x[i] + f64(bias[i % width]))

// q and k after the rotary embedding, [tokens, 16, 72] each: x * cos + rotate_half(x) * sin with
// rotate_half(x) = cat(-x[36:], x[:36]).
extern "C" __global__ void rope(double *q_rot, double *k_rot, const double *qkv, const bf16 *cos_t, const bf16 *sin_t,
                                long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long t = i / kEmbed;
    const int hd = (int)(i % kEmbed), d = hd % kHeadDim, head_base = hd - d;
    const double c = f64(cos_t[i]), s = f64(sin_t[i]);
    const int partner = d < kHalf ? d + kHalf : d - kHalf;
    const double sign = d < kHalf ? -1.0 : 1.0;
    const double *q = qkv + t * kQkv + head_base, *k = q + kEmbed;
    q_rot[i] = q[d] * c + sign * q[partner] * s;
    k_rot[i] = k[d] * c + sign * k[partner] * s;
  }
}

// One block per (token, head): softmax(scale * q . k_j) over the keys j of the token's own sequence,
// then the weighted sum of v_j. cu_seqlens holds the 28 sequence ends.
extern "C" __global__ void __launch_bounds__(128)
attention(double *attn, const double *q_rot, const double *k_rot, const double *qkv, const long long *cu_seqlens,
          double scale) {
  __shared__ double q[kHeadDim];
  __shared__ double p[kMaxLen];
  const long long t = blockIdx.x;
  const int h = blockIdx.y;
  long long start = 0, end = 0;
  for (int s = 0; s < kSequences; ++s) {
    end = cu_seqlens[s];
    if (t < end) break;
    start = end;
  }
  const int len = (int)(end - start);
  if (threadIdx.x < kHeadDim) q[threadIdx.x] = q_rot[t * kEmbed + h * kHeadDim + threadIdx.x];
  __syncthreads();
  double local_max = -__longlong_as_double(0x7ff0000000000000ll);
  for (int j = threadIdx.x; j < len; j += blockDim.x) {
    const double *k = k_rot + (start + j) * kEmbed + h * kHeadDim;
    double dot = 0.0;
    for (int d = 0; d < kHeadDim; ++d) dot += q[d] * k[d];
    p[j] = dot * scale;
    local_max = fmax(local_max, p[j]);
  }
  const double row_max = mkb_ops::block_reduce<mkb_ops::max_op>(local_max);
  double local_sum = 0.0;
  for (int j = threadIdx.x; j < len; j += blockDim.x) {
    p[j] = exp(p[j] - row_max);
    local_sum += p[j];
  }
  const double total = mkb_ops::block_reduce<mkb_ops::sum_op>(local_sum);
  __syncthreads();
  if (threadIdx.x < kHeadDim) {
    double acc = 0.0;
    for (int j = 0; j < len; ++j) acc += p[j] * qkv[(start + j) * kQkv + 2 * kEmbed + h * kHeadDim + threadIdx.x];
    attn[t * kEmbed + h * kHeadDim + threadIdx.x] = acc / total;
  }
}

/* mkb:plan
scratch hidden64 fp64[total_seq_len * embed_dim]
scratch wqkv64 fp64[qkv_dim * embed_dim]
scratch qkv_mm fp64[total_seq_len * qkv_dim]
scratch qkv64 fp64[total_seq_len * qkv_dim]
scratch q_rot fp64[total_seq_len * embed_dim]
scratch k_rot fp64[total_seq_len * embed_dim]
scratch attn64 fp64[total_seq_len * embed_dim]
scratch wproj64 fp64[embed_dim * embed_dim]
scratch proj_mm fp64[total_seq_len * embed_dim]
launch to_f64 grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256) args(hidden64, hidden_states, i64(total_seq_len * embed_dim))
launch to_f64 grid(ceil_div(qkv_dim * embed_dim, 1024)) block(256) args(wqkv64, qkv_weight, i64(qkv_dim * embed_dim))
matmul c(qkv_mm) a(hidden64) b(wqkv64) m(total_seq_len) n(qkv_dim) k(embed_dim) transpose_b
launch add_bias grid(ceil_div(total_seq_len * qkv_dim, 1024)) block(256)
  args(qkv64, qkv_mm, qkv_bias, i64(qkv_dim), i64(total_seq_len * qkv_dim))
launch rope grid(ceil_div(total_seq_len * embed_dim, 256)) block(256)
  args(q_rot, k_rot, qkv64, cos, sin, i64(total_seq_len * embed_dim))
launch attention grid(total_seq_len, num_heads) block(128) args(attn64, q_rot, k_rot, qkv64, cu_seqlens, f64(scale))
launch to_f64 grid(ceil_div(embed_dim * embed_dim, 1024)) block(256) args(wproj64, proj_weight, i64(embed_dim * embed_dim))
matmul c(proj_mm) a(attn64) b(wproj64) m(total_seq_len) n(embed_dim) k(embed_dim) transpose_b
launch add_bias grid(ceil_div(total_seq_len * embed_dim, 1024)) block(256)
  args(output, proj_mm, proj_bias, i64(embed_dim), i64(total_seq_len * embed_dim))
*/
