#include "core/names.hpp"

#include "mkb.h"

namespace mkb {

const char *status_name(int32_t status) {
  switch (status) {
  case MKB_OK: return "MKB_OK";
  case MKB_NOT_READY: return "MKB_NOT_READY";
  case MKB_DONE: return "MKB_DONE";
  case MKB_ERR_INVALID_ARGUMENT: return "MKB_ERR_INVALID_ARGUMENT";
  case MKB_ERR_CONFIG: return "MKB_ERR_CONFIG";
  case MKB_ERR_NOT_FOUND: return "MKB_ERR_NOT_FOUND";
  case MKB_ERR_STATE: return "MKB_ERR_STATE";
  case MKB_ERR_BUDGET: return "MKB_ERR_BUDGET";
  case MKB_ERR_IO: return "MKB_ERR_IO";
  case MKB_ERR_LEDGER: return "MKB_ERR_LEDGER";
  case MKB_ERR_WORKER: return "MKB_ERR_WORKER";
  case MKB_ERR_NO_MEMORY: return "MKB_ERR_NO_MEMORY";
  case MKB_ERR_UNSUPPORTED: return "MKB_ERR_UNSUPPORTED";
  case MKB_ERR_VERSION: return "MKB_ERR_VERSION";
  case MKB_ERR_SPEC: return "MKB_ERR_SPEC";
  case MKB_ERR_INTERNAL: return "MKB_ERR_INTERNAL";
  }
  return "MKB_UNKNOWN_STATUS";
}

namespace {
constexpr const char *verdicts[] = {"passed",           "refused",       "compile_error", "launch_error", "wrong_answer",
                                    "out_of_bounds",    "input_modified", "fault",        "timeout",      "out_of_memory",
                                    "crashed",          "inconsistent",  "compiled",      "no_kernel"};
constexpr const char *arms[] = {"solo_a", "solo_b", "a2b_skill", "b2a_skill"};
} // namespace

const char *verdict_name(int32_t verdict) {
  if (verdict < 0 || verdict >= static_cast<int32_t>(std::size(verdicts))) return "unknown";
  return verdicts[verdict];
}

std::optional<int32_t> verdict_from_name(std::string_view name) {
  for (int32_t i = 0; i < static_cast<int32_t>(std::size(verdicts)); ++i)
    if (name == verdicts[i]) return i;
  return std::nullopt;
}

const char *arm_name(int32_t arm) {
  if (arm < 0 || arm >= static_cast<int32_t>(std::size(arms))) return "unknown";
  return arms[arm];
}

static_assert(MKB_VERDICT_NO_KERNEL == std::size(verdicts) - 1, "a verdict without a name");

} // namespace mkb
