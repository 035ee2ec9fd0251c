// Conversions between the library's C++ types and the worker messages (messages.fbs). Both ends use
// the same functions, so a field added on one side cannot be forgotten on the other.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>
#include <vector>

#include "messages_generated.h"
#include "plan/launch_plan.hpp"
#include "spec/problem.hpp"

namespace mkb::wire {

// What the worker needs of a problem: every shape resolved, no expressions.
struct problem_instance {
  std::string id;
  std::vector<tensor_spec> inputs;
  std::vector<tensor_spec> outputs;
  std::string generators; // CUDA source, empty if none
  double flops = 0;
  double bytes = 0;
  spec::ComputeKind compute = spec::ComputeKind::fp32;

  const tensor_spec *find_input(std::string_view name) const;
};

problem_instance instance_of(const problem &p);

flatbuffers::Offset<ProblemInstance> encode(flatbuffers::FlatBufferBuilder &b, const problem_instance &p);
problem_instance decode(const ProblemInstance &p);

struct module_source {
  std::string name;                      // file name for compiler messages
  std::string source;                    // CUDA C++ (or, with ptx, the submission's own text)
  std::vector<std::string> include_dirs; // from the DSL's configuration
  std::vector<std::string> ptx;          // units to link instead of compiling source
};

flatbuffers::Offset<Plan> encode(flatbuffers::FlatBufferBuilder &b, plan_role role, const module_source &module,
                                 const resolved_plan &plan);
resolved_plan decode(const Plan &plan);
module_source decode_module(const Module *module);

// ---- Evaluation results ------------------------------------------------------------------------------

struct device_info {
  int ordinal = 0;
  std::string name;
  std::string uuid; // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int major = 0, minor = 0;
  uint64_t memory_bytes = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  int max_shared_per_block_optin = 0;
};

struct timing_stats {
  int samples = 0;
  double median_us = 0, min_us = 0, max_us = 0, q1_us = 0, q3_us = 0, mean_us = 0, cv = 0;
  std::vector<float> times_us;
};

struct mismatch_info {
  bool present = false;
  std::string output;
  int draw = 0;       // correctness draw, or -1 for a re-verified timed draw
  int timed_draw = -1;
  std::string kind;   // "value", "nan", "unwritten", "integer"
  uint64_t flat_index = 0;
  std::vector<int64_t> coords;
  double value = 0, anchor = 0, allowance = 0, excess = 0;
};

struct output_check {
  std::string name;
  double max_error = 0, allowance = 0, reference_error = 0, anchor_max = 0;
  bool passed = false;
};

struct degenerate_check {
  std::string output, kind;
  double error = 0, allowance = 0;
  bool failed = false;
};

struct sensitivity_check {
  std::string output;
  bool draws_differ = false;
  std::vector<int> constant_axes;
};

struct audit_result {
  bool present = false;
  std::vector<degenerate_check> degenerate;
  std::vector<sensitivity_check> sensitivity;
  double empty_launch_us = 0;
  int baseline_launches = 0;
};

struct clock_info {
  bool available = false;
  unsigned sm_mhz_before = 0, sm_mhz_after = 0, memory_mhz = 0, temperature_c = 0;
  uint64_t throttle_reasons = 0;
};

struct phase_times {
  double compile_ms = 0, load_ms = 0, correctness_ms = 0, timing_ms = 0, total_ms = 0, gpu_busy_ms = 0, generation_ms = 0;
};

struct contention_info {
  bool checked = false;
  std::string unavailable;
  bool contended = false;
  int discarded_timings = 0;
  std::vector<std::string> busy;
};

struct compile_info {
  std::string role;
  bool cache_hit = false;
  double milliseconds = 0;
  std::string log;
};

struct evaluation_result {
  int verdict = 0; // mkb_verdict
  std::string detail;
  std::string stage;
  mismatch_info mismatch;
  std::vector<output_check> checks;
  timing_stats submission_time, baseline_time;
  uint64_t seed = 0;
  std::vector<uint64_t> draw_seeds;
  std::vector<int> reverified;
  clock_info clocks;
  phase_times phases;
  std::vector<compile_info> compiles;
  device_info device;
  bool infrastructure_error = false;
  bool worker_must_exit = false;
  audit_result audit;
  double gpu_wait_ms = 0;
  contention_info contention;
};

flatbuffers::Offset<DeviceInfo> encode(flatbuffers::FlatBufferBuilder &b, const device_info &d);
device_info decode(const DeviceInfo *d);
flatbuffers::Offset<EvaluateResult> encode(flatbuffers::FlatBufferBuilder &b, const evaluation_result &r);
evaluation_result decode(const EvaluateResult &r);

// The Request or Response in a received frame, or nullptr when the bytes do not verify.
template <typename Root> const Root *verified_root(const std::vector<uint8_t> &frame) {
  flatbuffers::Verifier verifier(frame.data(), frame.size());
  if (!verifier.VerifyBuffer<Root>(nullptr)) return nullptr;
  return flatbuffers::GetRoot<Root>(frame.data());
}

// Builds a finished Request buffer around one body.
template <typename Body>
std::vector<uint8_t> finish_request(flatbuffers::FlatBufferBuilder &b, uint64_t id, flatbuffers::Offset<Body> body) {
  auto request = CreateRequest(b, id, RequestBodyTraits<Body>::enum_value, body.Union());
  b.Finish(request);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

template <typename Body>
std::vector<uint8_t> finish_response(flatbuffers::FlatBufferBuilder &b, uint64_t id, flatbuffers::Offset<Body> body) {
  auto response = CreateResponse(b, id, ResponseBodyTraits<Body>::enum_value, body.Union());
  b.Finish(response);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

} // namespace mkb::wire
