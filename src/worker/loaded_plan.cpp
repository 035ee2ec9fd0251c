#include "worker/loaded_plan.hpp"

#include <fmt/format.h>

#include <cstring>

#include "worker/blas_library.hpp"
#include "worker/failure.hpp"

namespace mkb::worker {

loaded_module::loaded_module(const gpu &g, const std::string &cubin, const std::string &owner) : cu_(&g.cu()) {
  CUresult rc = cu_->cuModuleLoadData(&module_, cubin.data());
  if (rc != CUDA_SUCCESS) {
    module_ = nullptr;
    // A fault before this evaluation left the context unusable: nothing of this code's doing.
    if (cuda_error_loses_context(rc))
      throw infrastructure_failure(fmt::format("the GPU context was lost before the {} code was loaded: {}", owner,
                                               cuda_error_text(rc)),
                                   true);
    throw evaluation_failure(MKB_VERDICT_LAUNCH_ERROR,
                             fmt::format("the {} code could not be loaded: {}", owner, cuda_error_text(rc)));
  }
}

loaded_module &loaded_module::operator=(loaded_module &&o) noexcept {
  if (this != &o) {
    if (module_) cu_->cuModuleUnload(module_);
    cu_ = o.cu_;
    module_ = std::exchange(o.module_, nullptr);
  }
  return *this;
}

loaded_module::~loaded_module() {
  if (module_) cu_->cuModuleUnload(module_);
}

CUfunction loaded_module::function(const std::string &entry) const {
  CUfunction f = nullptr;
  if (cu_->cuModuleGetFunction(&f, module_, entry.c_str()) != CUDA_SUCCESS) return nullptr;
  return f;
}

std::vector<size_t> loaded_module::parameter_sizes(CUfunction f) const {
  std::vector<size_t> sizes;
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    if (cu_->cuFuncGetParamInfo(f, i, &offset, &size) != CUDA_SUCCESS) break;
    sizes.push_back(size);
  }
  return sizes;
}

loaded_plan::loaded_plan(const gpu &g, const std::string &cubin, resolved_plan plan, const std::string &role)
    : module_(g, cubin, role), plan_(std::move(plan)), role_(role) {
  const driver_api &cu = g.cu();
  auto launch_error = [&](const resolved_launch &l, const std::string &message) {
    return evaluation_failure(MKB_VERDICT_LAUNCH_ERROR, fmt::format("{} plan, line {}: {}", role_, l.line, message));
  };
  for (const resolved_launch &l : plan_.launches) {
    if (l.matmul) {
      if (role_ == plan_role_name(plan_role::submission)) // the resolver refuses these; never trust the wire
        throw launch_error(l, "a submission may not call library steps");
      g.blas(); // load cuBLAS now, not inside a timed run
      functions_.push_back(nullptr);
      continue;
    }
    CUfunction f = module_.function(l.entry);
    if (!f)
      throw launch_error(l, fmt::format("the code has no kernel '{}' (declare it extern \"C\" __global__)", l.entry));
    std::string mismatch = check_parameter_sizes(l, module_.parameter_sizes(f));
    if (!mismatch.empty()) throw evaluation_failure(MKB_VERDICT_LAUNCH_ERROR, fmt::format("{} plan, {}", role_, mismatch));

    auto attribute = [&](CUfunction_attribute a) {
      int v = 0;
      cu.cuFuncGetAttribute(&v, a, f);
      return v;
    };
    uint64_t threads = uint64_t(l.block[0]) * l.block[1] * l.block[2];
    int max_threads = attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    if (threads > static_cast<uint64_t>(max_threads))
      throw launch_error(l, fmt::format("'{}' runs at most {} threads per block (its launch bounds or registers: {} "
                                        "per thread); the plan asks for {}",
                                        l.entry, max_threads, attribute(CU_FUNC_ATTRIBUTE_NUM_REGS), threads));
    int static_shared = attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    int optin = g.facts().max_shared_per_block_optin;
    if (static_shared + static_cast<int64_t>(l.shared_bytes) > optin)
      throw launch_error(l, fmt::format("'{}' needs {} bytes of static and {} of dynamic shared memory; the device "
                                        "allows {} per block",
                                        l.entry, static_shared, l.shared_bytes, optin));
    if (l.shared_bytes > 48 * 1024) {
      CUresult rc = cu.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shared_bytes));
      if (rc != CUDA_SUCCESS) throw launch_error(l, fmt::format("cannot allow {} bytes of dynamic shared memory: {}", l.shared_bytes, cuda_error_text(rc)));
    }
    if (l.cluster[0] != 0) {
      int compiled[3] = {attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH),
                         attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT),
                         attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)};
      if (compiled[0] != 0)
        throw launch_error(l, fmt::format("'{}' fixes its cluster shape in code ({}x{}x{}); drop cluster(...) from the plan",
                                          l.entry, compiled[0], compiled[1], compiled[2]));
      if (l.cluster[0] * l.cluster[1] * l.cluster[2] > 8)
        cu.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    }
    functions_.push_back(f);
  }
}

