#include "protocol/trial.hpp"

#include <fmt/format.h>

#include "core/names.hpp"

namespace mkb {

std::string trial_key::id() const { return fmt::format("{}/{}/{}/r{}", problem, dsl, arm_name(arm), replicate); }

} // namespace mkb
