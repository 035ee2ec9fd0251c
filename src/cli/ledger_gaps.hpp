// What reading a ledger left out, said on stderr by `mkb ledger dump` and `mkb score`.
#pragma once

#include <cstdio>
#include <string>

#include "protocol/ledger.hpp"

namespace mkb::cli {

// Says what reading `path` left out, one line each, after `prefix`. Returns whether there was damage.
bool report_gaps(std::FILE *to, const std::string &prefix, const std::string &path, const ledger_gaps &gaps,
                 size_t intact_records);

} // namespace mkb::cli
