#include "worker/buffers.hpp"

#include <fmt/format.h>

namespace mkb::worker {

namespace {
size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
} // namespace

rotating_arena::rotating_arena(std::vector<std::string> names, std::vector<uint64_t> sizes, int slots,
                               size_t max_shift)
    : names_(std::move(names)), sizes_(std::move(sizes)), max_shift_(round_up(max_shift, buffer_alignment)) {
  if (sizes_.empty()) return;
  size_t capacity = max_shift_;
  for (uint64_t size : sizes_) capacity += 2 * guard_bytes + round_up(size, buffer_alignment);
  for (int i = 0; i < slots; ++i) slots_.emplace_back(capacity);
}

buffer_layout rotating_arena::next(splitmix64 &random) {
  buffer_layout layout;
  if (sizes_.empty()) return layout;
  const device_memory &slot = slots_[next_slot_];
  next_slot_ = (next_slot_ + 1) % slots_.size();
  size_t shift = max_shift_ ? random.below(max_shift_ / buffer_alignment) * buffer_alignment : 0;
  CUdeviceptr cursor = slot.get() + shift;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    size_t padded = round_up(sizes_[i], buffer_alignment);
    layout.guards.push_back({cursor, static_cast<uint32_t>(guard_bytes / 4), fmt::format("before '{}'", names_[i])});
    cursor += guard_bytes;
    layout.addresses.push_back(cursor);
    // The guard after starts right at the end of the data, rounded to a word; the alignment padding
    // up to it counts as guard too.
    CUdeviceptr end = cursor + round_up(sizes_[i], 4);
    uint32_t words = static_cast<uint32_t>((cursor + padded + guard_bytes - end) / 4);
    layout.guards.push_back({end, words, fmt::format("after '{}'", names_[i])});
    cursor += padded + guard_bytes;
  }
  return layout;
}

void fill_guards(const gpu &g, const buffer_layout &layout) {
  for (const guard_region &r : layout.guards)
    check_cuda(g.cu().cuMemsetD32Async(r.address, guard_pattern, r.words, g.stream()), "filling guard regions");
}

} // namespace mkb::worker
