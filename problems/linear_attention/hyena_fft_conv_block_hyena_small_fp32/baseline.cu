// The eager baseline: one launch per eager operation of eager.py, fp32 throughout. Each F.linear with
// bias on a contiguous 3-D input is PyTorch's addmm: here the bias broadcast into the output and a cuBLAS
// matmul step that accumulates (fp32, no TF32); the out-projection's input is a transposed view, so eager
// copies it contiguous, multiplies, and adds the bias in place. The long convolution: eager calls cuFFT
// (rfft of the 256 filters and of the 8192 gated rows, zero-padded to 512; a complex product; irfft with
// norm="forward"); the harness has no FFT step, so rfft_rows and irfft_rows are this file's own 512-point
// radix-2 FFT (one block per row in shared memory, fp32, twiddles by sincospif), one launch per cuFFT call.
// Activations of the mixer are channel-major [b, c, t] as eager's transposed view makes them.
#include "mkb_ops.cuh"

constexpr long long kB = 32, kL = 256, kD = 256, kW = 768, kF = 64, kN = 512, kT = kL + 4, kU = kL + 2;

// ---- LayerNorm pieces -------------------------------------------------------------------------------
MKB_ROW_REDUCE(row_mean, float, float, mkb_ops::sum_op, (const float *x), x[r * cols + c], acc / cols)
// x.var(dim=-1, unbiased=False): one block per row, mean then the mean of squared deviations
extern "C" __global__ void row_var(float *out, const float *x, int cols) {
  const long long r = blockIdx.x;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[r * cols + c];
  const float mean = mkb_ops::block_reduce<mkb_ops::sum_op>(s) / cols;
  float q = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) q += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
  q = mkb_ops::block_reduce<mkb_ops::sum_op>(q);
  if (threadIdx.x == 0) out[r] = q / cols;
}
MKB_MAP(sub_rows, float, (const float *x, const float *m), x[i] - m[i / kD])
MKB_MAP(add_scalar, float, (const float *x, float s), x[i] + s)
MKB_MAP(sqrt_f32, float, (const float *x), sqrtf(x[i]))
MKB_MAP(div_rows, float, (const float *x, const float *s), __fdiv_rn(x[i], s[i / kD]))
MKB_MAP(mul_cols, float, (const float *x, const float *w, long long cols), x[i] * w[i % cols])
MKB_MAP(add_cols, float, (const float *x, const float *b, long long cols), x[i] + b[i % cols])
// ---- linear: the bias broadcast that the accumulating matmul step adds to ------------------------------
MKB_MAP(bias_broadcast, float, (const float *b, long long cols), b[i % cols])
extern "C" __global__ void add_bias_inplace(float *x, const float *b, long long cols, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] += b[i % cols];
}
// ---- short conv ------------------------------------------------------------------------------------------
// F.pad(u.transpose(1, 2), (2, 2)): [b, 768, t + 4] from the token-major [b * t, 768] projection
MKB_MAP(pad_channels, float, (const float *u),
        i % kT >= 2 && i % kT < kL + 2 ? u[(i / (kT * kW) * kL + i % kT - 2) * kW + i / kT % kW] : 0.0f)
// F.conv1d(groups=768, kernel 3): [b, 768, t + 2]
MKB_MAP(conv_depthwise, float, (const float *up, const float *w, const float *b),
        w[i / kU % kW * 3] * up[i / kU * kT + i % kU] + w[i / kU % kW * 3 + 1] * up[i / kU * kT + i % kU + 1] +
            w[i / kU % kW * 3 + 2] * up[i / kU * kT + i % kU + 2] + b[i / kU % kW])
// ---- the implicit filter -------------------------------------------------------------------------------
// torch.linspace(start, end, steps) as PyTorch's CUDA kernel: fp32 step, halves from each end
MKB_MAP(linspace_f32, float, (float start, float end, long long steps),
        i < steps / 2 ? start + __fdiv_rn(end - start, (float)(steps - 1)) * (float)i
                      : end - __fdiv_rn(end - start, (float)(steps - 1)) * (float)(steps - i - 1))
