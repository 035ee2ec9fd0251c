#include "core/build_info.hpp"

#include <filesystem>

#include "core/files.hpp"

#ifndef MKB_DEFAULT_PYTHON
#define MKB_DEFAULT_PYTHON ""
#endif

namespace mkb {

std::string default_python() {
  if (auto named = environment("MKB_PYTHON")) return *named;
  std::error_code ignored;
  if (*MKB_DEFAULT_PYTHON && std::filesystem::exists(MKB_DEFAULT_PYTHON, ignored)) return MKB_DEFAULT_PYTHON;
  return "python3";
}

} // namespace mkb
