// The harness's own kernels on a real GPU: input distributions, the device XXH64 against libxxhash,
// comparisons and guard checks.
#include "worker/harness_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "core/hash.hpp"
#include "support/gpu_presence.hpp"
#include "support/temp_dir.hpp"

namespace mkb::worker {
namespace {

class HarnessGpu : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (!testing::gpu_absence_reason().empty()) return;
    cache_dir_ = new testing::temp_dir();
    gpu_ = new gpu(0);
    harness_ = new harness_kernels(*gpu_, compile_cache(cache_dir_->path()),
                                   arch_for_compute_capability(gpu_->facts().major, gpu_->facts().minor));
  }
  static void TearDownTestSuite() {
    delete harness_;
    delete gpu_;
    delete cache_dir_;
  }
  void SetUp() override { MKB_REQUIRE_GPU(); }

  template <typename T> std::vector<T> download(const device_memory &m, size_t count) {
    std::vector<T> out(count);
    check_cuda(gpu_->cu().cuMemcpyDtoHAsync(out.data(), m.get(), count * sizeof(T), gpu_->stream()), "copy");
    gpu_->synchronize(std::chrono::seconds(10), "copy");
    return out;
  }
  template <typename T> device_memory upload(const std::vector<T> &data) {
    device_memory m(data.size() * sizeof(T));
    check_cuda(gpu_->cu().cuMemcpyHtoDAsync(m.get(), data.data(), data.size() * sizeof(T), gpu_->stream()), "copy");
    gpu_->synchronize(std::chrono::seconds(10), "copy");
    return m;
  }
  static tensor_spec tensor(dtype type, std::vector<int64_t> shape, spec::DistributionKind kind, double a, double b) {
    tensor_spec t;
    t.type = type;
    t.shape = shape;
    for (int64_t e : shape) t.count *= static_cast<uint64_t>(e);
    t.dist.kind = kind;
    if (kind == spec::DistributionKind::normal) {
      t.dist.mean = a;
      t.dist.stddev = b;
    } else {
      t.dist.low = a;
      t.dist.high = b;
    }
    return t;
  }

  static testing::temp_dir *cache_dir_;
  static gpu *gpu_;
  static harness_kernels *harness_;
};

testing::temp_dir *HarnessGpu::cache_dir_ = nullptr;
gpu *HarnessGpu::gpu_ = nullptr;
harness_kernels *HarnessGpu::harness_ = nullptr;

TEST_F(HarnessGpu, NormalUniformAndIntegerDraws) {
  const size_t n = 1 << 20;
  device_memory m(n * 8);
  tensor_spec normal = tensor(dtype::fp32, {1 << 20}, spec::DistributionKind::normal, 1.0, 2.0);
  harness_->fill(m.get(), normal, 42, 0);
  std::vector<float> v = download<float>(m, n);
  double mean = std::accumulate(v.begin(), v.end(), 0.0) / n, var = 0;
  for (float x : v) var += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 1.0, 0.01);
  EXPECT_NEAR(std::sqrt(var / n), 2.0, 0.01);

  harness_->fill(m.get(), normal, 43, 0);
  EXPECT_NE(download<float>(m, n), v) << "another seed gives another draw";
  harness_->fill(m.get(), normal, 42, 0);
  EXPECT_EQ(download<float>(m, n), v) << "the same seed gives the same draw";

  tensor_spec uniform = tensor(dtype::fp64, {1 << 20}, spec::DistributionKind::uniform, -3.0, 5.0);
  harness_->fill(m.get(), uniform, 7, 1);
  std::vector<double> u = download<double>(m, n);
  EXPECT_GE(*std::min_element(u.begin(), u.end()), -3.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 5.0);
  EXPECT_NEAR(std::accumulate(u.begin(), u.end(), 0.0) / n, 1.0, 0.02);

  tensor_spec integers = tensor(dtype::int32, {1 << 20}, spec::DistributionKind::integer_range, -5, 5);
  harness_->fill(m.get(), integers, 9, 2);
  std::vector<int32_t> k = download<int32_t>(m, n);
  std::set<int32_t> values(k.begin(), k.end());
  EXPECT_EQ(values, (std::set<int32_t>{-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5}));
}

