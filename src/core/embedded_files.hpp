// Files compiled into the binary by cmake/embed_files.cmake: the built-in suite, device sources,
// schemas. Each generated table is a function in mkb::embedded.
#pragma once

#include <span>
#include <string_view>

namespace mkb {

struct embedded_file {
  std::string_view path; // relative to the embedded folder, '/'-separated
  std::string_view data;
};

namespace embedded {
std::span<const embedded_file> builtin_suite();
std::span<const embedded_file> device_sources();
std::span<const embedded_file> resources(); // schemas, DSL notes, instruction templates
} // namespace embedded

// The file at `path` in `files`, or nullptr.
const embedded_file *find_embedded(std::span<const embedded_file> files, std::string_view path);

} // namespace mkb
