// The float64 anchor. The top-2 order of softmax(l) is the order of l itself (exp is increasing), so
// the selection compares the exact logits; ties go to the lower index.
#include <cuda_bf16.h>

extern "C" __global__ void anchor_top2_softmax(const __nv_bfloat16 *logits, int *ids, double *weights, int rows,
                                               int experts) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double l[64];
  for (int e = 0; e < experts; ++e) l[e] = (double)__bfloat162float(logits[(long long)r * experts + e]);
  int best = 0;
  for (int e = 1; e < experts; ++e)
    if (l[e] > l[best]) best = e;
  int second = best == 0 ? 1 : 0;
  for (int e = 0; e < experts; ++e)
    if (e != best && l[e] > l[second]) second = e;
  double m = l[best];
  double p0 = exp(l[best] - m), p1 = exp(l[second] - m);
  ids[2 * (long long)r] = best;
  ids[2 * (long long)r + 1] = second;
  weights[2 * (long long)r] = p0 / (p0 + p1);
  weights[2 * (long long)r + 1] = p1 / (p0 + p1);
}

/* mkb:plan
launch anchor_top2_softmax grid(ceil_div(tokens, 128)) block(128)
  args(logits, expert_ids, expert_weights, i32(tokens), i32(experts))
*/