TEST_F(HarnessGpu, PermutationRows) {
  device_memory m(1000 * 64 * 4);
  tensor_spec t = tensor(dtype::int32, {64, 1000}, spec::DistributionKind::permutation, 0, 0);
  harness_->fill(m.get(), t, 5, 0);
  std::vector<int32_t> v = download<int32_t>(m, 64 * 1000);
  for (int row = 0; row < 64; ++row) {
    std::vector<int32_t> sorted(v.begin() + row * 1000, v.begin() + (row + 1) * 1000);
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i) << "row " << row;
  }
  EXPECT_NE(std::vector<int32_t>(v.begin(), v.begin() + 1000), std::vector<int32_t>(v.begin() + 1000, v.begin() + 2000));
}

TEST_F(HarnessGpu, DeviceXxh64MatchesLibxxhash) {
  const size_t bytes = (5 << 20) + 123;
  device_memory data(bytes);
  tensor_spec t = tensor(dtype::uint8, {static_cast<int64_t>(bytes)}, spec::DistributionKind::integer_range, 0, 255);
  harness_->fill(data.get(), t, 11, 0);
  uint64_t chunks = harness_kernels::digest_count(bytes);
  device_memory digests(chunks * 8);
  harness_->hash_chunks(data.get(), bytes, 0x1234, digests.get());
  std::vector<uint64_t> device_digests = download<uint64_t>(digests, chunks);
  std::vector<char> host = download<char>(data, bytes);
  for (uint64_t c = 0; c < chunks; ++c) {
    size_t length = std::min<size_t>(4096, bytes - c * 4096);
    ASSERT_EQ(device_digests[c], xxh64(std::string_view(host.data() + c * 4096, length), 0x1234)) << "chunk " << c;
  }
}

TEST_F(HarnessGpu, CompareAgainstTheAnchor) {
  std::vector<float> out = {1.0f, 2.0f, NAN, 4.5f}, ref = {1.0f, 2.1f, 3.0f, 4.0f};
  std::vector<double> anchor = {1.0, 2.0, 3.0, 4.0};
  device_memory o = upload(out), r = upload(ref), a = upload(anchor);
  tensor_spec t = tensor(dtype::fp32, {4}, spec::DistributionKind::normal, 0, 1);
  harness_->reserve_stats(1);
  harness_->reset_stats(0);
  harness_->compare_anchor(o.get(), r.get(), a.get(), t, 0);
  stat_block s = harness_->read_stats(std::chrono::seconds(10), "compare")[0];
  EXPECT_DOUBLE_EQ(stat_as_double(s[max_error]), 0.5);
  EXPECT_NEAR(stat_as_double(s[reference_error]), 0.1, 1e-6);
  EXPECT_DOUBLE_EQ(stat_as_double(s[anchor_max]), 4.0);
  EXPECT_EQ(s[output_nan], 1u);
  harness_->reset_stats(0);
  harness_->find_mismatch(o.get(), a.get(), t, 0.3, 0);
  s = harness_->read_stats(std::chrono::seconds(10), "mismatch")[0];
  EXPECT_EQ(s[first_index], 2u);
  EXPECT_EQ(s[mismatches], 2u);
}

TEST_F(HarnessGpu, GuardsCatchWritesPastTheEnd) {
  splitmix64 random(1);
  rotating_arena arena({"a", "b"}, {1000, 4096}, 2, 64 << 10);
  buffer_layout layout = arena.next(random);
  fill_guards(*gpu_, layout);
  std::vector<const guard_region *> regions;
  for (const guard_region &g : layout.guards) regions.push_back(&g);
  harness_->reserve_stats(1);
  harness_->reset_stats(0);
  harness_->check_guards(regions, 0);
  EXPECT_EQ(harness_->read_stats(std::chrono::seconds(10), "guards")[0][first_index], no_index);
  // One byte past the end of "a" (1000 bytes) lands in its trailing guard (region 1).
  check_cuda(gpu_->cu().cuMemsetD8Async(layout.addresses[0] + 1000, 0, 1, gpu_->stream()), "poke");
  harness_->reset_stats(0);
  harness_->check_guards(regions, 0);
  EXPECT_EQ(harness_->read_stats(std::chrono::seconds(10), "guards")[0][first_index] >> 32, 1u);
  EXPECT_NE(arena.next(random).addresses[0], layout.addresses[0]) << "the next draw moves the buffers";
}

} // namespace
} // namespace mkb::worker
