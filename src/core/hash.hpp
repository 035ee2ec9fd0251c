// Content hashes (xxHash): compile-cache keys, record checksums, and the reference implementation
// that the worker's on-GPU input hashing is tested against.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace mkb {

struct hash128 {
  uint64_t high = 0;
  uint64_t low = 0;
  std::string hex() const; // 32 lowercase hex digits
  bool operator==(const hash128 &) const = default;
};

hash128 xxh3_128(std::string_view data);
uint64_t xxh3_64(std::string_view data);
uint64_t xxh64(std::string_view data, uint64_t seed);

// XXH3-128 over several parts; each part is length-prefixed so ("ab","c") and ("a","bc") differ.
class hasher128 {
public:
  hasher128();
  ~hasher128();
  hasher128(const hasher128 &) = delete;
  hasher128 &operator=(const hasher128 &) = delete;
  hasher128 &add(std::string_view part);
  hash128 digest() const;

private:
  struct state;
  std::unique_ptr<state> state_;
};

} // namespace mkb
