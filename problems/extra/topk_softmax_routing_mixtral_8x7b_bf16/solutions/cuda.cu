// One thread per token: one 16-byte load of the 8 logits, a branch-free top-2 with ties to the lower
// index, and w0 = 1 / (1 + exp(l1 - l0)) (the softmax denominator cancels in the renormalization).
#include <cuda_bf16.h>

union logits8 {
  uint4 vector;
  __nv_bfloat16 values[8];
};

extern "C" __global__ void __launch_bounds__(256)
top2_softmax(const __nv_bfloat16 *__restrict__ logits, int2 *__restrict__ ids, __nv_bfloat162 *__restrict__ weights,
             int tokens) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  logits8 in;
  in.vector = reinterpret_cast<const uint4 *>(logits)[t];
  float best_value = __bfloat162float(in.values[0]), second_value = __int_as_float(0xff800000); // -inf
  int best = 0, second = -1;
#pragma unroll
  for (int e = 1; e < 8; ++e) {
    float v = __bfloat162float(in.values[e]);
    if (v > best_value) {
      second = best;
      second_value = best_value;
      best = e;
      best_value = v;
    } else if (v > second_value) {
      second = e;
      second_value = v;
    }
  }
  float w1 = 1.0f / (1.0f + __expf(best_value - second_value));
  ids[t] = make_int2(best, second);
  weights[t] = __floats2bfloat162_rn(1.0f - w1, w1);
}

/* mkb:plan
launch top2_softmax grid(ceil_div(tokens, 256)) block(256) args(logits, expert_ids, expert_weights, i32(tokens))
*/