void loaded_plan::enqueue(const gpu &g, const buffer_lookup &buffers) const {
  for (size_t i = 0; i < plan_.launches.size(); ++i) {
    const resolved_launch &l = plan_.launches[i];
    if (const auto &mm = l.matmul) {
      try {
        g.blas().matmul(*mm, buffers(mm->a), buffers(mm->b), buffers(mm->c), role_, l.line);
      } catch (const evaluation_failure &) {
        // cuBLAS cannot launch once a kernel queued before it has faulted: report the fault as one
        // found anywhere else (the context is lost), not as cuBLAS's refusal.
        CUresult rc = g.cu().cuStreamQuery(g.stream());
        if (cuda_error_loses_context(rc))
          throw_cuda_failure(rc, fmt::format("work queued before the problem's {} plan, line {} (cuBLAS could not launch)",
                                             role_, l.line));
        throw;
      }
      continue;
    }
    std::vector<uint64_t> storage(l.args.size());
    std::vector<void *> params(l.args.size());
    for (size_t a = 0; a < l.args.size(); ++a) {
      const resolved_arg &arg = l.args[a];
      uint64_t &slot = storage[a];
      switch (arg.kind) {
      case arg_kind::pointer: slot = buffers(arg.buffer); break;
      case arg_kind::i32: {
        int32_t v = static_cast<int32_t>(arg.integer);
        std::memcpy(&slot, &v, sizeof v);
        break;
      }
      case arg_kind::u32: {
        uint32_t v = static_cast<uint32_t>(arg.integer);
        std::memcpy(&slot, &v, sizeof v);
        break;
      }
      case arg_kind::i64:
      case arg_kind::u64: std::memcpy(&slot, &arg.integer, sizeof arg.integer); break;
      case arg_kind::f32: {
        float v = static_cast<float>(arg.real);
        std::memcpy(&slot, &v, sizeof v);
        break;
      }
      case arg_kind::f64: std::memcpy(&slot, &arg.real, sizeof arg.real); break;
      }
      params[a] = &slot;
    }
    CUlaunchAttribute attributes[1];
    CUlaunchConfig config{};
    config.gridDimX = l.grid[0];
    config.gridDimY = l.grid[1];
    config.gridDimZ = l.grid[2];
    config.blockDimX = l.block[0];
    config.blockDimY = l.block[1];
    config.blockDimZ = l.block[2];
    config.sharedMemBytes = l.shared_bytes;
    config.hStream = g.stream();
    if (l.cluster[0] != 0) {
      attributes[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attributes[0].value.clusterDim.x = l.cluster[0];
      attributes[0].value.clusterDim.y = l.cluster[1];
      attributes[0].value.clusterDim.z = l.cluster[2];
      config.attrs = attributes;
      config.numAttrs = 1;
    }
    CUresult rc = g.cu().cuLaunchKernelEx(&config, functions_[i], params.data(), nullptr);
    if (rc == CUDA_SUCCESS) continue;
    switch (rc) {
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_INVALID_CLUSTER_SIZE:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
      throw evaluation_failure(MKB_VERDICT_LAUNCH_ERROR, fmt::format("{} plan, line {}: launching '{}' failed: {}", role_,
                                                                     l.line, l.entry, cuda_error_text(rc)));
    default: throw_cuda_failure(rc, fmt::format("launching '{}' ({} plan, line {})", l.entry, role_, l.line));
    }
  }
}

} // namespace mkb::worker
