// The float64 anchor: the operands cast to fp64 scratch and multiplied in double into the fp64 output.
#include "mkb_ops.cuh"

MKB_MAP(cast64, double, (const bf16 *s), f64(s[i]))

/* mkb:plan
scratch x64 fp64[m * k]
scratch w64 fp64[n * k]
launch cast64 grid(ceil_div(m * k, 1024)) block(256) args(x64, x, i64(m * k))
launch cast64 grid(ceil_div(n * k, 1024)) block(256) args(w64, w, i64(n * k))
matmul c(y) a(x64) b(w64) m(m) n(n) k(k) transpose_b
*/
