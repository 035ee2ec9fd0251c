// Zipf-like token ids over the 65536-entry Jamba vocabulary. rank = floor((V + 1)^u) - 1 for u uniform
// in (0, 1] gives P(rank = k) = ln((k + 2) / (k + 1)) / ln(V + 1), about 1 / ((k + 1.5) ln(V + 1)): a
// Zipf law with exponent 1 (the most frequent id takes 6.25% of the tokens, the second 3.66%, the
// tenth 0.82%, as punctuation and function words do in tokenized text). Ranks are mapped to ids by a
// per-draw pseudo-random permutation of the vocabulary, so which ids are frequent changes every draw.
#include "mkb_random.cuh"

extern "C" __global__ void zipf_token_ids(void *out, unsigned long long count, unsigned long long seed) {
  const unsigned long long vocab = 65536;
  const double log_span = log((double)vocab + 1.0);
  int *ids = static_cast<int *>(out);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const mkb_random::u32x4 w = mkb_random::random_words(seed, i, 0x7a697066u);
    const double u = mkb_random::uniform_open_double(w.v[0], w.v[1]);  // (0, 1]
    double k = floor(exp(u * log_span)) - 1.0;                         // [0, vocab]
    if (k < 0.0) k = 0.0;
    if (k > (double)(vocab - 1)) k = (double)(vocab - 1);
    ids[i] = (int)mkb_random::permute_index((unsigned long long)k, vocab, seed, 0);
  }
}
