// RMSNorm over rows of 128 bf16 in one pass: each row is one aligned half-warp of 16 lanes, every lane
// holding 8 contiguous values (one 16-byte load and one 16-byte store). A 256-thread block covers 16
// rows; the sum of squares is reduced inside the half-warp with shuffles, so there is no shared
// memory and no barrier. fp32 throughout and one rounding, as reference.md.
#include <cuda_bf16.h>

constexpr int kHidden = 128;
constexpr int kLanesPerRow = kHidden / 8; // 16
constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / kLanesPerRow; // 16

union pack8 {
  uint4 vector;
  __nv_bfloat16 values[8];
};

extern "C" __global__ void __launch_bounds__(kThreads)
rmsnorm_h128(const __nv_bfloat16 *__restrict__ hidden_states, const __nv_bfloat16 *__restrict__ weight,
             __nv_bfloat16 *__restrict__ y, int rows, float eps) {
  const long long row = (long long)blockIdx.x * kRowsPerBlock + threadIdx.x / kLanesPerRow;
  const int part = threadIdx.x % kLanesPerRow;
  // rows is a multiple of 16 here, but a partial last block must still leave its half-warps whole.
  const bool active = row < rows;
  const long long offset = row * kHidden + part * 8;

  pack8 xs, ws;
  xs.vector = active ? *reinterpret_cast<const uint4 *>(hidden_states + offset) : make_uint4(0, 0, 0, 0);
  ws.vector = *reinterpret_cast<const uint4 *>(weight + part * 8);
  float h[8];
  float square_sum = 0.0f;
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    h[e] = __bfloat162float(xs.values[e]);
    square_sum += h[e] * h[e];
  }
  // The 16 lanes of a row are an aligned half-warp: xor offsets below 16 stay inside it.
#pragma unroll
  for (int o = kLanesPerRow / 2; o > 0; o >>= 1) square_sum += __shfl_xor_sync(0xffffffffu, square_sum, o);
  const float inv = rsqrtf(square_sum / (float)kHidden + eps);
  pack8 out;
#pragma unroll
  for (int e = 0; e < 8; ++e) out.values[e] = __float2bfloat16_rn((h[e] * inv) * __bfloat162float(ws.values[e]));
  if (active) *reinterpret_cast<uint4 *>(y + offset) = out.vector;
}

/* mkb:plan
launch rmsnorm_h128 grid(ceil_div(batch_size, 16)) block(256) args(hidden_states, weight, y, i32(batch_size), f32(eps))
*/
