// The baseline: eager F.linear's cuBLAS GEMM (fp32 accumulation) into fp32, then one rounding to bf16.
#include "mkb_ops.cuh"

MKB_MAP(to_bf16, bf16, (const float *c), c[i])

/* mkb:plan
scratch c fp32[m * n]
matmul c(c) a(x) b(w) m(m) n(n) k(k) transpose_b
launch to_bf16 grid(ceil_div(m * n, 1024)) block(256) args(y, c, i64(m * n))
*/
