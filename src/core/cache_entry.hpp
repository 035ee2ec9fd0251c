// One entry of an on-disk, content-addressed cache (the compile cache, the frontend cache): a magic
// string naming the format, the payload, and an XXH3-64 of both. Entries are written whole with an
// atomic rename, best effort; a torn, foreign or unreadable file reads as a miss, never as an error.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/hash.hpp"

namespace mkb {

// <folder>/<kind>/<first two hex digits>/<hex>.bin
std::filesystem::path cache_entry_path(const std::filesystem::path &folder, std::string_view kind, const hash128 &key);

// The payload, or nullopt when the file is missing, torn or of another format.
std::optional<std::string> read_cache_entry(const std::filesystem::path &path, std::string_view magic);

// Never throws: a cache that cannot be written only costs time.
void write_cache_entry(const std::filesystem::path &path, std::string_view magic, std::string_view payload);

} // namespace mkb
