// Structured inputs of hyena_fft_conv_block_hyena_small_fp32.
//   exp_mod_deltas: the original's deterministic torch.linspace(log(0.01) / 1.5, log(0.01) / 0.3, 256)
//                   (Hyena's ExponentialModulation: slow and fast decay over the channels), in fp32 as
//                   PyTorch's CUDA linspace computes it (the first half from the start, the second half
//                   back from the end). The same in every draw.
extern "C" __global__ void hyena_exp_mod_deltas(void *out, unsigned long long count, unsigned long long seed) {
  (void)seed;
  float *deltas = static_cast<float *>(out);
  const float start = (float)(-4.605170185988091 / 1.5);  // log(0.01) / 1.5
  const float end = (float)(-4.605170185988091 / 0.3);    // log(0.01) / 0.3
  const long long steps = (long long)count;
  const float step = (end - start) / (float)(steps - 1);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const long long halfway = steps / 2;
    deltas[i] = (long long)i < halfway ? start + step * (float)i : end - step * (float)(steps - (long long)i - 1);
  }
}
