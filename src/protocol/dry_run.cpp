#include "protocol/dry_run.hpp"

#include <fmt/format.h>

#include <map>

#include "core/json_writer.hpp"
#include "core/names.hpp"
#include "protocol/ledger.hpp"
#include "protocol/plan_setup.hpp"
#include "spec/suite.hpp"

namespace mkb {

std::string dry_run(const session_config &config, bool table) {
  suite problems = suite::load(config.suite_path);
  auto [a, b] = resolve_dsl_pair(config);
  // The contract's fingerprint depends on the evaluation settings a session would use: the defaults.
  session_plan planned = make_session_plan(config, problems.select(config.problem_patterns, config.families), *a, *b,
                                           evaluation_settings{});
  four_arm_plan &plan = *planned.plan;
  if (config.ledger_path && std::filesystem::exists(*config.ledger_path)) {
    int interrupted = 0;
    plan.restore(ledger::read(*config.ledger_path), config.rerun_stale, &interrupted);
  }
  auto index_of = [&](const planned_trial &t) { return static_cast<int>(&t - plan.trials().data()); };
  auto state_of = [&](const planned_trial &t) -> std::string {
    return plan.left_without_skill(index_of(t)) ? "skipped" : plan_state_name(t);
  };
  // A session opened with this configuration hands these out.
  auto will_run = [&](const planned_trial &t) {
    return t.state != trial_state::finished && !plan.left_without_skill(index_of(t));
  };
  std::map<std::string, int> counts;
  int to_run = 0;
  for (const planned_trial &t : plan.trials()) {
    ++counts[state_of(t)];
    to_run += will_run(t);
  }
  if (table) {
    std::string shard = config.shard_count > 1 ? fmt::format(" (shard {} of {})", config.shard_index, config.shard_count) : "";
    std::string out = fmt::format("plan{}: {} trials, {} to run", shard, plan.trials().size(), to_run);
    for (const auto &[state, n] : counts) out += fmt::format(", {} {}", n, state);
    out += "\n";
    for (const planned_trial &t : plan.trials()) out += fmt::format("  {:<12} {}\n", state_of(t), t.key.id());
    return out;
  }
  json_writer j;
  j.begin_object().field("model", config.model).field("dsl_a", a->name()).field("dsl_b", b->name());
  j.field("ledger", config.ledger_path.value_or("")).field("rerun_stale", config.rerun_stale);
  j.key("shard").begin_object().field("index", config.shard_index).field("count", config.shard_count).end_object();
  j.field("trials_planned", plan.trials().size()).field("to_run", to_run).key("counts").begin_object();
  for (const auto &[state, n] : counts) j.field(state, n);
  j.end_object().key("trials").begin_array();
  for (const planned_trial &t : plan.trials()) {
    j.begin_object().field("id", t.key.id()).field("problem", t.key.problem).field("dsl", t.key.dsl);
    j.field("arm", arm_name(t.key.arm)).field("replicate", t.key.replicate).field("state", state_of(t));
    j.field("will_run", will_run(t)).end_object();
  }
  j.end_array().end_object();
  return j.take();
}

} // namespace mkb
