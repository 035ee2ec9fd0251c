// The float64 anchor: the WKV recurrence as a sequential scan in double, one thread per channel
// (batch b, hidden index a), the running-maximum state kept exactly as the reference keeps it.
#include "mkb_ops.cuh"

extern "C" __global__ void anchor_wkv(const float *time_decay, const float *key, const float *time_first,
                                      const float *value, const float *max_state, const float *num_state,
                                      const float *den_state, double *output, double *max_state_out,
                                      double *num_state_out, double *den_state_out, int batch, int seq, int hidden) {
  const long long channel = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (channel >= (long long)batch * hidden) return;
  const int b = (int)(channel / hidden), a = (int)(channel % hidden);
  const double w = -exp(f64(time_decay[a]));
  const double u = f64(time_first[a]);
  double m = f64(max_state[channel]), p = f64(num_state[channel]), q = f64(den_state[channel]);
  for (int t = 0; t < seq; ++t) {
    const long long at = ((long long)b * seq + t) * hidden + a;
    const double k = f64(key[at]), v = f64(value[at]);
    const double o = fmax(m, k + u);
    double e1 = exp(m - o), e2 = exp(k + u - o);
    output[at] = (e1 * p + e2 * v) / (e1 * q + e2);
    const double s = fmax(m + w, k);
    e1 = exp(m + w - s);
    e2 = exp(k - s);
    p = e1 * p + e2 * v;
    q = e1 * q + e2;
    m = s;
  }
  max_state_out[channel] = m;
  num_state_out[channel] = p;
  den_state_out[channel] = q;
}

/* mkb:plan
launch anchor_wkv grid(ceil_div(batch_size * attention_hidden_size, 128)) block(128)
  args(time_decay, key, time_first, value, max_state, num_state, den_state, output, max_state_out,
       num_state_out, den_state_out, i32(batch_size), i32(seq_len), i32(attention_hidden_size))
*/
