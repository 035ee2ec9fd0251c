// Which finished trials are stale: recorded under other fingerprints than the current plan's (the
// problem's files, the DSL's frontend, notes and guide, the instruction templates, the contract's
// settings), or skill arms that received a skill their source no longer stands by. docs/PROTOCOL.md, Stale trials.
#pragma once

#include <vector>

#include "protocol/ledger.hpp"
#include "protocol/trial.hpp"

namespace mkb {

// The latest record of every trial (file order: a trial recorded again replaces its earlier record),
// each marked stale against `current`. A (problem, DSL) that `current` does not plan is judged by
// nothing and stays fresh. A skill arm is stale when its source solo is, or when the source was recorded
// again after it (it then received another skill).
std::vector<trial_result> latest_with_staleness(const std::vector<trial_result> &finished, const planned_prints &current);

} // namespace mkb
