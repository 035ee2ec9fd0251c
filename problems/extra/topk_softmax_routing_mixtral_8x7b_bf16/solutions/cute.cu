// Top-2 softmax routing in CuTe C++: the algorithm of solutions/cuda.cu. One thread per token: CuTe
// tiles the [tokens, 8] logits into 256-token block tiles, each thread copies its 16-byte row into a
// register fragment with one 128-bit vector copy, runs a branch-free top-2 with ties to the lower
// index, and w1 = 1 / (1 + exp(l0 - l1)) (the softmax denominator cancels in the renormalization).
// The two ids leave as one 64-bit store, the two bf16 weights as one 32-bit store.
#include <cute/tensor.hpp>
#include <cutlass/numeric_types.h>

using namespace cute;
using bf16 = cutlass::bfloat16_t;

constexpr int kTokens = 262144;
constexpr int kExperts = 8;
constexpr int kTopK = 2;
constexpr int kThreads = 256;

extern "C" __global__ void __launch_bounds__(kThreads)
top2_softmax(const bf16 *__restrict__ logits, int *__restrict__ ids, bf16 *__restrict__ weights, int tokens) {
  const int t = blockIdx.x * kThreads + threadIdx.x;
  if (t >= tokens) return;

  // Global tensors, row-major with static shapes: (tokens, experts) and (tokens, top_k).
  Tensor gL = make_tensor(make_gmem_ptr(logits), make_layout(make_shape(Int<kTokens>{}, Int<kExperts>{}), LayoutRight{}));
  Tensor gI = make_tensor(make_gmem_ptr(ids), make_layout(make_shape(Int<kTokens>{}, Int<kTopK>{}), LayoutRight{}));
  Tensor gW = make_tensor(make_gmem_ptr(weights), make_layout(make_shape(Int<kTokens>{}, Int<kTopK>{}), LayoutRight{}));

  // This block's tile of kThreads tokens, then this thread's row.
  Tensor bL = local_tile(gL, make_shape(Int<kThreads>{}, Int<kExperts>{}), make_coord(blockIdx.x, 0)); // (256, 8)
  Tensor bI = local_tile(gI, make_shape(Int<kThreads>{}, Int<kTopK>{}), make_coord(blockIdx.x, 0));    // (256, 2)
  Tensor bW = local_tile(gW, make_shape(Int<kThreads>{}, Int<kTopK>{}), make_coord(blockIdx.x, 0));    // (256, 2)

  Tensor rL = make_tensor<bf16>(make_shape(Int<kExperts>{}));
  copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, bL(threadIdx.x, _), rL); // one 16-byte load

  float best_value = float(rL(0)), second_value = __int_as_float(0xff800000); // -inf
  int best = 0, second = -1;
  CUTE_UNROLL
  for (int e = 1; e < kExperts; ++e) {
    float v = float(rL(e));
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

  Tensor rI = make_tensor<int>(make_shape(Int<kTopK>{}));
  rI(0) = best;
  rI(1) = second;
  Tensor rW = make_tensor<bf16>(make_shape(Int<kTopK>{}));
  rW(0) = bf16(1.0f - w1); // round to nearest even (cvt.rn.bf16.f32)
  rW(1) = bf16(w1);
  copy(AutoVectorizingCopyWithAssumedAlignment<64>{}, rI, bI(threadIdx.x, _)); // one 8-byte store
  copy(AutoVectorizingCopyWithAssumedAlignment<32>{}, rW, bW(threadIdx.x, _)); // one 4-byte store
}

/* mkb:plan
launch top2_softmax grid(ceil_div(tokens, 256)) block(256) args(logits, expert_ids, expert_weights, i32(tokens))
*/
