// Building blocks for problem baselines and anchors (docs/PROBLEMS.md): value conversions, the
// activations eager frameworks use, and macros that define one extern "C" kernel per eager operation:
// elementwise maps, row reductions and column reductions. Matrix products are not here: a plan's
// `matmul` step runs them through cuBLAS (baselines, as an eager framework does) or in float64
// (anchors). Available to baselines, anchors and generators; never to submissions.
//
// A baseline computes each operation in fp32 and rounds once to the output's dtype, as PyTorch does
// for bf16 and fp16 tensors; an anchor computes in double and stores double.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

typedef __nv_bfloat16 bf16;
typedef __half fp16;

// ---- Reading a value at the arithmetic's width -----------------------------------------------------

__device__ __forceinline__ float f32(bf16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float f32(fp16 v) { return __half2float(v); }
__device__ __forceinline__ float f32(float v) { return v; }
__device__ __forceinline__ float f32(int v) { return (float)v; }
__device__ __forceinline__ float f32(long long v) { return (float)v; }
__device__ __forceinline__ float f32(unsigned char v) { return (float)v; }
__device__ __forceinline__ float f32(bool v) { return v ? 1.0f : 0.0f; }
__device__ __forceinline__ double f64(bf16 v) { return (double)__bfloat162float(v); }
__device__ __forceinline__ double f64(fp16 v) { return (double)__half2float(v); }
__device__ __forceinline__ double f64(float v) { return (double)v; }
__device__ __forceinline__ double f64(double v) { return v; }
__device__ __forceinline__ double f64(int v) { return (double)v; }
__device__ __forceinline__ double f64(long long v) { return (double)v; }
__device__ __forceinline__ double f64(unsigned char v) { return (double)v; }
__device__ __forceinline__ double f64(bool v) { return v ? 1.0 : 0.0; }

// ---- Storing: one rounding, to nearest even --------------------------------------------------------

namespace mkb_ops {
template <class T> struct store_as;
template <> struct store_as<bf16> {
  __device__ static bf16 from(float v) { return __float2bfloat16_rn(v); }
  __device__ static bf16 from(double v) { return __double2bfloat16(v); }
};
template <> struct store_as<fp16> {
  __device__ static fp16 from(float v) { return __float2half_rn(v); }
  __device__ static fp16 from(double v) { return __double2half(v); }
};
template <> struct store_as<float> {
  __device__ static float from(float v) { return v; }
  __device__ static float from(double v) { return (float)v; }
};
template <> struct store_as<double> {
  __device__ static double from(float v) { return (double)v; }
  __device__ static double from(double v) { return v; }
};
template <> struct store_as<int> {
  __device__ static int from(float v) { return (int)v; }
  __device__ static int from(double v) { return (int)v; }
  __device__ static int from(int v) { return v; }
  __device__ static int from(long long v) { return (int)v; }
};
template <class T, class V> __device__ __forceinline__ T store(V v) { return store_as<T>::from(v); }

// Rounds through a storage type: bf16(x) in a reference becomes round_to<bf16>(x) in an anchor
// only where the problem's semantics really have that rounding (a cast in the model itself).
template <class T> __device__ __forceinline__ float round_to(float v) { return f32(store<T>(v)); }
} // namespace mkb_ops

// ---- Activations, at the argument's width ----------------------------------------------------------

__device__ __forceinline__ float mkb_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ double mkb_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
__device__ __forceinline__ float mkb_silu(float x) { return x / (1.0f + expf(-x)); }
__device__ __forceinline__ double mkb_silu(double x) { return x / (1.0 + exp(-x)); }
// GELU, exact (erf) form: torch.nn.functional.gelu(x)
__device__ __forceinline__ float mkb_gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ double mkb_gelu(double x) { return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440)); }
// GELU, tanh approximation: gelu(x, approximate="tanh")
__device__ __forceinline__ float mkb_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}
__device__ __forceinline__ double mkb_gelu_tanh(double x) {
  return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
// Derivatives, for backward passes.
__device__ __forceinline__ float mkb_silu_grad(float x) {
  float s = mkb_sigmoid(x);
  return s * (1.0f + x * (1.0f - s));
}
__device__ __forceinline__ double mkb_silu_grad(double x) {
  double s = mkb_sigmoid(x);
  return s * (1.0 + x * (1.0 - s));
}
__device__ __forceinline__ float mkb_gelu_grad(float x) {
  return 0.5f * (1.0f + erff(x * 0.70710678118654752f)) + x * 0.39894228040143268f * expf(-0.5f * x * x);
}
__device__ __forceinline__ double mkb_gelu_grad(double x) {
  return 0.5 * (1.0 + erf(x * 0.70710678118654752440)) + x * 0.39894228040143267794 * exp(-0.5 * x * x);
}
__device__ __forceinline__ float mkb_gelu_tanh_grad(float x) {
  const float k = 0.79788456080286536f, c = 0.044715f;
  float t = tanhf(k * (x + c * x * x * x));
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * k * (1.0f + 3.0f * c * x * x);
}
__device__ __forceinline__ double mkb_gelu_tanh_grad(double x) {
  const double k = 0.79788456080286535588, c = 0.044715;
  double t = tanh(k * (x + c * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * c * x * x);
}

// ---- Block-wide reduction --------------------------------------------------------------------------

namespace mkb_ops {
struct sum_op {
  template <class T> __device__ static T identity() { return T(0); }
  template <class T> __device__ static T apply(T a, T b) { return a + b; }
};
struct max_op {
  template <class T> __device__ static T identity() { return T(-__int_as_float(0x7f800000)); }
  template <class T> __device__ static T apply(T a, T b) { return (a != a || a > b) ? a : b; } // NaN wins
};

// Reduces one value per thread of a 1-D block (any size up to 1024); every thread gets the result.
template <class Op, class T> __device__ T block_reduce(T v) {
  __shared__ T partial[32];
  for (int offset = 16; offset > 0; offset /= 2) v = Op::apply(v, __shfl_xor_sync(0xffffffffu, v, offset));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = (blockDim.x + 31) / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  T total = lane < warps ? partial[lane] : Op::template identity<T>();
  for (int offset = 16; offset > 0; offset /= 2) total = Op::apply(total, __shfl_xor_sync(0xffffffffu, total, offset));
  __syncthreads(); // partial[] is reused by the next call
  return total;
}
} // namespace mkb_ops

#define MKB_OPS_EXPAND(...) __VA_ARGS__

// MKB_MAP(name, out_type, (parameters), expression)
// Defines `name(out_type *out, parameters..., long long n)`: out[i] = expression for i in [0, n),
// rounded once to out_type. The expression sees `i` (long long) and the parameters. Each thread
// computes four elements a block apart before it stores any, as eager PyTorch's elementwise kernels
// do: four loads in flight per thread are what keeps DRAM busy (one is not: a baseline so written
// runs at about half the bandwidth of the eager program it stands for). A block covers
// 4 * blockDim.x elements: launch grid(ceil_div(n, 1024)) block(256). Any grid is correct (a
// grid-stride loop; blocks past the end return). The macro's own names start with mkb_: a parameter
// named k or base must not be shadowed silently by its loop (it once was: a baseline read out of bounds).
#define MKB_MAP(name, out_type, params, expression)                                                   \
  extern "C" __global__ void name(out_type *__restrict__ out, MKB_OPS_EXPAND params, long long n) {   \
    constexpr int mkb_unroll = 4;                                                                     \
    for (long long mkb_base = (long long)blockIdx.x * blockDim.x * mkb_unroll; mkb_base < n;           \
         mkb_base += (long long)gridDim.x * blockDim.x * mkb_unroll) {                                \
      out_type mkb_values[mkb_unroll];                                                                \
      _Pragma("unroll") for (int mkb_k = 0; mkb_k < mkb_unroll; ++mkb_k) {                            \
        const long long i = mkb_base + threadIdx.x + (long long)mkb_k * blockDim.x;                   \
        if (i < n) mkb_values[mkb_k] = mkb_ops::store<out_type>(expression);                          \
      }                                                                                               \
      _Pragma("unroll") for (int mkb_k = 0; mkb_k < mkb_unroll; ++mkb_k) {                            \
        const long long i = mkb_base + threadIdx.x + (long long)mkb_k * blockDim.x;                   \
        if (i < n) out[i] = mkb_values[mkb_k];                                                        \
      }                                                                                               \
    }                                                                                                 \
  }

// MKB_ROW_REDUCE(name, out_type, acc_type, op, (parameters), element, finish)
// Defines `name(out_type *out, parameters..., int cols)`, one block per row: for row `r` =
// blockIdx.x, acc = op over c in [0, cols) of `element` (sees r, c, cols), accumulated in acc_type;
// out[r] = finish (sees acc, r, cols). op is mkb_ops::sum_op or mkb_ops::max_op. Launch grid(rows)
// with a block of a multiple of 32 threads.
#define MKB_ROW_REDUCE(name, out_type, acc_type, op, params, element, finish)                        \
  extern "C" __global__ void name(out_type *__restrict__ out, MKB_OPS_EXPAND params, int cols) {      \
    const long long r = blockIdx.x;                                                                   \
    acc_type acc = op::identity<acc_type>();                                                          \
    _Pragma("unroll 4")                                                                               \
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc = op::apply(acc, (acc_type)(element));   \
    acc = mkb_ops::block_reduce<op>(acc);                                                             \
    if (threadIdx.x == 0) out[r] = mkb_ops::store<out_type>(finish);                                  \
  }

// MKB_COL_REDUCE(name, out_type, acc_type, op, (parameters), element, finish)
// Defines `name(out_type *out, parameters..., int rows, int cols)`: for batch `b` = blockIdx.y and
// column c, acc = op over r in [0, rows) of `element` (sees b, r, c, rows, cols); out[b * cols + c]
// = finish (sees acc, b, c, rows). Launch grid(ceil_div(cols, 32), batches) block(32, 8).
#define MKB_COL_REDUCE(name, out_type, acc_type, op, params, element, finish)                        \
  extern "C" __global__ void name(out_type *__restrict__ out, MKB_OPS_EXPAND params, int rows, int cols) { \
    __shared__ acc_type partial[8][33];                                                               \
    const long long b = blockIdx.y;                                                                   \
    const int c = blockIdx.x * 32 + threadIdx.x;                                                      \
    acc_type acc = op::identity<acc_type>();                                                          \
    if (c < cols)                                                                                     \
      for (int r = threadIdx.y; r < rows; r += blockDim.y) acc = op::apply(acc, (acc_type)(element)); \
    partial[threadIdx.y][threadIdx.x] = acc;                                                          \
    __syncthreads();                                                                                  \
    if (threadIdx.y == 0 && c < cols) {                                                               \
      for (int y = 1; y < blockDim.y; ++y) acc = op::apply(acc, partial[y][threadIdx.x]);             \
      out[b * cols + c] = mkb_ops::store<out_type>(finish);                                           \
    }                                                                                                 \
  }
