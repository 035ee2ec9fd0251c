// The float64 anchor: the same semantics with every intermediate exact in double and no rounding
// points. x and the weights are cast to fp64 scratch for the fp64 `matmul` steps (on fp64 scratch);
// q and k are normalized per (frame, head) row of head_dim elements; v is copied. Outputs are fp64.
#include "mkb_ops.cuh"

// fp32 -> fp64
MKB_MAP(cast64, double, (const float *a), f64(a[i]))
// v = v64
MKB_MAP(copy64, double, (const double *a), a[i])
// inv[r] = 1 / sqrt(mean_j t[r, j]^2 + eps), one block per (frame, head) row
MKB_ROW_REDUCE(inv_rms64, double, double, mkb_ops::sum_op, (const double *t, double eps),
               t[r * cols + c] * t[r * cols + c], 1.0 / sqrt(acc / cols + eps))
// out = t * inv[row] * weight[j]
MKB_MAP(normalize64, double, (const double *t, const double *inv, const float *w, int cols),
        t[i] * inv[i / cols] * f64(w[i % cols]))

/* mkb:plan
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch wq64 fp64[qkv_out_size * hidden_size]
scratch wk64 fp64[qkv_out_size * hidden_size]
scratch wv64 fp64[qkv_out_size * hidden_size]
scratch q64 fp64[batch_size * seq_len * qkv_out_size]
scratch k64 fp64[batch_size * seq_len * qkv_out_size]
scratch v64 fp64[batch_size * seq_len * qkv_out_size]
scratch inv fp64[batch_size * seq_len * num_heads]
launch cast64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch cast64 grid(ceil_div(qkv_out_size * hidden_size, 1024)) block(256) args(wq64, q_weight, i64(qkv_out_size * hidden_size))
launch cast64 grid(ceil_div(qkv_out_size * hidden_size, 1024)) block(256) args(wk64, k_weight, i64(qkv_out_size * hidden_size))
launch cast64 grid(ceil_div(qkv_out_size * hidden_size, 1024)) block(256) args(wv64, v_weight, i64(qkv_out_size * hidden_size))
matmul c(q64) a(x64) b(wq64) m(batch_size * seq_len) n(qkv_out_size) k(hidden_size) transpose_b
matmul c(k64) a(x64) b(wk64) m(batch_size * seq_len) n(qkv_out_size) k(hidden_size) transpose_b
matmul c(v64) a(x64) b(wv64) m(batch_size * seq_len) n(qkv_out_size) k(hidden_size) transpose_b
launch inv_rms64 grid(batch_size * seq_len * num_heads) block(64) args(inv, q64, f64(eps), i32(head_dim))
launch normalize64 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(q, q64, inv, q_norm_weight, i32(head_dim), i64(batch_size * seq_len * qkv_out_size))
launch inv_rms64 grid(batch_size * seq_len * num_heads) block(64) args(inv, k64, f64(eps), i32(head_dim))
launch normalize64 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(k, k64, inv, k_norm_weight, i32(head_dim), i64(batch_size * seq_len * qkv_out_size))
launch copy64 grid(ceil_div(batch_size * seq_len * qkv_out_size, 1024)) block(256) args(v, v64, i64(batch_size * seq_len * qkv_out_size))
*/
