// The discovery JSON of the C ABI (mkb_list_problems, mkb_list_dsls), as `mkb problems --json` and
// `mkb dsls --json` print it. Failures throw mkb::error with the library's status and text.
#pragma once

#include <string>

namespace mkb::cli {

std::string list_problems_json(const std::string &suite_path);
std::string list_dsls_json(bool no_sandbox);

} // namespace mkb::cli
