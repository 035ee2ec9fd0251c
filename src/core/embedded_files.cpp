#include "core/embedded_files.hpp"

namespace mkb {

const embedded_file *find_embedded(std::span<const embedded_file> files, std::string_view path) {
  for (const embedded_file &file : files)
    if (file.path == path) return &file;
  return nullptr;
}

} // namespace mkb
