#include "protocol/scoring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/random.hpp"
#include "mkb.h"

namespace mkb {

namespace {

struct outcome {
  bool passed = false;
  double speedup = NAN;
};

// One paired comparison: a skill arm against the solo in its target DSL, same problem and replicate.
struct pair_unit {
  std::string problem, family;
  int replicate = 0;
  outcome skill, base, source;
  bool skipped = false;
  bool contended = false; // an arm's final timing shared the GPU with another process
};

class scorer {
public:
  explicit scorer(const score_settings &s) : s_(s) {}

  double performance(const outcome &o) const { return o.passed ? std::max(o.speedup, s_.failure_floor) : s_.failure_floor; }
  double ratio(const pair_unit &p) const { return performance(p.skill) / performance(p.base); }
  int compare(double r) const { return r > 1 + s_.tie_tolerance ? 1 : r < 1 / (1 + s_.tie_tolerance) ? -1 : 0; }
  int tier(const pair_unit &p) const { return compare(performance(p.source) / performance(p.base)); }

  static rate_set rates(const std::vector<outcome> &xs) {
    rate_set out;
    if (xs.empty()) {
      out.r.fill(NAN); // no attempts: no rate, rather than a rate of 0
      out.s = NAN;
      return out;
    }
    for (size_t t = 0; t < score_thresholds.size(); ++t) {
      size_t hits = 0;
      for (const outcome &x : xs) hits += x.passed && x.speedup >= score_thresholds[t];
      out.r[t] = static_cast<double>(hits) / static_cast<double>(xs.size());
    }
    for (double v : out.r) out.s += v;
    out.s = 100 * out.s / static_cast<double>(score_thresholds.size());
    return out;
  }

  group_score group(const std::vector<const pair_unit *> &pairs) const {
    group_score g;
    g.pairs = pairs.size();
    if (pairs.empty()) {
      g.skill = g.base = rates({});
      g.help = g.harm = g.paired_lift = NAN;
      return g;
    }
    std::vector<outcome> skill, base;
    double log_sum = 0;
    size_t helped = 0, harmed = 0;
    for (const pair_unit *p : pairs) {
      skill.push_back(p->skill);
      base.push_back(p->base);
      double r = ratio(*p);
      log_sum += std::log(r);
      helped += compare(r) > 0;
      harmed += compare(r) < 0;
    }
    double n = static_cast<double>(pairs.size());
    g.skill = rates(skill);
    g.base = rates(base);
    g.help = static_cast<double>(helped) / n;
    g.harm = static_cast<double>(harmed) / n;
    g.paired_lift = std::exp(log_sum / n) - 1;
    return g;
  }

  void bootstrap(const std::vector<const pair_unit *> &pairs, direction_score &d) const {
    std::array<std::vector<double>, 6> samples;
    splitmix64 random(s_.bootstrap_seed);
    std::vector<const pair_unit *> draw(pairs.size());
    for (int b = 0; b < s_.bootstrap_samples && !pairs.empty(); ++b) {
      for (auto &x : draw) x = pairs[random.below(pairs.size())];
      group_score g = group(draw);
      double values[6] = {g.skill.s, g.base.s, g.lift_s(), g.help, g.harm, g.paired_lift};
      for (int i = 0; i < 6; ++i) samples[i].push_back(values[i]);
    }
    std::array<double, 2> *targets[6] = {&d.ci_skill_s, &d.ci_base_s, &d.ci_lift_s, &d.ci_help, &d.ci_harm, &d.ci_paired_lift};
    for (int i = 0; i < 6; ++i) {
      std::vector<double> &v = samples[i];
      if (v.empty()) {
        *targets[i] = {NAN, NAN};
        continue;
      }
      std::sort(v.begin(), v.end());
      auto at = [&](double q) { return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)]; };
      *targets[i] = {at(0.025), at(0.975)};
    }
  }

private:
  const score_settings &s_;
};

