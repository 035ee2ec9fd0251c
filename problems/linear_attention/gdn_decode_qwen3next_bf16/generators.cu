// Structured inputs of gdn_decode_qwen3next_bf16: the original's fixed per-head tuples A_LOG and DT_BIAS
// (captured from Qwen3-Next 80B A3B at TP=2, 16 value heads), the same in every draw. Pure functions of
// (count, seed); 256-thread blocks over a grid-stride loop.
namespace {
constexpr int kHeads = 16;
__device__ const float kALog[kHeads] = {-0.169921875f, 2.34375f, 1.3359375f, 2.1875f, -0.9375f, -1.09375f,
                                        1.765625f, -0.443359375f, 0.91015625f, -0.8125f, 2.328125f, 0.205078125f,
                                        1.375f, 2.796875f, -0.88671875f, -1.3046875f};
__device__ const float kDtBias[kHeads] = {-2.078125f, -5.625f, -4.3125f, -3.421875f, -3.796875f, -3.296875f,
                                          -4.375f, -6.25f, -3.703125f, -0.2890625f, -5.21875f, -6.1875f,
                                          -3.046875f, -5.0625f, -4.875f, -5.34375f};

__device__ void write_table(float *out, unsigned long long count, const float *table) {
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = table[i % kHeads];
}
} // namespace

extern "C" __global__ void gdn_decode_a_log(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  write_table(static_cast<float *>(out), count, kALog);
}

extern "C" __global__ void gdn_decode_dt_bias(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  write_table(static_cast<float *>(out), count, kDtBias);
}
