// File and path helpers. Writes that others may read concurrently go through write_file_atomic.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mkb {

// Reads a whole file; throws mkb::error(MKB_ERR_IO) naming the path and the reason.
std::string read_file(const std::filesystem::path &path);
std::optional<std::string> try_read_file(const std::filesystem::path &path);

// Writes to a temporary file in the same folder and renames it over `path`: readers see the old
// content or the new, never a mix. Creates the folder if needed. `durable` syncs the data before the
// rename, so that it also survives a power loss; a cache whose entries carry checksums can skip it.
void write_file_atomic(const std::filesystem::path &path, std::string_view data, bool durable = true);

// The value of an environment variable, or nullopt when unset or empty.
std::optional<std::string> environment(const char *name);

// The compile cache folder: $MKB_CACHE_DIR, $XDG_CACHE_HOME/mkb, ~/.cache/mkb, /tmp/mkb-cache.
std::filesystem::path default_cache_dir();

// The folder holding the binary (shared library or executable) that contains libmkb's code.
std::filesystem::path own_binary_dir();

} // namespace mkb
