#include "core/hash.hpp"

#include <fmt/format.h>

// Header-only use keeps xxHash's symbols out of libmkb's exported list.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdexcept>

namespace mkb {

std::string hash128::hex() const { return fmt::format("{:016x}{:016x}", high, low); }

hash128 xxh3_128(std::string_view data) {
  XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  return {h.high64, h.low64};
}

uint64_t xxh3_64(std::string_view data) { return XXH3_64bits(data.data(), data.size()); }

uint64_t xxh64(std::string_view data, uint64_t seed) { return XXH64(data.data(), data.size(), seed); }

struct hasher128::state {
  XXH3_state_t xxh;
};

hasher128::hasher128() : state_(std::make_unique<state>()) {
  if (XXH3_128bits_reset(&state_->xxh) != XXH_OK) throw std::runtime_error("XXH3 reset failed");
}

hasher128::~hasher128() = default;

hasher128 &hasher128::add(std::string_view part) {
  uint64_t length = part.size();
  XXH3_128bits_update(&state_->xxh, &length, sizeof length);
  XXH3_128bits_update(&state_->xxh, part.data(), part.size());
  return *this;
}

hash128 hasher128::digest() const {
  XXH128_hash_t h = XXH3_128bits_digest(&state_->xxh);
  return {h.high64, h.low64};
}

} // namespace mkb
