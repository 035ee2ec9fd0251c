// Where and how a run ran, recorded in the ledger when a session opens (docs/PROTOCOL.md, The
// ledger): the library and its git revision, the host, the GPUs, the DSL toolchains as found, the
// contract's settings and the selection. Enough to tell whether two ledgers can be set side by side.
#pragma once

#include <string>
#include <vector>

#include "eval/evaluator.hpp"
#include "protocol/session_config.hpp"
#include "spec/suite.hpp"

namespace mkb {

class dsl;

struct run_facts {
  const session_config &config;
  const suite &problems;
  const dsl &dsl_a, &dsl_b;
  const evaluation_settings &settings;
  const std::vector<int> &gpus; // the ordinals evaluated on; empty when compile-only
  bool compile_only;
};

// One JSON object. Asks a worker for its devices (unless compile-only) and each DSL for its toolchain.
std::string provenance_json(const run_facts &run);

} // namespace mkb
