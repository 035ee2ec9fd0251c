#include "cuda/arch_limits.hpp"

#include <charconv>

namespace mkb {

int max_shared_per_block_optin(std::string_view arch) {
  constexpr std::string_view prefix = "sm_";
  if (arch.substr(0, prefix.size()) != prefix) return 0;
  int version = 0;
  const char *first = arch.data() + prefix.size();
  if (std::from_chars(first, arch.data() + arch.size(), version).ec != std::errc{}) return 0;
  switch (version) {
  case 70: return 96 * 1024;
  case 75: return 64 * 1024;
  case 80: case 87: return 163 * 1024;
  case 86: case 89: case 120: return 99 * 1024;
  case 90: case 100: return 227 * 1024;
  default: return 0;
  }
}

} // namespace mkb