struct direction_pairs {
  std::string model, source_dsl, target_dsl;
  int skill_arm = 0;
  size_t resolved = 0, skipped = 0;
  std::vector<pair_unit> pairs;
  std::vector<unresolved_replicate> unresolved;
  std::array<arm_usage, 3> usage_by_role;
  std::vector<std::string> without_eager; // ids of passed attempts of the pairs that have no eager time
};

outcome outcome_of(const trial_result &r, denominator against) {
  return {r.passed(), against == denominator::eager ? r.speedup_vs_eager() : r.speedup};
}

// A passed attempt that cannot be scored against eager: none recorded for its GPU, or an older ledger.
bool lacks_eager(const trial_result &r) { return r.passed() && !std::isfinite(r.speedup_vs_eager()); }

// The arms of one model, problem and replicate: the record each counts, and which were left out stale.
struct replicate_records {
  std::array<const trial_result *, 4> counted{};
  std::array<bool, 4> stale{};
};

using replicate_id = std::tuple<std::string, std::string, int>; // model, problem, replicate

// Every latest record of each trial, sorted into replicates; stale ones listed, and counted only if asked.
struct sorted_records {
  std::map<std::string, model_summary> models;
  std::map<std::string, std::array<std::string, 2>> dsls; // per model: DSL A and DSL B
  std::map<replicate_id, replicate_records> replicates;
};

sorted_records sort_records(const std::vector<trial_result> &results, const score_settings &settings) {
  std::map<trial_key, const trial_result *> latest;
  sorted_records out;
  for (const trial_result &r : results) {
    if (r.key.arm < MKB_ARM_SOLO_A || r.key.arm > MKB_ARM_B2A_SKILL) continue;
    latest[r.key] = &r;
    // A direction is a model and a DSL pair: records of two pairs under one model would be paired
    // across pairs (a trial's identity leaves its DSL out) and counted under the first pair's names.
    const int role = r.key.arm == MKB_ARM_SOLO_A || r.key.arm == MKB_ARM_B2A_SKILL ? 0 : 1;
    std::string &dsl = out.dsls[r.key.model][role];
    if (dsl.empty()) dsl = r.key.dsl;
    if (dsl != r.key.dsl)
      fail(MKB_ERR_LEDGER, "model '{}' is recorded with DSL {} as both '{}' and '{}' ({}): score each DSL pair's "
           "ledgers apart, or give each pair its own model name",
           r.key.model, role == 0 ? "A" : "B", dsl, r.key.dsl, r.key.id());
  }
  for (const auto &[key, r] : latest) {
    model_summary &m = out.models[key.model];
    m.model = key.model;
    replicate_records &rep = out.replicates[{key.model, key.problem, key.replicate}];
    if (r->stale) m.stale_trials.push_back(key.id());
    if (r->stale && !settings.include_stale) {
      rep.stale[key.arm] = true;
      continue;
    }
    rep.counted[key.arm] = r;
    m.usage_by_arm[key.arm].add(*r);
  }
  return out;
}

