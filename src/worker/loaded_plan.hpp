// A compiled module loaded on the worker's GPU together with the launch plan that drives it. Loading
// checks the plan against the real code: every entry exists, its parameter list (cuFuncGetParamInfo)
// matches the plan's arguments, and every launch shape fits the function and the device.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "plan/launch_plan.hpp"
#include "worker/gpu.hpp"

namespace mkb::worker {

class loaded_module {
public:
  loaded_module() = default;
  // Throws evaluation_failure(LAUNCH_ERROR) when the driver rejects the image; `owner` names whose
  // code it is in that message.
  loaded_module(const gpu &g, const std::string &cubin, const std::string &owner);
  loaded_module(loaded_module &&o) noexcept : cu_(o.cu_), module_(std::exchange(o.module_, nullptr)) {}
  loaded_module &operator=(loaded_module &&o) noexcept;
  loaded_module(const loaded_module &) = delete;
  loaded_module &operator=(const loaded_module &) = delete;
  ~loaded_module();

  // nullptr when the module has no such entry.
  CUfunction function(const std::string &entry) const;
  // Byte size of each parameter of `f`, in order.
  std::vector<size_t> parameter_sizes(CUfunction f) const;

private:
  const driver_api *cu_ = nullptr;
  CUmodule module_ = nullptr;
};

// name -> device address of the buffer the plan refers to by that name.
using buffer_lookup = std::function<CUdeviceptr(const std::string &name)>;

class loaded_plan {
public:
  loaded_plan() = default;
  // Failures are the plan owner's: LAUNCH_ERROR for a submission. `role` names the owner.
  loaded_plan(const gpu &g, const std::string &cubin, resolved_plan plan, const std::string &role);

  // Queues every launch in order on the worker's stream.
  void enqueue(const gpu &g, const buffer_lookup &buffers) const;
  const resolved_plan &plan() const { return plan_; }

private:
  loaded_module module_;
  resolved_plan plan_;
  std::vector<CUfunction> functions_;
  std::string role_;
};

} // namespace mkb::worker
