// Fills a problem's inputs for one draw: the harness's distributions, or the problem's own generator
// kernels (generators.cu) for structured inputs such as page tables.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cuda/compile_cache.hpp"
#include "model/evaluation_result.hpp"
#include "model/problem_instance.hpp"
#include "worker/buffers.hpp"
#include "worker/harness_kernels.hpp"
#include "worker/loaded_plan.hpp"

namespace mkb::worker {

class input_generator {
public:
  input_generator() = default;
  // Compiles and loads the generators the problem's inputs name; a failure there is the problem's
  // (infrastructure). `compiles` receives the compile record, if any.
  input_generator(const gpu *g, harness_kernels *harness, const problem_instance &problem,
                  const compile_cache &cache, const std::string &arch, std::vector<compile_info> &compiles);

  // Loads the compiled generators on the GPU (after compile-only checks passed).
  void load(const gpu &g);

  // Queues the generation of every input (or only the writable ones) at `inputs`' addresses.
  void generate(const buffer_layout &inputs, uint64_t seed, bool writable_only) const;

private:
  const gpu *gpu_ = nullptr;
  harness_kernels *harness_ = nullptr;
  const problem_instance *problem_ = nullptr;
  std::string cubin_;
  loaded_module module_;
  std::map<std::string, CUfunction> functions_;
};

} // namespace mkb::worker
