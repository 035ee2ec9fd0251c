// What reading a ledger left out, said on stderr by `mkb ledger dump`, `mkb score`, `mkb report` and
// `mkb skills export`; and the trials those read.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "protocol/ledger.hpp"

namespace mkb::cli {

// Says what reading `path` left out, one line each, after `prefix`. Returns whether there was damage.
bool report_gaps(std::FILE *to, const std::string &prefix, const std::string &path, const ledger_gaps &gaps,
                 size_t intact_records);

// The finished trials of the ledgers as scores read them: the latest record of each, staleness judged
// per file. What reading left out is said on `to` after `prefix`; `damaged` is set when a ledger is.
std::vector<trial_result> read_finished_trials(std::FILE *to, const std::string &prefix,
                                               const std::vector<std::string> &paths, bool &damaged);

} // namespace mkb::cli
