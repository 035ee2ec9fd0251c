// XXH64 (Yann Collet's xxHash, 64-bit variant, written from its specification) for hashing device
// buffers in place. Tests check it against libxxhash on the same bytes.
#pragma once

#include "mkb_random.cuh"

namespace mkb_xxh64 {

constexpr mkb_u64 prime1 = 0x9E3779B185EBCA87ull, prime2 = 0xC2B2AE3D27D4EB4Full, prime3 = 0x165667B19E3779F9ull,
                  prime4 = 0x85EBCA77C2B2AE63ull, prime5 = 0x27D4EB2F165667C5ull;

MKB_HD mkb_u64 rotl(mkb_u64 x, int r) { return (x << r) | (x >> (64 - r)); }
MKB_HD mkb_u64 mix_round(mkb_u64 acc, mkb_u64 input) { return rotl(acc + input * prime2, 31) * prime1; }
MKB_HD mkb_u64 merge(mkb_u64 acc, mkb_u64 value) { return (acc ^ mix_round(0, value)) * prime1 + prime4; }

MKB_HD mkb_u64 read64(const unsigned char *p) {
  mkb_u64 v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
MKB_HD mkb_u32 read32(const unsigned char *p) {
  return static_cast<mkb_u32>(p[0]) | static_cast<mkb_u32>(p[1]) << 8 | static_cast<mkb_u32>(p[2]) << 16 |
         static_cast<mkb_u32>(p[3]) << 24;
}

// `p` must be 8-byte aligned for the fast path on the device; any alignment works on the host.
MKB_HD mkb_u64 hash(const unsigned char *p, mkb_u64 length, mkb_u64 seed) {
  const unsigned char *end = p + length;
  mkb_u64 h;
  if (length >= 32) {
    mkb_u64 v1 = seed + prime1 + prime2, v2 = seed + prime2, v3 = seed, v4 = seed - prime1;
    const unsigned char *limit = end - 32;
    do {
#if defined(__CUDA_ARCH__)
      const mkb_u64 *w = reinterpret_cast<const mkb_u64 *>(p);
      v1 = mix_round(v1, w[0]);
      v2 = mix_round(v2, w[1]);
      v3 = mix_round(v3, w[2]);
      v4 = mix_round(v4, w[3]);
#else
      v1 = mix_round(v1, read64(p));
      v2 = mix_round(v2, read64(p + 8));
      v3 = mix_round(v3, read64(p + 16));
      v4 = mix_round(v4, read64(p + 24));
#endif
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = seed + prime5;
  }
  h += length;
  while (p + 8 <= end) {
    h ^= mix_round(0, read64(p));
    h = rotl(h, 27) * prime1 + prime4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= static_cast<mkb_u64>(read32(p)) * prime1;
    h = rotl(h, 23) * prime2 + prime3;
    p += 4;
  }
  while (p < end) {
    h ^= *p * prime5;
    h = rotl(h, 11) * prime1;
    ++p;
  }
  h ^= h >> 33;
  h *= prime2;
  h ^= h >> 29;
  h *= prime3;
  h ^= h >> 32;
  return h;
}

} // namespace mkb_xxh64
