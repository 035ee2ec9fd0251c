#include "worker/harness_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "worker/failure.hpp"
#include "worker/device_headers.hpp"

namespace mkb::worker {

namespace {

// Mirrors the guard_table of harness.cu.
struct guard_table {
  uint64_t address[64];
  uint32_t words[64];
  uint32_t count;
  uint32_t pattern;
  uint32_t first;
};

} // namespace

double stat_as_double(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

harness_kernels::harness_kernels(const gpu &g, const compile_cache &cache, const std::string &arch) : gpu_(&g) {
  const embedded_file *source = find_embedded(embedded::device_sources(), "harness.cu");
  if (!source) fail(MKB_ERR_INTERNAL, "harness.cu is not built in");
  cached_compile compiled = cache.compile(source->data, "harness.cu", arch, problem_headers());
  if (!compiled.output.ok) throw infrastructure_failure("the harness's own kernels do not compile:\n" + compiled.output.log);
  module_ = loaded_module(g, compiled.output.cubin, "harness");
  auto get = [&](const char *name) {
    CUfunction f = module_.function(name);
    if (!f) throw infrastructure_failure(fmt::format("harness kernel {} is missing", name));
    return f;
  };
  fill_ = get("mkb_fill");
  compare_anchor_ = get("mkb_compare_anchor");
  find_mismatch_ = get("mkb_find_mismatch");
  compare_exact_ = get("mkb_compare_exact");
  sort_rows_ = get("mkb_sort_rows");
  hash_chunks_ = get("mkb_hash_chunks");
  compare_digests_ = get("mkb_compare_digests");
  check_guards_ = get("mkb_check_guards");
  empty_ = get("mkb_empty");
  check_cuda(g.cu().cuFuncSetAttribute(sort_rows_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 << 10),
             "cuFuncSetAttribute(mkb_sort_rows)");
}

void harness_kernels::reserve_stats(size_t blocks) {
  if (blocks <= stat_blocks_) return;
  stats_ = device_memory(blocks * sizeof(stat_block));
  stats_host_ = pinned_memory(blocks * sizeof(stat_block));
  stat_blocks_ = blocks;
}

void harness_kernels::reset_stats(size_t block) const {
  const driver_api &cu = gpu_->cu();
  check_cuda(cu.cuMemsetD32Async(stats(block), 0, sizeof(stat_block) / 4, gpu_->stream()), "resetting statistics");
  check_cuda(cu.cuMemsetD32Async(stats(block) + first_index * 8, 0xffffffffu, 2, gpu_->stream()), "resetting statistics");
}

const std::vector<stat_block> &harness_kernels::read_stats(std::chrono::milliseconds timeout, const std::string &what) {
  CUresult rc = gpu_->cu().cuMemcpyDtoHAsync(stats_host_.get(), stats_.get(), stat_blocks_ * sizeof(stat_block),
                                             gpu_->stream());
  if (rc != CUDA_SUCCESS) throw_cuda_failure(rc, what);
  const_cast<gpu *>(gpu_)->synchronize(timeout, what);
  stats_copy_.resize(stat_blocks_);
  std::memcpy(stats_copy_.data(), stats_host_.get(), stat_blocks_ * sizeof(stat_block));
  return stats_copy_;
}

void harness_kernels::launch(CUfunction f, uint64_t work_items, void **params, uint32_t shared, uint32_t block) const {
  uint64_t wanted = std::max<uint64_t>(1, (work_items + block - 1) / block);
  uint64_t limit = uint64_t(gpu_->facts().sm_count) * 8;
  CUlaunchConfig config{};
  config.gridDimX = static_cast<unsigned>(std::min(wanted, limit));
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = block;
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = shared;
  config.hStream = gpu_->stream();
  CUresult rc = gpu_->cu().cuLaunchKernelEx(&config, f, params, nullptr);
  if (rc != CUDA_SUCCESS) throw_cuda_failure(rc, "a harness kernel launch");
}

void harness_kernels::launch_empty() const { launch(empty_, 1, nullptr, 0, 32); }

void harness_kernels::fill(CUdeviceptr out, const tensor_spec &t, uint64_t seed, uint32_t stream) const {
  int dtype_code = static_cast<int>(t.type);
  int kind = static_cast<int>(t.dist.kind);
  double a = t.dist.kind == spec::DistributionKind::normal ? t.dist.mean : t.dist.low;
  double b = t.dist.kind == spec::DistributionKind::normal ? t.dist.stddev : t.dist.high;
  uint64_t count = t.count;
  uint64_t row = t.shape.empty() ? 1 : static_cast<uint64_t>(t.shape.back());
  void *params[] = {&out, &count, &dtype_code, &kind, &a, &b, &seed, &stream, &row};
  launch(fill_, (count + 3) / 4, params);
}

void harness_kernels::compare_anchor(CUdeviceptr out, CUdeviceptr ref, CUdeviceptr anchor, const tensor_spec &t,
                                     size_t block) const {
  CUdeviceptr slot = stats(block);
  uint64_t count = t.count;
  int dtype_code = static_cast<int>(t.type);
  void *params[] = {&out, &ref, &anchor, &count, &dtype_code, &slot};
  launch(compare_anchor_, count, params);
}

void harness_kernels::find_mismatch(CUdeviceptr out, CUdeviceptr anchor, const tensor_spec &t, double allowance,
                                    size_t block) const {
  CUdeviceptr slot = stats(block);
  uint64_t count = t.count;
  int dtype_code = static_cast<int>(t.type);
  void *params[] = {&out, &anchor, &count, &dtype_code, &allowance, &slot};
  launch(find_mismatch_, count, params);
}

void harness_kernels::compare_exact(CUdeviceptr out, CUdeviceptr anchor, const tensor_spec &t, size_t block) const {
  CUdeviceptr slot = stats(block);
  uint64_t count = t.count;
  int element_bytes = static_cast<int>(dtype_bytes(t.type));
  void *params[] = {&out, &anchor, &count, &element_bytes, &slot};
  launch(compare_exact_, count, params);
}

void harness_kernels::sort_rows(CUdeviceptr data, const tensor_spec &t) const {
  uint32_t n = static_cast<uint32_t>(t.shape.back());
  uint64_t rows = t.count / n;
  int dtype_code = static_cast<int>(t.type);
  uint32_t padded = 1;
  while (padded < n) padded <<= 1;
  uint32_t shared = static_cast<uint32_t>(padded * dtype_bytes(t.type));
  void *params[] = {&data, &rows, &n, &dtype_code};
  launch(sort_rows_, rows * 256, params, shared);
}

void harness_kernels::hash_chunks(CUdeviceptr data, uint64_t bytes, uint64_t seed, CUdeviceptr digests) const {
  void *params[] = {&data, &bytes, &seed, &digests};
  launch(hash_chunks_, digest_count(bytes), params, 0, 128);
}

void harness_kernels::compare_digests(CUdeviceptr before, CUdeviceptr after, uint64_t chunks, size_t block) const {
  CUdeviceptr slot = stats(block);
  void *params[] = {&before, &after, &chunks, &slot};
  launch(compare_digests_, chunks, params);
}

void harness_kernels::check_guards(const std::vector<const guard_region *> &regions, size_t block) const {
  CUdeviceptr slot = stats(block);
  // A check may guard more regions than one table holds (a problem with many scratch buffers): one
  // launch per table, all into the same slot, which keeps the lowest damaged region.
  constexpr size_t per_launch = std::size(guard_table{}.address);
  for (size_t first = 0; first == 0 || first < regions.size(); first += per_launch) {
    guard_table table{};
    table.pattern = guard_pattern;
    table.first = static_cast<uint32_t>(first);
    table.count = static_cast<uint32_t>(std::min(per_launch, regions.size() - first));
    for (uint32_t i = 0; i < table.count; ++i) {
      table.address[i] = regions[first + i]->address;
      table.words[i] = regions[first + i]->words;
    }
    void *params[] = {&table, &slot};
    CUlaunchConfig config{};
    config.gridDimX = std::max<uint32_t>(1, table.count);
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 256;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = gpu_->stream();
    CUresult rc = gpu_->cu().cuLaunchKernelEx(&config, check_guards_, params, nullptr);
    if (rc != CUDA_SUCCESS) throw_cuda_failure(rc, "the guard check");
  }
}

} // namespace mkb::worker
