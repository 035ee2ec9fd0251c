// Device memory for evaluation draws. Every buffer sits between two guard regions filled with a
// known pattern, so a write past either end is found. A rotating_arena hands out a fresh layout per
// draw: another of its slots and another random shift, so no buffer keeps its address.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "worker/gpu.hpp"

namespace mkb::worker {

inline constexpr size_t guard_bytes = 16 << 10;
inline constexpr uint32_t guard_pattern = 0x5aa5c33cu;
inline constexpr size_t buffer_alignment = 256;

struct guard_region {
  CUdeviceptr address = 0;
  uint32_t words = 0;
  std::string description; // "after 'y'"
};

struct buffer_layout {
  std::vector<CUdeviceptr> addresses; // one per requested size, in order
  std::vector<guard_region> guards;   // before and after each buffer
};

class rotating_arena {
public:
  rotating_arena() = default;
  // `names` label the buffers in guard descriptions; `slots` layouts rotate; shifts vary within
  // `max_shift` bytes.
  rotating_arena(std::vector<std::string> names, std::vector<uint64_t> sizes, int slots, size_t max_shift);

  // The next draw's layout. Guards are not filled; fill_guards() does that on the stream.
  buffer_layout next(splitmix64 &random);
  bool empty() const { return sizes_.empty(); }
  const std::vector<uint64_t> &sizes() const { return sizes_; }

private:
  std::vector<std::string> names_;
  std::vector<uint64_t> sizes_;
  std::vector<device_memory> slots_;
  size_t max_shift_ = 0;
  size_t next_slot_ = 0;
};

// Queues memsets that fill every guard of `layout` with guard_pattern.
void fill_guards(const gpu &g, const buffer_layout &layout);

} // namespace mkb::worker
