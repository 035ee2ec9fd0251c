// Structured inputs of patch_merger_mlp_qwen3_omni_bf16 (original #27), drawn as the original's make_inputs
// draws them.
#include "mkb_ops.cuh"
#include "mkb_random.cuh"

// Patch embeddings with a per-token mean offset: hidden = bf16(bf16(z) + bf16(z_row) * 0.5), z one normal
// draw per element and z_row one per patch row (HIDDEN_SIZE = 1536 elements), in bf16 arithmetic as the
// original's `randn(bf16) + randn([NUM_PATCHES, 1], bf16) * 0.5`. Each row is N(z_row / 2, 1).
extern "C" __global__ void patch_embeddings(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long hidden = 1536;
  bf16 *x = static_cast<bf16 *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    float z, zr, unused;
    const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 0x70617463u);
    mkb_random::box_muller(mkb_random::uniform_open(w.v[0]), mkb_random::uniform_open(w.v[1]), &z, &unused);
    const mkb_random::u32x4 r = mkb_random::random_words(seed, i / hidden, 0x726f7773u);
    mkb_random::box_muller(mkb_random::uniform_open(r.v[0]), mkb_random::uniform_open(r.v[1]), &zr, &unused);
    const float offset = f32(mkb_ops::store<bf16>(f32(mkb_ops::store<bf16>(zr)) * 0.5f));
    x[i] = mkb_ops::store<bf16>(f32(mkb_ops::store<bf16>(z)) + offset);
  }
}

// grid_thw [NUM_GRIDS, 3] int64 as the original's make_inputs computes it for NUM_PATCHES = 32768,
// NUM_GRIDS = 8, MERGE_SIZE = 2: every grid gets 4096 patches (the last takes the remaining 4096),
// side = isqrt(4096) = 64, h = 64, w = 4096 / 64 = 64, t = 4096 / (64 * 64) = 1: each row is (1, 64, 64).
// Deterministic: the seed is not used.
extern "C" __global__ void grid_thw_rows(void *out, unsigned long long count, unsigned long long seed) {
  long long *g = static_cast<long long *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    g[i] = i % 3 == 0 ? 1 : 64;
}
