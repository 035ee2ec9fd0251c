#include "cuda/throttle_reasons.hpp"

#include <utility>

namespace mkb {

std::string describe_throttle_reasons(uint64_t reasons) {
  static constexpr std::pair<uint64_t, const char *> names[] = {
      {0x1, "gpu_idle"},          {0x2, "applications_clocks"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},       {0x10, "sync_boost"},         {0x20, "sw_thermal"},
      {0x40, "hw_thermal"},       {0x80, "hw_power_brake"},     {0x100, "display_clocks"},
  };
  std::string out;
  for (const auto &[bit, name] : names)
    if (reasons & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out.empty() ? "none" : out;
}

} // namespace mkb