// One direction of one model: a state for every replicate in which one of its roles has a record, a
// pair for every replicate in which all three have.
direction_pairs pair_direction(const std::string &model, int skill_arm, const sorted_records &records,
                               denominator against) {
  direction_pairs d;
  d.model = model;
  d.skill_arm = skill_arm;
  const std::array<std::string, 2> &dsls = records.dsls.at(model);
  d.source_dsl = dsls[skill_arm == MKB_ARM_A2B_SKILL ? 0 : 1];
  d.target_dsl = dsls[skill_arm == MKB_ARM_A2B_SKILL ? 1 : 0];
  int base_arm = skill_arm == MKB_ARM_A2B_SKILL ? MKB_ARM_SOLO_B : MKB_ARM_SOLO_A;
  int source_arm = skill_arm == MKB_ARM_A2B_SKILL ? MKB_ARM_SOLO_A : MKB_ARM_SOLO_B;
  const std::array<int, 3> role_arms = {source_arm, base_arm, skill_arm}; // in the order of score_roles
  for (const auto &[id, rep] : records.replicates) {
    if (std::get<0>(id) != model) continue;
    unresolved_replicate gap{std::get<1>(id), std::get<2>(id), {}};
    bool seen = false;
    for (size_t role = 0; role < role_arms.size(); ++role) {
      int arm = role_arms[role];
      seen |= rep.counted[arm] || rep.stale[arm];
      if (rep.counted[arm]) d.usage_by_role[role].add(*rep.counted[arm]);
      else gap.missing.push_back({score_roles[role], arm, rep.stale[arm] ? "stale" : "unfinished"});
    }
    if (!seen) continue;
    if (!gap.missing.empty()) {
      d.unresolved.push_back(std::move(gap));
      continue;
    }
    const trial_result *source = rep.counted[source_arm], *base = rep.counted[base_arm];
    const trial_result *skill = rep.counted[skill_arm];
    pair_unit p;
    p.problem = std::get<1>(id);
    p.family = base->key.family;
    p.replicate = std::get<2>(id);
    p.base = outcome_of(*base, against);
    p.source = outcome_of(*source, against);
    p.skipped = skill->skipped;
    p.skill = skill->skipped ? p.base : outcome_of(*skill, against); // a skipped arm is scored as its base
    for (const trial_result *r : {source, base, skill})
      if (!(r == skill && skill->skipped) && lacks_eager(*r)) d.without_eager.push_back(r->key.id());
    p.contended = base->contended || source->contended || (!skill->skipped && skill->contended);
    (p.skipped ? d.skipped : d.resolved) += 1;
    d.pairs.push_back(p);
  }
  return d;
}

struct gathered {
  std::vector<model_summary> models;
  std::vector<direction_pairs> directions;
};

gathered gather(const std::vector<trial_result> &results, const score_settings &settings, denominator against) {
  sorted_records records = sort_records(results, settings);
  gathered out;
  for (auto &[model, summary] : records.models) {
    for (int skill_arm : {MKB_ARM_A2B_SKILL, MKB_ARM_B2A_SKILL}) {
      direction_pairs d = pair_direction(model, skill_arm, records, against);
      if (!d.pairs.empty() || !d.unresolved.empty()) out.directions.push_back(std::move(d));
    }
    out.models.push_back(std::move(summary));
  }
  return out;
}

std::string why_not_against_eager(const std::vector<std::string> &ids) {
  constexpr size_t shown = 5;
  std::string listed;
  for (size_t i = 0; i < ids.size() && i < shown; ++i) listed += fmt::format("{}{}", i ? ", " : "", ids[i]);
  if (ids.size() > shown) listed += fmt::format(" and {} more", ids.size() - shown);
  return fmt::format("{} passed {} no eager time ({}): the problem's eager_times.json has no record for the GPU {} ran "
                     "on, or the ledger is older than eager times",
                     ids.size(), ids.size() == 1 ? "attempt has" : "attempts have", listed,
                     ids.size() == 1 ? "it" : "they");
}

template <typename Keep> std::vector<const pair_unit *> select(const std::vector<pair_unit> &pairs, Keep keep) {
  std::vector<const pair_unit *> out;
  for (const pair_unit &p : pairs)
    if (keep(p)) out.push_back(&p);
  return out;
}

} // namespace

void arm_usage::add(const trial_result &r) {
  if (r.skipped) return; // it never ran
  ++trials;
  input_tokens += r.input_tokens;
  cached_input_tokens += r.cached_input_tokens;
  output_tokens += r.output_tokens;
  cost_usd += r.cost_usd;
  seconds += r.seconds_used;
  submissions += static_cast<uint64_t>(std::max(r.submissions_used, 0));
  compile_checks += static_cast<uint64_t>(std::max(r.compile_checks, 0));
}

double arm_usage::mean_seconds() const { return trials ? seconds / static_cast<double>(trials) : NAN; }
double arm_usage::mean_submissions() const {
  return trials ? static_cast<double>(submissions) / static_cast<double>(trials) : NAN;
}
double arm_usage::mean_compile_checks() const {
  return trials ? static_cast<double>(compile_checks) / static_cast<double>(trials) : NAN;
}

