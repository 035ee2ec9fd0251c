#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "fuzz_targets.hpp"
#include "protocol/ledger.hpp"

namespace mkb::fuzz {

// Thin on purpose: the bytes become a file, and the public reader must read it or refuse it.
void ledger_reader(bytes data) {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("mkb-fuzz-ledger-" + std::to_string(::getpid()));
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(data.size()));
  }
  // The strict reader (open, score), the resynchronising one (dump, repair, score of a damaged file).
  try {
    ledger::read(path);
  } catch (const error &) {
  }
  try {
    ledger::read_intact(path);
    ledger::dump_json(path);
  } catch (const error &) {
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

} // namespace mkb::fuzz
