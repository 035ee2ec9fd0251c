// The float64 anchor: shifted gather, both RMSNorms and the concatenation in double with no intermediate
// rounding, then eh_proj as a matmul step on fp64 scratch.
#include "mkb_ops.cuh"

// The id token t = b * seq + s reads after the roll: ids[t + 1], or 0 at the last position of a sequence.
__device__ __forceinline__ long long shifted_id(const long long *ids, long long t, int seq) {
  return t % seq + 1 < seq ? ids[t + 1] : 0LL;
}

// 1 / rms of the shifted embedding row and of the hidden row
MKB_ROW_REDUCE(embed_inv_rms, double, double, mkb_ops::sum_op, (const bf16 *table, const long long *ids, int seq, double eps),
               f64(table[shifted_id(ids, r, seq) * cols + c]) * f64(table[shifted_id(ids, r, seq) * cols + c]),
               1.0 / sqrt(acc / cols + eps))
MKB_ROW_REDUCE(hidden_inv_rms, double, double, mkb_ops::sum_op, (const bf16 *h, double eps),
               f64(h[r * cols + c]) * f64(h[r * cols + c]), 1.0 / sqrt(acc / cols + eps))
// c[t] = [e * re * enorm_weight, h * rh * hnorm_weight]
MKB_MAP(normalized_cat, double,
        (const bf16 *table, const long long *ids, const bf16 *h, const double *re, const double *rh, const bf16 *ew,
         const bf16 *hw, int seq, int cols),
        i % (2 * cols) < cols
            ? f64(table[shifted_id(ids, i / (2 * cols), seq) * cols + i % (2 * cols)]) * re[i / (2 * cols)] *
                  f64(ew[i % (2 * cols)])
            : f64(h[(i / (2 * cols)) * cols + i % (2 * cols) - cols]) * rh[i / (2 * cols)] *
                  f64(hw[i % (2 * cols) - cols]))
MKB_MAP(to_f64, double, (const bf16 *v), f64(v[i]))

/* mkb:plan
scratch re fp64[batch_size * seq_len]
scratch rh fp64[batch_size * seq_len]
scratch cat_buf fp64[batch_size * seq_len * concat_size]
scratch w fp64[hidden_size * concat_size]
launch embed_inv_rms grid(batch_size * seq_len) block(256)
  args(re, word_embeddings, input_ids, i32(seq_len), f64(rms_norm_eps), i32(hidden_size))
launch hidden_inv_rms grid(batch_size * seq_len) block(256) args(rh, hidden_states, f64(rms_norm_eps), i32(hidden_size))
launch normalized_cat grid(ceil_div(batch_size * seq_len * concat_size, 1024)) block(256)
  args(cat_buf, word_embeddings, input_ids, hidden_states, re, rh, enorm_weight, hnorm_weight, i32(seq_len),
       i32(hidden_size), i64(batch_size * seq_len * concat_size))
launch to_f64 grid(ceil_div(hidden_size * concat_size, 1024)) block(256) args(w, eh_proj_weight, i64(hidden_size * concat_size))
matmul c(output) a(cat_buf) b(w) m(batch_size * seq_len) n(hidden_size) k(concat_size) transpose_b
*/
