// The DSLs' guides as files an agent can read: a session writes each DSL's guide once, when it hands
// out its first task in that DSL, and every task's JSON and instruction give the path.
#pragma once

#include <filesystem>
#include <string_view>

namespace mkb {

struct session_config;

// Where the guide of `dsl_name` goes: beside the ledger (`<ledger>.guides/<dsl>.md`), else in the cache
// folder under the guide's hash (`<cache>/guides/<hash>/<dsl>.md`, shared by sessions without a ledger).
std::filesystem::path guide_file_path(const session_config &config, std::string_view dsl_name, std::string_view guide);

// Writes `guide` to `path` atomically (readers see the old text or the new, never a mix), read-only
// for everyone, and returns the absolute path. Throws mkb::error(MKB_ERR_IO) naming the path.
std::filesystem::path write_guide_file(const std::filesystem::path &path, std::string_view guide);

} // namespace mkb
