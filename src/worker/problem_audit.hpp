// The audit of a problem itself, after a passing evaluation of its stored solution (mkb suite
// validate, docs/PROBLEMS.md): degenerate outputs the rule must reject, whether the outputs depend on
// the draw and along which axes they never change, and the floor of one empty launch.
#pragma once

#include <cstdint>

#include "model/evaluation_result.hpp"
#include "worker/draw_runner.hpp"

namespace mkb::worker {

// Fills `result.audit`. `baseline_launches` is the number of steps of the baseline's plan.
void audit_problem(draw_runner &runner, const problem_instance &problem, uint64_t seed, int baseline_launches,
                   evaluation_result &result);

} // namespace mkb::worker
