// Randomness. Seeds that an adversary must not predict come from the OS; everything derived from a
// seed goes through splitmix64 so it is reproducible from the seed alone.
#pragma once

#include <cstdint>

namespace mkb {

uint64_t os_random_u64(); // getrandom(2); never returns the same sequence twice

constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The seed of draw `index` of an evaluation with secret seed `seed`.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t index) { return mix64(seed ^ mix64(index + 1)); }

// A small deterministic generator for host-side choices (which timed draws to re-verify, shuffles).
class splitmix64 {
public:
  explicit splitmix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    return mix64(state_ - 0x9e3779b97f4a7c15ull);
  }
  uint64_t below(uint64_t bound) { return bound ? next() % bound : 0; }

private:
  uint64_t state_;
};

} // namespace mkb
