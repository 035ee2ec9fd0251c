// The float64 anchor: the inputs widened to double, both GEMMs in double (the plan's matmul step on
// fp64 scratch), the gating in double; no rounding anywhere.
#include "mkb_ops.cuh"

MKB_MAP(widen, double, (const float *v), f64(v[i]))
// act = silu(gate) * up with gate = h[:, :I], up = h[:, I:]
MKB_MAP(swiglu, double, (const double *h, long long inter),
        mkb_silu(h[(i / inter) * 2 * inter + i % inter]) * h[(i / inter) * 2 * inter + inter + i % inter])

/* mkb:plan
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch wgu64 fp64[intermediate_size_x2 * hidden_size]
scratch wd64 fp64[hidden_size * intermediate_size]
scratch h fp64[batch_size * seq_len * intermediate_size_x2]
scratch act fp64[batch_size * seq_len * intermediate_size]
launch widen grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256)
  args(x64, x, i64(batch_size * seq_len * hidden_size))
launch widen grid(ceil_div(intermediate_size_x2 * hidden_size, 1024)) block(256)
  args(wgu64, w_gate_up, i64(intermediate_size_x2 * hidden_size))
launch widen grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256)
  args(wd64, w_down, i64(hidden_size * intermediate_size))
matmul c(h) a(x64) b(wgu64) m(batch_size * seq_len) n(intermediate_size_x2) k(hidden_size) transpose_b
launch swiglu grid(ceil_div(batch_size * seq_len * intermediate_size, 1024)) block(256)
  args(act, h, i64(intermediate_size), i64(batch_size * seq_len * intermediate_size))
matmul c(out) a(act) b(wd64) m(batch_size * seq_len) n(hidden_size) k(intermediate_size) transpose_b
*/
