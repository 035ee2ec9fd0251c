// Names of the public enumerations (mkb.h), shared by the C API, reports, ledgers and the CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mkb {

const char *status_name(int32_t status);   // "MKB_ERR_CONFIG"; "MKB_UNKNOWN_STATUS"
const char *verdict_name(int32_t verdict); // "wrong_answer"; "unknown"
const char *arm_name(int32_t arm);         // "solo_a"; "unknown"
std::optional<int32_t> verdict_from_name(std::string_view name);

} // namespace mkb