MKB_MAP(mul_scalar, float, (const float *x, float s), x[i] * s)
MKB_MAP(neg_f32, float, (const float *x), -x[i])
MKB_MAP(abs_f32, float, (const float *x), fabsf(x[i]))
MKB_MAP(exp_f32, float, (const float *x), expf(x[i]))
MKB_MAP(sin_f32, float, (const float *x), sinf(x[i]))
MKB_MAP(cos_f32, float, (const float *x), cosf(x[i]))
MKB_MAP(mul_f32, float, (const float *x, const float *y), x[i] * y[i])
MKB_MAP(add_f32, float, (const float *x, const float *y), x[i] + y[i])
// r[i / cols] * c[i % cols] (outer product broadcast)
MKB_MAP(outer_rc, float, (const float *r, const float *c, long long cols), r[i / cols] * c[i % cols])
// torch.cat([t, cos, sin], dim=-1): [256, 5]
MKB_MAP(cat_positions, float, (const float *t, const float *cs, const float *sn),
        i % 5 == 0 ? t[i / 5] : (i % 5 <= 2 ? cs[i / 5 * 2 + i % 5 - 1] : sn[i / 5 * 2 + i % 5 - 3]))
// ---- gating around the long convolution ([b, c, t], c < 256) ---------------------------------------------
// v * x1: channels 512 + c and 256 + c of the conv output
MKB_MAP(gate_v_x1, float, (const float *uc),
        uc[(i / (kL * kD) * kW + 2 * kD + i / kL % kD) * kU + i % kL] * uc[(i / (kL * kD) * kW + kD + i / kL % kD) * kU + i % kL])
