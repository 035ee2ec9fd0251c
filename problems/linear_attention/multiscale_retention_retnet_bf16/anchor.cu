// The float64 anchor: parallel retention in double. The inputs are widened to fp64 scratch, the two
// products are fp64 matmul steps (cuBLAS DGEMM), and one kernel applies the scale and the causal decay
// gamma_h^(i - j) = 2^((i - j) * log2(1 - 2^(-5 - h))) in double (zero above the diagonal).
#include "mkb_ops.cuh"

MKB_MAP(to_f64, double, (const bf16 *x), f64(x[i]))

// scores[bh, i, j] *= scale * decay_h(i - j) for j <= i, else 0; h = bh % heads
extern "C" __global__ void anchor_decay(double *scores, int seq_len, int heads, double scale, long long n) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (long long)gridDim.x * blockDim.x) {
    const long long j = e % seq_len, i = (e / seq_len) % seq_len;
    const int h = (int)((e / ((long long)seq_len * seq_len)) % heads);
    const double s = log2(1.0 - exp2(-5.0 - h));
    scores[e] = j <= i ? scores[e] * scale * exp2((double)(i - j) * s) : 0.0;
  }
}

/* mkb:plan
scratch qd fp64[batch_size * num_heads * seq_len * key_dim]
scratch kd fp64[batch_size * num_heads * seq_len * key_dim]
scratch vd fp64[batch_size * num_heads * seq_len * value_dim]
scratch scores fp64[batch_size * num_heads * seq_len * seq_len]
launch to_f64 grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(qd, q, i64(batch_size * num_heads * seq_len * key_dim))
launch to_f64 grid(ceil_div(batch_size * num_heads * seq_len * key_dim, 1024)) block(256) args(kd, k, i64(batch_size * num_heads * seq_len * key_dim))
launch to_f64 grid(ceil_div(batch_size * num_heads * seq_len * value_dim, 1024)) block(256) args(vd, v, i64(batch_size * num_heads * seq_len * value_dim))
matmul c(scores) a(qd) b(kd) m(seq_len) n(seq_len) k(key_dim) batch(batch_size * num_heads) transpose_b
launch anchor_decay grid(65536) block(256) args(scores, i32(seq_len), i32(num_heads), f64(scale), i64(batch_size * num_heads * seq_len * seq_len))
matmul c(o) a(scores) b(vd) m(seq_len) n(value_dim) k(seq_len) batch(batch_size * num_heads)
*/
