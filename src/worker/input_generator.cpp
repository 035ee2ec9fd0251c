#include "worker/input_generator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/random.hpp"
#include "worker/device_headers.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {

input_generator::input_generator(const gpu *g, harness_kernels *harness, const problem_instance &problem,
                                 const compile_cache &cache, const std::string &arch,
                                 std::vector<compile_info> &compiles)
    : gpu_(g), harness_(harness), problem_(&problem) {
  if (problem.generators.empty()) return;
  cached_compile c = cache.compile(problem.generators, "generators.cu", arch, problem_headers());
  compiles.push_back({"generators", c.cache_hit, c.output.milliseconds, c.output.log});
  if (!c.output.ok) throw infrastructure_failure("the problem's generators do not compile:\n" + c.output.log);
  cubin_ = std::move(c.output.cubin);
}

void input_generator::load(const gpu &g) {
  gpu_ = &g;
  if (cubin_.empty()) return;
  module_ = loaded_module(g, cubin_, "generators");
  for (const tensor_spec &t : problem_->inputs) {
    if (t.dist.kind != spec::DistributionKind::generator) continue;
    CUfunction f = module_.function(t.dist.generator);
    if (!f) throw infrastructure_failure(fmt::format("generator '{}' of input '{}' is not in generators.cu", t.dist.generator, t.name));
    if (module_.parameter_sizes(f) != std::vector<size_t>{8, 8, 8})
      throw infrastructure_failure(fmt::format("generator '{}' must take (void *out, unsigned long long count, "
                                               "unsigned long long seed)",
                                               t.dist.generator));
    functions_[t.name] = f;
  }
}

void input_generator::generate(const buffer_layout &inputs, uint64_t seed, bool writable_only) const {
  for (size_t i = 0; i < problem_->inputs.size(); ++i) {
    const tensor_spec &t = problem_->inputs[i];
    if (writable_only && !t.writable) continue;
    CUdeviceptr out = inputs.addresses[i];
    if (t.dist.kind != spec::DistributionKind::generator) {
      harness_->fill(out, t, seed, static_cast<uint32_t>(i));
      continue;
    }
    uint64_t count = t.count, input_seed = derive_seed(seed, i);
    void *params[] = {&out, &count, &input_seed};
    CUlaunchConfig config{};
    config.gridDimX = static_cast<unsigned>(std::clamp<uint64_t>((count + 255) / 256, 1, uint64_t(gpu_->facts().sm_count) * 8));
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 256;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = gpu_->stream();
    CUresult rc = gpu_->cu().cuLaunchKernelEx(&config, functions_.at(t.name), params, nullptr);
    if (rc != CUDA_SUCCESS) throw infrastructure_failure(fmt::format("generator of '{}': {}", t.name, cuda_error_text(rc)));
  }
}

} // namespace mkb::worker
