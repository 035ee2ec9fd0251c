// Typed calls of the harness's own kernels (device/harness.cu), and the statistics blocks they
// write. All calls queue work on the worker's stream; read_stats() waits for it.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cuda/compile_cache.hpp"
#include "spec/problem.hpp"
#include "worker/buffers.hpp"
#include "worker/loaded_plan.hpp"

namespace mkb::worker {

// Slot meanings, as in harness.cu.
enum stat_slot : int { max_error, reference_error, anchor_max, output_nan, reference_nan, anchor_nonfinite, first_index, mismatches };
using stat_block = std::array<uint64_t, 8>;
inline constexpr uint64_t no_index = ~uint64_t(0);

double stat_as_double(uint64_t bits);

class harness_kernels {
public:
  // Compiles (or finds in the cache) and loads harness.cu; failures are infrastructure failures.
  harness_kernels(const gpu &g, const compile_cache &cache, const std::string &arch);

  const gpu &device() const { return *gpu_; }

  // Statistics blocks: reset, then read back after the kernels wrote them.
  void reserve_stats(size_t blocks);
  CUdeviceptr stats(size_t block) const { return stats_.get() + block * sizeof(stat_block); }
  void reset_stats(size_t block) const;
  // Waits for the stream (with `timeout`) and copies every block to the host.
  const std::vector<stat_block> &read_stats(std::chrono::milliseconds timeout, const std::string &what);

  void fill(CUdeviceptr out, const tensor_spec &t, uint64_t seed, uint32_t stream) const;
  void compare_anchor(CUdeviceptr out, CUdeviceptr ref, CUdeviceptr anchor, const tensor_spec &t, size_t block) const;
  void find_mismatch(CUdeviceptr out, CUdeviceptr anchor, const tensor_spec &t, double allowance, size_t block) const;
  void compare_exact(CUdeviceptr out, CUdeviceptr anchor, const tensor_spec &t, size_t block) const;
  void sort_rows(CUdeviceptr data, const tensor_spec &t) const;
  void hash_chunks(CUdeviceptr data, uint64_t bytes, uint64_t seed, CUdeviceptr digests) const;
  void compare_digests(CUdeviceptr before, CUdeviceptr after, uint64_t chunks, size_t block) const;
  // Checks every guard of `layouts`; FIRST_INDEX of `block` = (region index << 32) | word.
  void check_guards(const std::vector<const guard_region *> &regions, size_t block) const;
  // One launch of a kernel that does nothing (the launch-overhead floor).
  void launch_empty() const;

  static uint64_t digest_count(uint64_t bytes) { return (bytes + 4095) / 4096; }
  static constexpr uint32_t max_sorted_row = 8192;

private:
  void launch(CUfunction f, uint64_t work_items, void **params, uint32_t shared = 0, uint32_t block = 256) const;

  const gpu *gpu_;
  loaded_module module_;
  CUfunction fill_, compare_anchor_, find_mismatch_, compare_exact_, sort_rows_, hash_chunks_, compare_digests_,
      check_guards_, empty_;
  device_memory stats_;
  pinned_memory stats_host_;
  size_t stat_blocks_ = 0;
  std::vector<stat_block> stats_copy_;
};

} // namespace mkb::worker
