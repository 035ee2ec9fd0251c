#include "protocol/guide_files.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/hash.hpp"
#include "mkb.h"
#include "protocol/session_config.hpp"

namespace mkb {

std::filesystem::path guide_file_path(const session_config &config, std::string_view dsl_name, std::string_view guide) {
  std::string file = std::string(dsl_name) + ".md";
  if (config.ledger_path) return std::filesystem::path(*config.ledger_path + ".guides") / file;
  // Named by content: sessions without a ledger share one copy, and a changed guide gets a new folder.
  return std::filesystem::path(config.cache_dir) / "guides" / hasher128().add(guide).digest().hex().substr(0, 16) / file;
}

std::filesystem::path write_guide_file(const std::filesystem::path &path, std::string_view guide) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) fail(MKB_ERR_IO, "cannot write the guide '{}': {}", path.string(), ec.message());
  write_file_atomic(absolute, guide, false);
  // Read-only: it is the library's text, not a scratch file (a later session still replaces it, the
  // folder being writable).
  std::filesystem::permissions(absolute,
                               std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                   std::filesystem::perms::others_read,
                               ec);
  if (ec) fail(MKB_ERR_IO, "cannot make the guide '{}' read-only: {}", absolute.string(), ec.message());
  return absolute;
}

} // namespace mkb
