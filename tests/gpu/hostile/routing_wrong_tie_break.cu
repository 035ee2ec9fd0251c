// HOSTILE SUBMISSION for topk_softmax_routing_mixtral_8x7b_bf16: breaks ties toward the HIGHER expert
// index (>= instead of >). Only tokens with tied logits differ, and bf16 logits tie often.
// Expected verdict: wrong_answer (on expert_ids, an integer output).
#include <cuda_bf16.h>

extern "C" __global__ void top2(const __nv_bfloat16 *logits, int *ids, __nv_bfloat16 *weights, int tokens) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  float l[8];
  for (int e = 0; e < 8; ++e) l[e] = __bfloat162float(logits[t * 8 + e]);
  int best = 0;
  for (int e = 1; e < 8; ++e)
    if (l[e] >= l[best]) best = e;
  int second = best == 0 ? 1 : 0;
  for (int e = 0; e < 8; ++e)
    if (e != best && l[e] >= l[second]) second = e;
  float w1 = 1.0f / (1.0f + __expf(l[best] - l[second]));
  ids[2 * t] = best;
  ids[2 * t + 1] = second;
  weights[2 * t] = __float2bfloat16_rn(1.0f - w1);
  weights[2 * t + 1] = __float2bfloat16_rn(w1);
}

/* mkb:plan
launch top2 grid(ceil_div(tokens, 256)) block(256) args(logits, expert_ids, expert_weights, i32(tokens))
*/
