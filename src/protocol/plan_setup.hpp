// What a session plans, from its configuration: the DSL pair, the fingerprints of each (problem, DSL),
// and the four-arm plan narrowed to the selected trials and directions. Shared by a session and a dry
// run (mkb_plan), which must plan exactly alike.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eval/evaluator.hpp"
#include "protocol/ledger.hpp"
#include "protocol/planner.hpp"
#include "protocol/session_config.hpp"
#include "spec/suite.hpp"

namespace mkb {

class dsl;

// The configured pair, or the original benchmark's (cute-dsl, tirx) where this build has both.
// Throws MKB_ERR_CONFIG (one of the two given) or MKB_ERR_NOT_FOUND (a DSL not registered).
std::pair<const dsl *, const dsl *> resolve_dsl_pair(const session_config &config);

// What an agent sees of a DSL and what compiles its submissions: its name, notes and guide, and the
// frontend scripts. fingerprints_for's `dsl`.
std::string language_fingerprint(std::string_view name, std::string_view notes, std::string_view guide);

// Everything that shapes an attempt at `p` in `d`: the problem's files; the DSL's name, notes, guide and
// frontend scripts; the contract (budgets, draws, instruction templates).
fingerprints fingerprints_for(const problem &p, const dsl &d, const session_config &config,
                              const evaluation_settings &settings);

struct session_plan {
  std::unique_ptr<four_arm_plan> plan;
  planned_prints current; // every (problem, DSL) planned, with its fingerprints
};

// A shard's units: (problem id, replicate), each planned with all its selected arms in one shard.
using shard_unit = std::pair<std::string, int>;
// Shard `index` of `count` of the units: a deterministic, balanced share (sizes differ by one at most);
// the shards of one set of units partition it.
std::set<shard_unit> shard_share(std::set<shard_unit> units, uint32_t index, uint32_t count);

// The plan of the selected problems, narrowed by config.trials and config.directions, then to the
// shard config.shard_index of config.shard_count (all of it when the count is 1). Throws
// MKB_ERR_CONFIG when a trial glob or a direction matches no trial.
session_plan make_session_plan(const session_config &config, const std::vector<const problem *> &problems,
                               const dsl &a, const dsl &b, const evaluation_settings &settings);

} // namespace mkb