MKB_MAP(mul_channel, float, (const float *x, const float *b), x[i] * b[i / kL % kD])
// irfft(...)[..., :256] + v * bias
MKB_MAP(add_first_half, float, (const float *yfull, const float *vb), yfull[i / kL * kN + i % kL] + vb[i])
// v * x0 (channel c of the conv output)
MKB_MAP(mul_x0, float, (const float *v, const float *uc), v[i] * uc[(i / (kL * kD) * kW + i / kL % kD) * kU + i % kL])
// y.transpose(1, 2) made contiguous: [b, t, c] from [b, c, t]
MKB_MAP(to_token_major, float, (const float *y), y[(i / (kL * kD) * kD + i % kD) * kL + i / kD % kL])
MKB_MAP(gelu_tanh_f32, float, (const float *x), mkb_gelu_tanh(x[i]))
// ---- FFT ---------------------------------------------------------------------------------------------
// In-place radix-2 decimation-in-time FFT of 512 complex values held in bit-reversed order in s; sign -1
// forward, +1 inverse, no scaling. 256 threads, one butterfly each per stage.
__device__ void fft512(float2 *s, float sign) {
  for (int m = 2; m <= (int)kN; m *= 2) {
    const int half = m / 2, k = threadIdx.x;
    const int i0 = (k / half) * m + k % half, i1 = i0 + half;
    float sn, cs;
    sincospif(sign * 2.0f * (float)(k % half) / (float)m, &sn, &cs);
    const float2 a = s[i0], b = s[i1];
    const float2 tb = make_float2(b.x * cs - b.y * sn, b.x * sn + b.y * cs);
    s[i0] = make_float2(a.x + tb.x, a.y + tb.y);
    s[i1] = make_float2(a.x - tb.x, a.y - tb.y);
    __syncthreads();
  }
}
__device__ __forceinline__ int bitrev9(int n) { return (int)(__brev((unsigned)n) >> 23); }
// torch.fft.rfft(x, n=512) of rows of 256 reals (zero-padded): out [rows, 257] complex (float2)
extern "C" __global__ void __launch_bounds__(256) rfft_rows(float2 *out, const float *x) {
  __shared__ float2 s[kN];
  const long long row = blockIdx.x;
  for (int n = threadIdx.x; n < kN; n += 256) s[bitrev9(n)] = make_float2(n < kL ? x[row * kL + n] : 0.0f, 0.0f);
  __syncthreads();
  fft512(s, -1.0f);
  for (int f = threadIdx.x; f <= kN / 2; f += 256) out[row * (kN / 2 + 1) + f] = s[f];
}
// torch.fft.irfft(X, n=512, norm="forward") of rows of 257 complex values: out [rows, 512] real
extern "C" __global__ void __launch_bounds__(256) irfft_rows(float *out, const float2 *X) {
  __shared__ float2 s[kN];
  const long long row = blockIdx.x;
  for (int f = threadIdx.x; f < kN; f += 256) {
    float2 v = f <= kN / 2 ? X[row * (kN / 2 + 1) + f] : X[row * (kN / 2 + 1) + kN - f];
    if (f > kN / 2) v.y = -v.y;                          // Hermitian extension
    if (f == 0 || f == kN / 2) v.y = 0.0f;              // the real transform ignores these imaginary parts
    s[bitrev9(f)] = v;
  }
  __syncthreads();
  fft512(s, 1.0f);
  for (int n = threadIdx.x; n < kN; n += 256) out[row * kN + n] = s[n].x;
}
// v_f * k_f: [b, c, 257] complex times [c, 257] complex
extern "C" __global__ void complex_mul(float2 *out, const float2 *vf, const float2 *kf, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 a = vf[i], b = kf[i % (kD * (kN / 2 + 1))];
  out[i] = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* mkb:plan
scratch mean1 fp32[batch_size * seq_len]
scratch var1 fp32[batch_size * seq_len]
scratch xm1 fp32[batch_size * seq_len * d_model]
scratch ve1 fp32[batch_size * seq_len]
scratch sd1 fp32[batch_size * seq_len]
scratch xn1 fp32[batch_size * seq_len * d_model]
scratch xw1 fp32[batch_size * seq_len * d_model]
scratch n1 fp32[batch_size * seq_len * d_model]
scratch u fp32[batch_size * seq_len * inner_width]
scratch u_pad fp32[batch_size * inner_width * (seq_len + 4)]
scratch uc fp32[batch_size * inner_width * (seq_len + 2)]
scratch t_lin fp32[seq_len]
scratch t_res fp32[seq_len]
scratch w_2pi fp32[seq_len]
scratch w fp32[seq_len]
scratch f_lin fp32[2]
scratch nf_a fp32[2]
scratch fw_a fp32[seq_len * 2]
scratch cos_fw fp32[seq_len * 2]
scratch nf_b fp32[2]
scratch fw_b fp32[seq_len * 2]
scratch sin_fw fp32[seq_len * 2]
scratch z fp32[seq_len * 5]
scratch h1 fp32[seq_len * filter_order]
scratch h1s fp32[seq_len * filter_order]
scratch h1a fp32[seq_len * filter_order]
scratch h2 fp32[seq_len * filter_order]
scratch h2s fp32[seq_len * filter_order]
scratch h2a fp32[seq_len * filter_order]
scratch h3 fp32[seq_len * filter_order]
scratch h3s fp32[seq_len * filter_order]
scratch h3a fp32[seq_len * filter_order]
scratch hf fp32[seq_len * d_model]
scratch d_abs fp32[d_model]
scratch t_neg fp32[seq_len]
scratch td fp32[seq_len * d_model]
scratch decay fp32[seq_len * d_model]
scratch decay_s fp32[seq_len * d_model]
scratch hm fp32[seq_len * d_model]
scratch hk fp32[seq_len * d_model]
scratch g fp32[batch_size * d_model * seq_len]
scratch k_f fp32[2 * d_model * (seq_len + 1)]
scratch k_fs fp32[2 * d_model * (seq_len + 1)]
scratch v_f fp32[2 * batch_size * d_model * (seq_len + 1)]
scratch p_f fp32[2 * batch_size * d_model * (seq_len + 1)]
scratch y_full fp32[batch_size * d_model * 2 * seq_len]
scratch vb fp32[batch_size * d_model * seq_len]
scratch y2 fp32[batch_size * d_model * seq_len]
scratch gated fp32[batch_size * d_model * seq_len]
scratch y_t fp32[batch_size * seq_len * d_model]
scratch h_out fp32[batch_size * seq_len * d_model]
scratch r1 fp32[batch_size * seq_len * d_model]
scratch mean2 fp32[batch_size * seq_len]
scratch var2 fp32[batch_size * seq_len]
scratch xm2 fp32[batch_size * seq_len * d_model]
scratch ve2 fp32[batch_size * seq_len]
scratch sd2 fp32[batch_size * seq_len]
scratch xn2 fp32[batch_size * seq_len * d_model]
scratch xw2 fp32[batch_size * seq_len * d_model]
scratch n2 fp32[batch_size * seq_len * d_model]
scratch f1 fp32[batch_size * seq_len * d_inner]
scratch act fp32[batch_size * seq_len * d_inner]
scratch f2 fp32[batch_size * seq_len * d_model]
# LayerNorm 1: mean, var, sub, + eps, sqrt, div, * weight, + bias
launch row_mean grid(batch_size * seq_len) block(256) args(mean1, hidden_states, i32(d_model))
launch row_var grid(batch_size * seq_len) block(256) args(var1, hidden_states, i32(d_model))
launch sub_rows grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(xm1, hidden_states, mean1, i64(batch_size * seq_len * d_model))
launch add_scalar grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(ve1, var1, f32(layer_norm_eps), i64(batch_size * seq_len))
launch sqrt_f32 grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(sd1, ve1, i64(batch_size * seq_len))
launch div_rows grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(xn1, xm1, sd1, i64(batch_size * seq_len * d_model))
launch mul_cols grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(xw1, xn1, norm1_weight, i64(d_model), i64(batch_size * seq_len * d_model))
launch add_cols grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(n1, xw1, norm1_bias, i64(d_model), i64(batch_size * seq_len * d_model))
# in-projection (addmm); pad; depthwise conv
launch bias_broadcast grid(ceil_div(batch_size * seq_len * inner_width, 1024)) block(256) args(u, in_proj_bias, i64(inner_width), i64(batch_size * seq_len * inner_width))
matmul c(u) a(n1) b(in_proj_weight) m(batch_size * seq_len) n(inner_width) k(d_model) transpose_b accumulate
launch pad_channels grid(ceil_div(batch_size * inner_width * (seq_len + 4), 1024)) block(256) args(u_pad, u, i64(batch_size * inner_width * (seq_len + 4)))
launch conv_depthwise grid(ceil_div(batch_size * inner_width * (seq_len + 2), 1024)) block(256) args(uc, u_pad, short_conv_weight, short_conv_bias, i64(batch_size * inner_width * (seq_len + 2)))
# positional features: linspaces, w = 2 pi t_rescaled / L, cos(-f w), sin(-f w), cat
launch linspace_f32 grid(ceil_div(seq_len, 1024)) block(256) args(t_lin, f32(0), f32(1), i64(seq_len), i64(seq_len))
launch linspace_f32 grid(ceil_div(seq_len, 1024)) block(256) args(t_res, f32(0), f32(seq_len - 1), i64(seq_len), i64(seq_len))
launch mul_scalar grid(ceil_div(seq_len, 1024)) block(256) args(w_2pi, t_res, f32(6.283185307179586), i64(seq_len))
launch mul_scalar grid(ceil_div(seq_len, 1024)) block(256) args(w, w_2pi, f32(1.0 / seq_len), i64(seq_len))
launch linspace_f32 grid(ceil_div(2, 1024)) block(256) args(f_lin, f32(0.0001), f32(1), i64(2), i64(2))
launch neg_f32 grid(ceil_div(2, 1024)) block(256) args(nf_a, f_lin, i64(2))
launch outer_rc grid(ceil_div(seq_len * 2, 1024)) block(256) args(fw_a, w, nf_a, i64(2), i64(seq_len * 2))
launch cos_f32 grid(ceil_div(seq_len * 2, 1024)) block(256) args(cos_fw, fw_a, i64(seq_len * 2))
launch neg_f32 grid(ceil_div(2, 1024)) block(256) args(nf_b, f_lin, i64(2))
launch outer_rc grid(ceil_div(seq_len * 2, 1024)) block(256) args(fw_b, w, nf_b, i64(2), i64(seq_len * 2))
launch sin_f32 grid(ceil_div(seq_len * 2, 1024)) block(256) args(sin_fw, fw_b, i64(seq_len * 2))
launch cat_positions grid(ceil_div(seq_len * 5, 1024)) block(256) args(z, t_lin, cos_fw, sin_fw, i64(seq_len * 5))
# filter MLP: three (addmm, * sin_freq, sin), then the final product without bias
launch bias_broadcast grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h1, filter_linear1_bias, i64(filter_order), i64(seq_len * filter_order))
matmul c(h1) a(z) b(filter_linear1_weight) m(seq_len) n(filter_order) k(emb_dim) transpose_b accumulate
launch mul_cols grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h1s, h1, sin_freq, i64(filter_order), i64(seq_len * filter_order))
launch sin_f32 grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h1a, h1s, i64(seq_len * filter_order))
launch bias_broadcast grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h2, filter_linear2_bias, i64(filter_order), i64(seq_len * filter_order))
matmul c(h2) a(h1a) b(filter_linear2_weight) m(seq_len) n(filter_order) k(filter_order) transpose_b accumulate
launch mul_cols grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h2s, h2, sin_freq, i64(filter_order), i64(seq_len * filter_order))
launch sin_f32 grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h2a, h2s, i64(seq_len * filter_order))
launch bias_broadcast grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h3, filter_linear3_bias, i64(filter_order), i64(seq_len * filter_order))
matmul c(h3) a(h2a) b(filter_linear3_weight) m(seq_len) n(filter_order) k(filter_order) transpose_b accumulate
launch mul_cols grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h3s, h3, sin_freq, i64(filter_order), i64(seq_len * filter_order))
launch sin_f32 grid(ceil_div(seq_len * filter_order, 1024)) block(256) args(h3a, h3s, i64(seq_len * filter_order))
matmul c(hf) a(h3a) b(filter_linear_final_weight) m(seq_len) n(d_model) k(filter_order) transpose_b
# exponential modulation and bias: exp(-t |deltas|) + shift, product, + filter_bias
launch abs_f32 grid(ceil_div(d_model, 1024)) block(256) args(d_abs, exp_mod_deltas, i64(d_model))
launch neg_f32 grid(ceil_div(seq_len, 1024)) block(256) args(t_neg, t_lin, i64(seq_len))
launch outer_rc grid(ceil_div(seq_len * d_model, 1024)) block(256) args(td, t_neg, d_abs, i64(d_model), i64(seq_len * d_model))
launch exp_f32 grid(ceil_div(seq_len * d_model, 1024)) block(256) args(decay, td, i64(seq_len * d_model))
launch add_scalar grid(ceil_div(seq_len * d_model, 1024)) block(256) args(decay_s, decay, f32(exp_mod_shift), i64(seq_len * d_model))
launch mul_f32 grid(ceil_div(seq_len * d_model, 1024)) block(256) args(hm, hf, decay_s, i64(seq_len * d_model))
launch add_cols grid(ceil_div(seq_len * d_model, 1024)) block(256) args(hk, hm, filter_bias, i64(d_model), i64(seq_len * d_model))
# long convolution by FFT: v * x1; rfft(k) / 512; rfft(v); product; irfft (norm forward)
launch gate_v_x1 grid(ceil_div(batch_size * d_model * seq_len, 1024)) block(256) args(g, uc, i64(batch_size * d_model * seq_len))
launch rfft_rows grid(d_model) block(256) args(k_f, hk)
launch mul_scalar grid(ceil_div(2 * d_model * (seq_len + 1), 1024)) block(256) args(k_fs, k_f, f32(1.0 / (2 * seq_len)), i64(2 * d_model * (seq_len + 1)))
launch rfft_rows grid(batch_size * d_model) block(256) args(v_f, g)
launch complex_mul grid(ceil_div(batch_size * d_model * (seq_len + 1), 256)) block(256) args(p_f, v_f, k_fs, i64(batch_size * d_model * (seq_len + 1)))
launch irfft_rows grid(batch_size * d_model) block(256) args(y_full, p_f)
# + v * bias; * x0; out-projection of the transposed view (copy, mm, bias add_); + residual
launch mul_channel grid(ceil_div(batch_size * d_model * seq_len, 1024)) block(256) args(vb, g, filter_bias, i64(batch_size * d_model * seq_len))
launch add_first_half grid(ceil_div(batch_size * d_model * seq_len, 1024)) block(256) args(y2, y_full, vb, i64(batch_size * d_model * seq_len))
launch mul_x0 grid(ceil_div(batch_size * d_model * seq_len, 1024)) block(256) args(gated, y2, uc, i64(batch_size * d_model * seq_len))
launch to_token_major grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(y_t, gated, i64(batch_size * seq_len * d_model))
matmul c(h_out) a(y_t) b(out_proj_weight) m(batch_size * seq_len) n(d_model) k(d_model) transpose_b
launch add_bias_inplace grid(ceil_div(batch_size * seq_len * d_model, 256)) block(256) args(h_out, out_proj_bias, i64(d_model), i64(batch_size * seq_len * d_model))
launch add_f32 grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(r1, h_out, hidden_states, i64(batch_size * seq_len * d_model))
# LayerNorm 2; fc1 (addmm) + tanh-GELU; fc2 (addmm); + residual
launch row_mean grid(batch_size * seq_len) block(256) args(mean2, r1, i32(d_model))
launch row_var grid(batch_size * seq_len) block(256) args(var2, r1, i32(d_model))
launch sub_rows grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(xm2, r1, mean2, i64(batch_size * seq_len * d_model))
launch add_scalar grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(ve2, var2, f32(layer_norm_eps), i64(batch_size * seq_len))
launch sqrt_f32 grid(ceil_div(batch_size * seq_len, 1024)) block(256) args(sd2, ve2, i64(batch_size * seq_len))
launch div_rows grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(xn2, xm2, sd2, i64(batch_size * seq_len * d_model))
launch mul_cols grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(xw2, xn2, norm2_weight, i64(d_model), i64(batch_size * seq_len * d_model))
launch add_cols grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(n2, xw2, norm2_bias, i64(d_model), i64(batch_size * seq_len * d_model))
launch bias_broadcast grid(ceil_div(batch_size * seq_len * d_inner, 1024)) block(256) args(f1, mlp_fc1_bias, i64(d_inner), i64(batch_size * seq_len * d_inner))
matmul c(f1) a(n2) b(mlp_fc1_weight) m(batch_size * seq_len) n(d_inner) k(d_model) transpose_b accumulate
launch gelu_tanh_f32 grid(ceil_div(batch_size * seq_len * d_inner, 1024)) block(256) args(act, f1, i64(batch_size * seq_len * d_inner))
launch bias_broadcast grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(f2, mlp_fc2_bias, i64(d_model), i64(batch_size * seq_len * d_model))
matmul c(f2) a(act) b(mlp_fc2_weight) m(batch_size * seq_len) n(d_model) k(d_inner) transpose_b accumulate
launch add_f32 grid(ceil_div(batch_size * seq_len * d_model, 1024)) block(256) args(output, f2, r1, i64(batch_size * seq_len * d_model))
*/
