#include "worker/draw_workspace.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "worker/failure.hpp"
#include "worker/harness_kernels.hpp"

namespace mkb::worker {

dtype anchor_type(const tensor_spec &t) { return dtype_is_floating(t.type) ? dtype::fp64 : t.type; }

workspace_footprint footprint_of(const problem_instance &problem, std::array<const resolved_plan *, 3> plans) {
  workspace_footprint f;
  const uint64_t judged_roles = (plans[submission_role] ? 1 : 0) + (plans[baseline_role] ? 1 : 0);
  for (const tensor_spec &t : problem.inputs) f.per_slot += t.bytes();
  for (const tensor_spec &t : problem.outputs) {
    f.fixed += t.count * dtype_bytes(anchor_type(t));
    if (t.aliases.empty())
      f.per_slot += judged_roles * t.bytes();
    else
      f.fixed += 2 * t.bytes();
    if (t.comparison == spec::Comparison::exact_sorted) f.fixed += 2 * t.bytes();
  }
  for (int role = 0; role < 3; ++role)
    if (plans[role])
      for (const auto &s : plans[role]->scratch) {
        f.fixed += s.bytes;
        if (role == submission_role) f.submission_scratch += s.bytes;
      }
  return f;
}

void require_room_for_the_problem(const workspace_footprint &f, uint64_t total_bytes) {
  const uint64_t needed = f.fixed - f.submission_scratch + f.per_slot;
  if (needed <= total_bytes) return;
  constexpr double gib = double(uint64_t(1) << 30);
  throw infrastructure_failure(fmt::format(
      "{}: one draw (its inputs, the outputs, the anchor's and the baseline's buffers) needs {:.1f} GiB, the "
      "GPU has {:.1f} GiB in all",
      gpu_too_small,
      double(needed) / gib, double(total_bytes) / gib));
}

int slots_that_fit(const workspace_footprint &f, uint64_t free_bytes, int most) {
  // A tenth of what is free stays free: guards, digests, the harness's own buffers, the runs' own needs.
  const uint64_t usable = free_bytes - free_bytes / 10;
  int slots = most;
  while (slots > 1 && f.fixed + uint64_t(slots) * f.per_slot > usable) --slots;
  return slots;
}

draw_workspace::draw_workspace(const problem_instance &problem, std::array<const resolved_plan *, 3> plans, int slots,
                               size_t shift)
    : problem_(&problem), plans_(plans) {
  const bool judged = plans[submission_role] != nullptr;
  std::vector<std::string> input_names, output_names, anchor_names;
  std::vector<uint64_t> input_sizes, output_sizes, anchor_sizes;
  for (size_t i = 0; i < problem.inputs.size(); ++i) {
    const tensor_spec &t = problem.inputs[i];
    input_names.push_back(t.name);
    input_sizes.push_back(t.bytes());
    for (int r = 0; r < 3; ++r) names_[r][t.name] = {binding::input, i};
  }
  for (size_t o = 0; o < problem.outputs.size(); ++o) {
    const tensor_spec &t = problem.outputs[o];
    anchor_names.push_back(t.name);
    anchor_sizes.push_back(t.count * dtype_bytes(anchor_type(t)));
    names_[anchor_role][t.name] = {binding::output, o};
    if (!t.aliases.empty()) {
      size_t input = static_cast<size_t>(problem.find_input(t.aliases) - problem.inputs.data());
      names_[submission_role][t.name] = names_[baseline_role][t.name] = {binding::input, input};
      if (judged) holds_.emplace(o, std::array<device_memory, 2>{device_memory(t.bytes()), device_memory(t.bytes())});
    } else {
      output_slot_[o] = output_names.size();
      names_[submission_role][t.name] = names_[baseline_role][t.name] = {binding::output, output_names.size()};
      output_names.push_back(t.name);
      output_sizes.push_back(t.bytes());
    }
    if (judged && t.comparison == spec::Comparison::exact_sorted) {
      if (static_cast<uint64_t>(t.shape.back()) > harness_kernels::max_sorted_row)
        throw infrastructure_failure(fmt::format("output '{}': exact_sorted rows longer than {} are not supported",
                                                 t.name, harness_kernels::max_sorted_row));
      sorted_.emplace(o, std::array<device_memory, 2>{device_memory(t.bytes()), device_memory(t.bytes())});
    }
  }
  inputs_ = rotating_arena(input_names, input_sizes, slots, shift);
  for (int r : {submission_role, baseline_role})
    if (plans[r]) outputs_[r] = rotating_arena(output_names, output_sizes, slots, shift);
  outputs_[anchor_role] = rotating_arena(anchor_names, anchor_sizes, 1, 0);
  for (int r = 0; r < 3; ++r) {
    if (!plans[r]) continue;
    std::vector<std::string> names;
    std::vector<uint64_t> sizes;
    for (size_t s = 0; s < plans[r]->scratch.size(); ++s) {
      names.push_back(plans[r]->scratch[s].name);
      sizes.push_back(plans[r]->scratch[s].bytes);
      names_[r][plans[r]->scratch[s].name] = {binding::scratch, s};
    }
    try {
      scratch_[r] = rotating_arena(names, sizes, 1, r == submission_role ? shift : 0);
    } catch (const error &e) {
      if (r == submission_role && e.status() == MKB_ERR_NO_MEMORY)
        throw evaluation_failure(MKB_VERDICT_OUT_OF_MEMORY, std::string("the plan's scratch buffers: ") + e.what());
      throw;
    }
  }
  if (judged)
    for (size_t i = 0; i < problem.inputs.size(); ++i)
      if (!problem.inputs[i].writable) {
        uint64_t chunks = harness_kernels::digest_count(problem.inputs[i].bytes());
        digests_.emplace(i, std::array<device_memory, 2>{device_memory(chunks * 8), device_memory(chunks * 8)});
      }
}

void draw_workspace::new_layouts(splitmix64 &random) {
  inputs_now_ = inputs_.next(random);
  for (int r = 0; r < 3; ++r) {
    outputs_now_[r] = outputs_[r].next(random);
    scratch_now_[r] = scratch_[r].next(random);
  }
}

CUdeviceptr draw_workspace::address(int role, const std::string &name) const {
  auto it = names_[role].find(name);
  if (it == names_[role].end()) fail(MKB_ERR_INTERNAL, "plan names unknown buffer '{}'", name);
  switch (it->second.kind) {
  case binding::input: return inputs_now_.addresses[it->second.index];
  case binding::output: return outputs_now_[role].addresses[it->second.index];
  case binding::scratch: return scratch_now_[role].addresses[it->second.index];
  }
  return 0;
}

CUdeviceptr draw_workspace::result_of(int role, size_t o) const {
  auto hold = holds_.find(o);
  if (hold != holds_.end()) return hold->second[role].get();
  return outputs_now_[role].addresses[output_slot_.at(o)];
}

uint64_t draw_workspace::anchor_bytes(size_t o) const {
  const tensor_spec &t = problem_->outputs[o];
  return t.count * dtype_bytes(anchor_type(t));
}

void draw_workspace::prepare_outputs(const gpu &g, int role) const {
  const driver_api &cu = g.cu();
  const std::vector<CUdeviceptr> &addresses = outputs_now_[role].addresses;
  size_t slot = 0;
  for (size_t o = 0; o < problem_->outputs.size(); ++o) {
    const tensor_spec &t = problem_->outputs[o];
    if (role != anchor_role && !t.aliases.empty()) continue;
    const bool wide = role == anchor_role && dtype_is_floating(t.type);
    size_t bytes = wide ? t.count * 8 : t.bytes();
    unsigned char poison = wide ? 0xff : poison_byte(t.type);
    check_gpu(cu.cuMemsetD8Async(addresses[role == anchor_role ? o : slot], poison, bytes, g.stream()), "poisoning outputs");
    ++slot;
  }
  const std::vector<resolved_scratch> &scratch = plans_[role]->scratch;
  for (size_t s = 0; s < scratch.size(); ++s)
    check_gpu(cu.cuMemsetD8Async(scratch_now_[role].addresses[s], scratch[s].zeroed ? 0 : 0xff, scratch[s].bytes, g.stream()),
              "preparing scratch");
}

void draw_workspace::copy_in_place_results(const gpu &g, int role) const {
  for (auto &[o, buffers] : holds_) {
    const tensor_spec &t = problem_->outputs[o];
    size_t input = static_cast<size_t>(problem_->find_input(t.aliases) - problem_->inputs.data());
    check_gpu(g.cu().cuMemcpyDtoDAsync(buffers[role].get(), inputs_now_.addresses[input], t.bytes(), g.stream()),
              "saving an in-place output");
  }
}

void draw_workspace::fill_submission_guards(const gpu &g) const {
  fill_guards(g, inputs_now_);
  fill_guards(g, outputs_now_[submission_role]);
  fill_guards(g, scratch_now_[submission_role]);
}

std::vector<const guard_region *> draw_workspace::submission_guards() const {
  std::vector<const guard_region *> regions;
  for (const buffer_layout *layout : {&inputs_now_, &outputs_now_[submission_role], &scratch_now_[submission_role]})
    for (const guard_region &g : layout->guards) regions.push_back(&g);
  return regions;
}

} // namespace mkb::worker
