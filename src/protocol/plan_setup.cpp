#include "protocol/plan_setup.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "core/embedded_files.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/problem.hpp"

namespace mkb {

namespace {

// Changes whenever the rules an attempt is graded by change in a way no setting shows.
constexpr const char *contract_version = "mkb-contract-2";

bool directs(const session_config &config, int arm) {
  if (config.directions.empty()) return true;
  auto wanted = [&](const char *d) { return std::find(config.directions.begin(), config.directions.end(), d) != config.directions.end(); };
  // A direction is its skill arm, its source solo and its base solo.
  switch (arm) {
  case MKB_ARM_A2B_SKILL: return wanted("a_to_b");
  case MKB_ARM_B2A_SKILL: return wanted("b_to_a");
  default: return true; // each solo is the source of one direction and the base of the other
  }
}

} // namespace

std::set<shard_unit> shard_share(std::set<shard_unit> units, uint32_t index, uint32_t count) {
  if (count <= 1) return units;
  // Ordered by a hash of the unit, so that a shard holds a spread of families and replicates rather than
  // a run of the suite's order; then dealt out in turn, so that shards differ by one unit at most.
  std::vector<std::pair<uint64_t, shard_unit>> order;
  for (const shard_unit &u : units) order.push_back({xxh3_64(fmt::format("{}\n{}", u.first, u.second)), u});
  std::sort(order.begin(), order.end());
  std::set<shard_unit> share;
  for (size_t i = index; i < order.size(); i += count) share.insert(order[i].second);
  return share;
}

std::pair<const dsl *, const dsl *> resolve_dsl_pair(const session_config &config) {
  std::string a = config.dsl_a, b = config.dsl_b;
  if (a.empty() && b.empty()) {
    bool original = find_dsl("cute-dsl") && find_dsl("tirx");
    a = original ? "cute-dsl" : "cuda";
    b = original ? "tirx" : "cuda";
  } else if (a.empty() || b.empty()) {
    fail(MKB_ERR_CONFIG, "dsl_a and dsl_b: give both or neither (got \"{}\" and \"{}\")", a, b);
  }
  const dsl *da = find_dsl(a), *db = find_dsl(b);
  for (const auto &[field, name, d] : {std::tuple{"dsl_a", a, da}, std::tuple{"dsl_b", b, db}})
    if (!d) fail(MKB_ERR_NOT_FOUND, "{}: DSL '{}' is not registered in this build", field, name);
  return {da, db};
}

std::string language_fingerprint(std::string_view name, std::string_view notes, std::string_view guide) {
  hasher128 language;
  language.add(name).add(notes).add(guide);
  // Every frontend script, for every DSL: a DSL does not say which it runs, so a change to one is
  // taken to change them all (a needless re-run rather than a missed one).
  for (const embedded_file &file : embedded::resources())
    if (file.path.starts_with("dsl/frontends/")) language.add(file.path).add(file.data);
  return language.digest().hex();
}

fingerprints fingerprints_for(const problem &p, const dsl &d, const session_config &config,
                              const evaluation_settings &settings) {
  fingerprints f;
  f.problem = hasher128().add(p.spec_text).add(p.reference).add(p.baseline_source).add(p.anchor_source).add(p.generators_source)
                  .digest().hex();
  f.dsl = language_fingerprint(d.name(), d.notes(), d.guide());
  hasher128 contract;
  contract.add(contract_version)
      .add(fmt::format("{} {} {} {}", config.budget_seconds, config.budget_submissions, config.budget_source_bytes,
                       config.skill_max_bytes))
      .add(fmt::format("{} {} {} {} {}", settings.draws.correctness_draws, settings.draws.warmup_draws, settings.draws.timed_draws,
                       settings.draws.max_timed_draws, settings.draws.reverify_draws));
  for (const embedded_file &file : embedded::resources())
    if (file.path.starts_with("protocol/") && file.path.ends_with(".md")) contract.add(file.path).add(file.data);
  f.contract = contract.digest().hex();
  return f;
}

session_plan make_session_plan(const session_config &config, const std::vector<const problem *> &problems,
                               const dsl &a, const dsl &b, const evaluation_settings &settings) {
  std::vector<fingerprints> prints_a, prints_b;
  session_plan out;
  for (const problem *p : problems) {
    prints_a.push_back(fingerprints_for(*p, a, config, settings));
    prints_b.push_back(fingerprints_for(*p, b, config, settings));
    out.current[{p->id, a.name()}] = prints_a.back();
    out.current[{p->id, b.name()}] = prints_b.back();
  }
  std::vector<bool> glob_used(config.trial_patterns.size(), false);
  bool direction_used = config.directions.empty();
  auto selected = [&](const trial_key &key) {
    bool direction = directs(config, key.arm);
    direction_used |= direction && (key.arm == MKB_ARM_A2B_SKILL || key.arm == MKB_ARM_B2A_SKILL);
    if (!direction) return false;
    if (config.trial_patterns.empty()) return true;
    std::string id = key.id();
    bool any = false;
    for (size_t i = 0; i < config.trial_patterns.size(); ++i)
      if (::fnmatch(config.trial_patterns[i].c_str(), id.c_str(), 0) == 0) any = glob_used[i] = true;
    return any;
  };
  out.plan = std::make_unique<four_arm_plan>(problems, a, b, static_cast<int>(config.replicates), config.model, prints_a,
                                             prints_b, selected);
  if (config.shard_count > 1) {
    // The whole selection first (its globs and directions are checked against all of it), then this
    // shard's share of it: the same trials, those of its units.
    std::set<shard_unit> units;
    for (const planned_trial &t : out.plan->trials()) units.insert({t.key.problem, t.key.replicate});
    std::set<shard_unit> share = shard_share(units, config.shard_index, config.shard_count);
    std::set<std::string> whole;
    for (const planned_trial &t : out.plan->trials()) whole.insert(t.key.id());
    out.plan = std::make_unique<four_arm_plan>(
        problems, a, b, static_cast<int>(config.replicates), config.model, prints_a, prints_b,
        [&](const trial_key &key) { return whole.count(key.id()) && share.count({key.problem, key.replicate}); });
  }
  for (size_t i = 0; i < glob_used.size(); ++i)
    if (!glob_used[i])
      fail(MKB_ERR_CONFIG, "trials: \"{}\" matches no trial of the plan; trial ids are <problem>/<dsl>/<arm>/r<replicate>, "
                           "such as \"{}\"",
           config.trial_patterns[i], out.plan->trials().empty() ? "softmax/cuda/solo_a/r0" : out.plan->trials()[0].key.id());
  if (!direction_used) fail(MKB_ERR_CONFIG, "directions: no problem is planned in the directions given");
  return out;
}

} // namespace mkb
