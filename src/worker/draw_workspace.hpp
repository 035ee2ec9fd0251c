// The device buffers of one evaluation's draws and the names the three roles' plans give them. The
// inputs are shared; the submission and the baseline each get their own outputs and scratch; the
// anchor writes its floating-point outputs in fp64. Every draw takes a fresh layout (new_layouts), so
// no buffer keeps its address, and every buffer sits between guard regions (buffers.hpp).
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "model/problem_instance.hpp"
#include "plan/launch_plan.hpp"
#include "worker/buffers.hpp"

namespace mkb::worker {

// The roles, in the order of an evaluation's plans.
inline constexpr int submission_role = 0, baseline_role = 1, anchor_role = 2;

// The anchor's element type for output `t`: fp64 for floating point, else the output's own.
dtype anchor_type(const tensor_spec &t);

// How many layouts the rotating buffers of a draw get: `most` (three) where they fit in `free_bytes` beside
// everything else, fewer for a problem whose draw is a large part of the GPU (down to one: then only the
// random shift moves the buffers, and fresh inputs every draw still defeat a cached result).
struct workspace_footprint {
  uint64_t per_slot = 0; // the inputs and the submission's and baseline's outputs, one layout
  uint64_t fixed = 0;    // the anchor's outputs, every plan's scratch, in-place and sorting copies
  uint64_t submission_scratch = 0; // the part of `fixed` that the submission's own plan asks for
};
workspace_footprint footprint_of(const problem_instance &problem, std::array<const resolved_plan *, 3> plans);
int slots_that_fit(const workspace_footprint &f, uint64_t free_bytes, int most);

// Refuses (REFUSED, not counted) an evaluation whose problem alone, one layout and no submission scratch,
// needs more than the GPU's whole memory (`total_bytes`): no submission could be evaluated there, so it
// is the GPU's limit, not the submission's OUT_OF_MEMORY. #34 needs about 84 GiB: it runs on an H200 only.
void require_room_for_the_problem(const workspace_footprint &f, uint64_t total_bytes);

class draw_workspace {
public:
  draw_workspace() = default;
  // `plans[r]` is null for a role that takes no part (mkb draw runs only the anchor). The inputs, and
  // the submission's and baseline's outputs, rotate over `slots` layouts; the inputs, those outputs and
  // the submission's scratch shift by up to `shift` bytes. The submission's scratch not fitting is its
  // OUT_OF_MEMORY; any other allocation failure is thrown as it is.
  draw_workspace(const problem_instance &problem, std::array<const resolved_plan *, 3> plans, int slots, size_t shift);

  // Moves every buffer to its next layout. Guards are filled by fill_submission_guards().
  void new_layouts(splitmix64 &random);

  // The address of the buffer a plan of `role` calls `name`.
  CUdeviceptr address(int role, const std::string &name) const;
  const buffer_layout &input_layout() const { return inputs_now_; }
  CUdeviceptr input(size_t i) const { return inputs_now_.addresses[i]; }
  // Where output `o` of the submission or the baseline can be read after its run.
  CUdeviceptr result_of(int role, size_t o) const;
  CUdeviceptr anchor_output(size_t o) const { return outputs_now_[anchor_role].addresses[o]; }
  uint64_t anchor_bytes(size_t o) const;

  // Queues the poisoning of `role`'s outputs (its non-aliased ones) and the preparation of its scratch.
  void prepare_outputs(const gpu &g, int role) const;
  // Queues the copy of `role`'s in-place outputs out of the inputs they alias.
  void copy_in_place_results(const gpu &g, int role) const;
  // Queues the filling of every guard around what the submission can reach.
  void fill_submission_guards(const gpu &g) const;
  std::vector<const guard_region *> submission_guards() const;

  // For each input that is not writable, two digest buffers (before and after the submission ran).
  const std::map<size_t, std::array<device_memory, 2>> &digests() const { return digests_; }
  // For each exact_sorted output, the buffers its rows are sorted in (submission, anchor).
  const std::array<device_memory, 2> &sort_buffers(size_t o) const { return sorted_.at(o); }

private:
  struct binding {
    enum kind_t { input, output, scratch } kind;
    size_t index;
  };

  const problem_instance *problem_ = nullptr;
  std::array<const resolved_plan *, 3> plans_{};
  std::map<std::string, binding> names_[3];
  std::map<size_t, size_t> output_slot_;                  // output -> index among non-aliased outputs
  std::map<size_t, std::array<device_memory, 2>> holds_;  // aliased output -> copies for roles 0, 1
  std::map<size_t, std::array<device_memory, 2>> sorted_; // exact_sorted output -> sort buffers
  std::map<size_t, std::array<device_memory, 2>> digests_;
  rotating_arena inputs_, outputs_[3], scratch_[3];
  buffer_layout inputs_now_, outputs_now_[3], scratch_now_[3];
};

} // namespace mkb::worker
