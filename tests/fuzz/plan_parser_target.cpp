#include "fuzz_targets.hpp"
#include "plan/launch_plan.hpp"
#include "spec/suite.hpp"

namespace mkb::fuzz {

namespace {

// A problem with inputs, outputs, symbols and constants to resolve names against: the built-in
// suite's first (loading it once costs a fraction of a second).
const problem &some_problem() {
  static const suite builtin = suite::load(std::nullopt);
  return builtin.problems().front();
}

} // namespace

void plan_parser(bytes data) {
  try {
    launch_plan plan = parse_launch_plan(as_text(data));
    // A submission may not use library steps; a baseline may, so both roles are resolved.
    for (plan_role role : {plan_role::submission, plan_role::baseline}) {
      try {
        resolve_launch_plan(plan, some_problem(), role);
      } catch (const plan_error &) {
      }
    }
  } catch (const plan_error &) {
  }
}

} // namespace mkb::fuzz
