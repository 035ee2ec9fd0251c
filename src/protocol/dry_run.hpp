// A dry run (mkb_plan): the trials a configuration plans and the state of each, read from the ledger
// without writing or locking it, and without starting a worker, a GPU or a Python frontend.
#pragma once

#include <string>

#include "protocol/session_config.hpp"

namespace mkb {

// JSON (counts by state, then every trial) or a readable list. Throws as opening a session would.
std::string dry_run(const session_config &config, bool table);

} // namespace mkb