const char *denominator_name(denominator d) { return d == denominator::eager ? "eager" : "baseline"; }

namespace {

// Every direction's scores with speedups against `against`; the models' summaries into `models`.
std::vector<direction_score> score_directions(const std::vector<trial_result> &results, const score_settings &settings,
                                              denominator against, std::vector<model_summary> *models) {
  scorer sc(settings);
  gathered g = gather(results, settings, against);
  if (models) *models = std::move(g.models);
  std::vector<direction_score> out;
  const std::vector<direction_pairs> &directions = g.directions;
  for (const direction_pairs &d : directions) {
    direction_score s;
    s.model = d.model;
    s.source_dsl = d.source_dsl;
    s.target_dsl = d.target_dsl;
    s.direction = d.skill_arm == MKB_ARM_A2B_SKILL ? "a_to_b" : "b_to_a";
    s.against = against;
    s.resolved = d.resolved;
    s.skipped = d.skipped;
    s.unresolved = d.unresolved;
    s.usage_by_role = d.usage_by_role;
    if (against == denominator::eager && !d.without_eager.empty()) {
      s.scored = false;
      s.why_absent = why_not_against_eager(d.without_eager);
      out.push_back(std::move(s));
      continue;
    }
    auto all = select(d.pairs, [](const pair_unit &) { return true; });
    s.all = sc.group(all);
    s.with_skill = sc.group(select(d.pairs, [](const pair_unit &p) { return !p.skipped; }));
    sc.bootstrap(all, s);
    std::set<std::string> families;
    for (const pair_unit &p : d.pairs) families.insert(p.family);
    for (const std::string &f : families) s.by_family[f] = sc.group(select(d.pairs, [&](const pair_unit &p) { return p.family == f; }));
    s.source_passed = sc.group(select(d.pairs, [](const pair_unit &p) { return p.source.passed; }));
    s.source_failed = sc.group(select(d.pairs, [](const pair_unit &p) { return !p.source.passed; }));
    s.tier_above = sc.group(select(d.pairs, [&](const pair_unit &p) { return sc.tier(p) > 0; }));
    s.tier_same = sc.group(select(d.pairs, [&](const pair_unit &p) { return sc.tier(p) == 0; }));
    s.tier_below = sc.group(select(d.pairs, [&](const pair_unit &p) { return sc.tier(p) < 0; }));
    // The reverse direction: the other skill arm of the same model on the same problem and replicate.
    const direction_pairs *reverse = nullptr;
    for (const direction_pairs &o : directions)
      if (o.model == d.model && o.skill_arm != d.skill_arm && (against != denominator::eager || o.without_eager.empty()))
        reverse = &o; // against eager, a reverse direction without eager times has no ratios
    size_t harmed = 0, source_passed = 0;
    for (const pair_unit &p : d.pairs) {
      s.contended += p.contended;
      source_passed += p.source.passed;
      double r = sc.ratio(p);
      s.paired.push_back({p.problem, p.family, p.replicate, r, sc.compare(r), sc.tier(p), p.skipped, p.source.passed, p.contended});
      if (sc.compare(r) <= 0 || !reverse) continue;
      for (const pair_unit &q : reverse->pairs)
        if (q.problem == p.problem && q.replicate == p.replicate) {
          ++s.reverse_considered;
          harmed += sc.compare(sc.ratio(q)) < 0;
        }
    }
    s.reverse_harm_rate = s.reverse_considered ? static_cast<double>(harmed) / static_cast<double>(s.reverse_considered) : NAN;
    double n = static_cast<double>(d.pairs.size()); // no pairs: both coverages are NaN
    s.skill_coverage = (n - static_cast<double>(s.skipped)) / n;
    s.source_coverage = static_cast<double>(source_passed) / n;
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace

score_report compute_scores(const std::vector<trial_result> &results, const score_settings &settings) {
  score_report report;
  report.settings = settings;
  report.directions_vs_eager = score_directions(results, settings, denominator::eager, nullptr);
  report.directions = score_directions(results, settings, denominator::baseline, &report.models);
  return report;
}

} // namespace mkb
