// The float64 anchor: both operands dequantized exactly in double (an e4m3 value times an fp32 scale
// fits in 53 bits), the two products as fp64 matmul steps, SiLU gating in double.
#include <cuda_fp8.h>

namespace {
__device__ __forceinline__ double fp8v(unsigned char b) {
  __nv_fp8_e4m3 v;
  v.__x = b;
  return (double)float(v);
}
} // namespace

// dq[m, k] = x[m, k] * scale_x[m, k / 128]
extern "C" __global__ void anchor_dq_x(const unsigned char *x, const float *scale_x, double *dq, long long n, int cols) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    dq[i] = fp8v(x[i]) * (double)scale_x[(i / cols) * (cols / 128) + (i % cols) / 128];
}

// dq[k, n] = w[k, n] * scale[n / 128, k / 128] for the transposed weight w [K, N]
extern "C" __global__ void anchor_dq_w(const unsigned char *w, const float *scale, double *dq, long long n, int cols,
                                       int k_blocks) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    dq[i] = fp8v(w[i]) * (double)scale[((i % cols) / 128) * k_blocks + (i / cols) / 128];
}

extern "C" __global__ void anchor_silu_mul(double *out, const double *gate, const double *up, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = gate[i] / (1.0 + exp(-gate[i])) * up[i];
}

/* mkb:plan
scratch dqx fp64[m * hidden_size]
scratch dqg fp64[hidden_size * intermediate_size]
scratch dqu fp64[hidden_size * intermediate_size]
scratch gate fp64[m * intermediate_size]
scratch up fp64[m * intermediate_size]
launch anchor_dq_x grid(4096) block(256) args(x, scale_x, dqx, i64(m * hidden_size), i32(hidden_size))
launch anchor_dq_w grid(4096) block(256)
  args(gate_proj_weight, scale_gate, dqg, i64(hidden_size * intermediate_size), i32(intermediate_size), i32(hidden_size / 128))
launch anchor_dq_w grid(4096) block(256)
  args(up_proj_weight, scale_up, dqu, i64(hidden_size * intermediate_size), i32(intermediate_size), i32(hidden_size / 128))
matmul c(gate) a(dqx) b(dqg) m(m) n(intermediate_size) k(hidden_size)
matmul c(up) a(dqx) b(dqu) m(m) n(intermediate_size) k(hidden_size)
launch anchor_silu_mul grid(4096) block(256) args(output, gate, up, i64(m * intermediate_size))
*/
