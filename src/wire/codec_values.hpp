// Inside wire/ only: each plain value's flatbuffers form and back, from which codec.cpp assembles
// the frames. The generated types reach no file outside this folder.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <string>
#include <vector>

#include "messages_generated.h"
#include "model/worker_messages.hpp"

namespace mkb::wire {

inline std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

// The elements of a vector of 8-byte scalars. The verifier checks only that a vector's length field is
// 4-byte aligned, so in a buffer that did not come from a builder the elements may sit at 4 mod 8:
// they are copied bytewise instead of loaded in place (found by tests/fuzz, frame_decoder).
template <typename T> inline std::vector<T> copy_scalars(const flatbuffers::Vector<T> *v) {
  std::vector<T> out(v ? v->size() : 0);
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

flatbuffers::Offset<ProblemInstance> encode(flatbuffers::FlatBufferBuilder &b, const problem_instance &p);
problem_instance decode(const ProblemInstance &p);

flatbuffers::Offset<Module> encode(flatbuffers::FlatBufferBuilder &b, const module_source &module);
module_source decode_module(const Module *module);
flatbuffers::Offset<Plan> encode(flatbuffers::FlatBufferBuilder &b, plan_role role, const role_code &code);
role_code decode(const Plan &plan);

flatbuffers::Offset<EvaluateSettings> encode(flatbuffers::FlatBufferBuilder &b, const run_settings &s);
run_settings decode(const EvaluateSettings *s);

flatbuffers::Offset<DeviceInfo> encode(flatbuffers::FlatBufferBuilder &b, const device_info &d);
device_info decode(const DeviceInfo *d);

flatbuffers::Offset<EvaluateResult> encode(flatbuffers::FlatBufferBuilder &b, const evaluation_result &r);
evaluation_result decode(const EvaluateResult &r);

} // namespace mkb::wire
