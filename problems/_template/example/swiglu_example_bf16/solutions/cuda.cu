// Fused SwiGLU: one pass, each thread 8 elements through 16-byte loads and one 16-byte store, so gate
// and up are read once and h written once. Rounding as reference.md: SiLU in fp32 rounded to bf16,
// then the product in fp32 rounded to bf16.
#include <cuda_bf16.h>

union pack8 {
  uint4 vector;
  __nv_bfloat16 values[8];
};

extern "C" __global__ void __launch_bounds__(256)
swiglu(const __nv_bfloat16 *__restrict__ gate, const __nv_bfloat16 *__restrict__ up, __nv_bfloat16 *__restrict__ h,
       long long packs) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= packs) return;
  pack8 g, u, out;
  g.vector = reinterpret_cast<const uint4 *>(gate)[p];
  u.vector = reinterpret_cast<const uint4 *>(up)[p];
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float x = __bfloat162float(g.values[e]);
    const __nv_bfloat16 a = __float2bfloat16_rn(x / (1.0f + expf(-x)));
    out.values[e] = __float2bfloat16_rn(__bfloat162float(a) * __bfloat162float(u.values[e]));
  }
  reinterpret_cast<uint4 *>(h)[p] = out.vector;
}

/* mkb:plan
launch swiglu grid(ceil_div(tokens * intermediate / 8, 256)) block(256) args(gate, up, h, i64(tokens * intermediate / 8))
*/
