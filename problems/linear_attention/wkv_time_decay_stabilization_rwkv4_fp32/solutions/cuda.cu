// WKV scan, fused: one thread per channel (batch b, hidden index a) walks the 1721 tokens once with
// the state in registers. The work is memory-bound (read key and value, write output: 2.7 GB), so
// each thread keeps kDepth tokens of key and value in flight: the loads for token t + kDepth are issued
// when token t is consumed. Streaming loads and stores (__ldcs / __stcs) keep the one-pass data from
// evicting anything useful. Of each pair of exponentials one is exp(0) = 1 (the larger exponent is the
// reference point), so each half-step needs one expf; the values are those of the reference's fp32
// formulas (x - max(x, y) and y - max(x, y) round to the same numbers), one rounding per operation.
#include <cuda_runtime.h>

constexpr int kBatch = 64, kSeq = 1721, kHidden = 2048, kDepth = 8;
constexpr int kChannels = kBatch * kHidden;

// (e_x, e_y) = (exp(x - max), exp(y - max)): one of them is exactly 1.
__device__ __forceinline__ void scaled_pair(float x, float y, float &ex, float &ey) {
  const float d = __fsub_rn(y, x);  // > 0: y is the maximum
  const float e = expf(-fabsf(d));  // exp(x - y) or exp(y - x), as the reference rounds it
  ex = d > 0.0f ? e : 1.0f;
  ey = d > 0.0f ? 1.0f : e;
}

extern "C" __global__ void __launch_bounds__(256)
wkv_scan(const float *__restrict__ time_decay, const float *__restrict__ key, const float *__restrict__ time_first,
         const float *__restrict__ value, const float *__restrict__ max_state, const float *__restrict__ num_state,
         const float *__restrict__ den_state, float *__restrict__ output, float *__restrict__ max_state_out,
         float *__restrict__ num_state_out, float *__restrict__ den_state_out) {
  const int channel = blockIdx.x * blockDim.x + threadIdx.x;
  if (channel >= kChannels) return;
  const int b = channel / kHidden, a = channel % kHidden;
  const float w = -expf(time_decay[a]);
  const float u = time_first[a];
  float m = max_state[channel], p = num_state[channel], q = den_state[channel];
  const long long base = (long long)b * kSeq * kHidden + a;
  const float *kp = key + base;
  const float *vp = value + base;
  float *op = output + base;

  float kb[kDepth], vb[kDepth];
#pragma unroll
  for (int j = 0; j < kDepth; ++j) {
    kb[j] = __ldcs(kp + (long long)j * kHidden);
    vb[j] = __ldcs(vp + (long long)j * kHidden);
  }
  for (int t0 = 0; t0 < kSeq; t0 += kDepth) {
#pragma unroll
    for (int j = 0; j < kDepth; ++j) {
      const int t = t0 + j;
      if (t < kSeq) {
        const float k = kb[j], v = vb[j];
        if (t + kDepth < kSeq) {
          kb[j] = __ldcs(kp + (long long)(t + kDepth) * kHidden);
          vb[j] = __ldcs(vp + (long long)(t + kDepth) * kHidden);
        }
        const float ku = __fadd_rn(k, u);
        float e1, e2;
        scaled_pair(m, ku, e1, e2);
        const float numerator = __fadd_rn(__fmul_rn(e1, p), __fmul_rn(e2, v));
        const float denominator = __fadd_rn(__fmul_rn(e1, q), e2);
        __stcs(op + (long long)t * kHidden, __fdiv_rn(numerator, denominator));
        const float mw = __fadd_rn(m, w);
        scaled_pair(mw, k, e1, e2);
        p = __fadd_rn(__fmul_rn(e1, p), __fmul_rn(e2, v));
        q = __fadd_rn(__fmul_rn(e1, q), e2);
        m = fmaxf(mw, k);
      }
    }
  }
  max_state_out[channel] = m;
  num_state_out[channel] = p;
  den_state_out[channel] = q;
}

/* mkb:plan
launch wkv_scan grid(ceil_div(batch_size * attention_hidden_size, 256)) block(256)
  args(time_decay, key, time_first, value, max_state, num_state, den_state, output, max_state_out,
       num_state_out, den_state_out)
*/
