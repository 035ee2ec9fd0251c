// The float64 anchor of the Mamba2 mixer (reference.md), everything in double (the original's float64
// re-run upcasts every input, so compute_dtype is float64 and its bf16 casts round nothing): the two
// projections as float64 matmul steps on float64 copies; the depthwise conv + SiLU and dt; the SSD scan
// as the state-space recurrence token by token (what the chunked algorithm computes exactly), one block
// per (head, batch) with the [64, 256] state in registers; the grouped RMS norm and the SiLU gate.
#include "mkb_ops.cuh"

constexpr int kB = 8, kS = 512, kHid = 8192, kH = 256, kP = 64, kN = 256, kK = 4, kG = 8, kI = 16384;
constexpr int kGts = kG * kN, kCd = kI + 2 * kGts, kProj = kI + kCd + kH;

MKB_MAP(to_f64, double, (const bf16 *x), f64(x[i]))

// xbc[b, t, c] = silu(sum_j w[c, j] x[b, t - 3 + j, c] + bias[c]), x = the projection's conv channels
extern "C" __global__ void conv_silu(const double *proj, const bf16 *conv_w, const bf16 *conv_b, double *xbc) {
  const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (long long)kB * kS * kCd) return;
  const long long row = e / kCd;
  const int c = (int)(e % kCd), t = (int)(row % kS);
  double acc = f64(conv_b[c]);
  for (int j = 0; j < kK; ++j) {
    const int src = t - (kK - 1) + j;
    if (src >= 0) acc += f64(conv_w[c * kK + j]) * proj[(row - t + src) * kProj + kI + c];
  }
  xbc[e] = acc / (1.0 + exp(-acc));
}

// dt = clamp(softplus(dt_raw + dt_bias), lo, hi), softplus with PyTorch's threshold 20
extern "C" __global__ void dt_kernel(const double *proj, const bf16 *dt_bias, double lo, double hi, double *dt) {
  const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (long long)kB * kS * kH) return;
  const double v = proj[(e / kH) * kProj + kProj - kH + e % kH] + f64(dt_bias[e % kH]);
  const double sp = v > 20.0 ? v : log1p(exp(v));
  dt[e] = fmin(fmax(sp, lo), hi);
}

// the SSD recurrence: H_t = exp(-exp(A_log) dt_t) H_{t-1} + (x_t dt_t) B_t^T, y_t = H_t C_t + D x_t;
// head h reads group h % 8; 512 threads = 64 rows d x 8 parts of 32 state columns
constexpr int kParts = 8, kCols = kN / kParts;
extern "C" __global__ void __launch_bounds__(512)
ssd_scan(const double *xbc, const double *dt, const bf16 *A_log, const bf16 *D, double *y) {
  __shared__ double b_t[kN], c_t[kN], x_t[kP];
  __shared__ double decay, step;
  const int h = blockIdx.x, b = blockIdx.y, g = h % kG;
  const int d = threadIdx.x / kParts, part = threadIdx.x % kParts;
  const double a = -exp(f64(A_log[h])), skip = f64(D[h]);
  double st[kCols];
#pragma unroll
  for (int j = 0; j < kCols; ++j) st[j] = 0.0;
  for (int t = 0; t < kS; ++t) {
    const long long row = (long long)b * kS + t;
    if (threadIdx.x < kN) {
      b_t[threadIdx.x] = xbc[row * kCd + kI + g * kN + threadIdx.x];
      c_t[threadIdx.x] = xbc[row * kCd + kI + kGts + g * kN + threadIdx.x];
    }
    if (threadIdx.x < kP) x_t[threadIdx.x] = xbc[row * kCd + h * kP + threadIdx.x];
    if (threadIdx.x == 0) {
      step = dt[row * kH + h];
      decay = exp(a * step);
    }
    __syncthreads();
    const double x = x_t[d], xs = x * step;
    double partial = 0.0;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      st[j] = decay * st[j] + xs * b_t[part * kCols + j];
      partial += st[j] * c_t[part * kCols + j];
    }
    for (int o = kParts / 2; o > 0; o /= 2) partial += __shfl_xor_sync(0xffffffffu, partial, o);
    if (part == 0) y[row * kI + h * kP + d] = partial + skip * x;
    __syncthreads();
  }
}

// grouped RMS norm (groups of 2048 channels) times norm_weight times silu(gate): one block per (token, group)
extern "C" __global__ void gated_norm(const double *y, const double *proj, const bf16 *norm_w, double eps, double *out) {
  const long long row = blockIdx.x / kG;
  const int grp = blockIdx.x % kG, size = kI / kG;
  const double *yr = y + row * kI + grp * size;
  double ss = 0.0;
  for (int c = threadIdx.x; c < size; c += blockDim.x) ss += yr[c] * yr[c];
  const double inv = 1.0 / sqrt(mkb_ops::block_reduce<mkb_ops::sum_op>(ss) / size + eps);
  for (int c = threadIdx.x; c < size; c += blockDim.x) {
    const int ch = grp * size + c;
    const double gate = proj[row * kProj + ch];
    out[row * kI + ch] = yr[c] * inv * f64(norm_w[ch]) * (gate / (1.0 + exp(-gate)));
  }
}

/* mkb:plan
scratch x64 fp64[batch_size * seq_len * hidden_size]
scratch w_in fp64[projection_size * hidden_size]
scratch proj fp64[batch_size * seq_len * projection_size]
scratch xbc fp64[batch_size * seq_len * conv_dim]
scratch dt fp64[batch_size * seq_len * num_heads]
scratch y fp64[batch_size * seq_len * intermediate_size]
scratch y_gated fp64[batch_size * seq_len * intermediate_size]
scratch w_out fp64[hidden_size * intermediate_size]
launch to_f64 grid(ceil_div(batch_size * seq_len * hidden_size, 1024)) block(256) args(x64, hidden_states, i64(batch_size * seq_len * hidden_size))
launch to_f64 grid(ceil_div(projection_size * hidden_size, 1024)) block(256) args(w_in, in_proj_weight, i64(projection_size * hidden_size))
matmul c(proj) a(x64) b(w_in) m(batch_size * seq_len) n(projection_size) k(hidden_size) transpose_b
launch conv_silu grid(ceil_div(batch_size * seq_len * conv_dim, 256)) block(256) args(proj, conv1d_weight, conv1d_bias, xbc)
launch dt_kernel grid(ceil_div(batch_size * seq_len * num_heads, 256)) block(256)
  args(proj, dt_bias, f64(time_step_limit_min), f64(time_step_limit_max), dt)
launch ssd_scan grid(num_heads, batch_size) block(512) args(xbc, dt, A_log, D, y)
launch gated_norm grid(batch_size * seq_len * n_groups) block(256) args(y, proj, norm_weight, f64(layer_norm_epsilon), y_gated)
launch to_f64 grid(ceil_div(hidden_size * intermediate_size, 1024)) block(256) args(w_out, out_proj_weight, i64(hidden_size * intermediate_size))
matmul c(output) a(y_gated) b(w_out) m(batch_size * seq_len) n(hidden_size) k(intermediate_size) transpose_b
*/
