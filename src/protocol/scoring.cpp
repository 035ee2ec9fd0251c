#include "protocol/scoring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "core/json_writer.hpp"
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
    if (xs.empty()) return out;
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
    if (pairs.empty()) return g;
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
  std::vector<pair_unit> pairs;
};

outcome outcome_of(const trial_result &r) { return {r.passed(), r.speedup}; }

// The latest result of each trial, grouped into paired comparisons per model and direction.
std::vector<direction_pairs> gather(const std::vector<trial_result> &results) {
  std::map<trial_key, const trial_result *> latest;
  for (const trial_result &r : results) latest[r.key] = &r;
  std::map<std::tuple<std::string, std::string, int>, std::array<const trial_result *, 4>> units;
  std::set<std::string> models;
  for (const auto &[key, r] : latest) {
    if (key.arm < 0 || key.arm > 3) continue;
    units[{key.model, key.problem, key.replicate}][key.arm] = r;
    models.insert(key.model);
  }
  std::vector<direction_pairs> out;
  for (const std::string &model : models)
    for (int skill_arm : {MKB_ARM_A2B_SKILL, MKB_ARM_B2A_SKILL}) {
      direction_pairs d;
      d.model = model;
      d.skill_arm = skill_arm;
      int base_arm = skill_arm == MKB_ARM_A2B_SKILL ? MKB_ARM_SOLO_B : MKB_ARM_SOLO_A;
      int source_arm = skill_arm == MKB_ARM_A2B_SKILL ? MKB_ARM_SOLO_A : MKB_ARM_SOLO_B;
      for (const auto &[unit, arms] : units) {
        if (std::get<0>(unit) != model) continue;
        const trial_result *skill = arms[skill_arm], *base = arms[base_arm], *source = arms[source_arm];
        if (source && d.source_dsl.empty()) d.source_dsl = source->key.dsl;
        if (base && d.target_dsl.empty()) d.target_dsl = base->key.dsl;
        if (!skill || !base) continue;
        pair_unit p;
        p.problem = std::get<1>(unit);
        p.family = base->key.family;
        p.replicate = std::get<2>(unit);
        p.base = outcome_of(*base);
        p.skipped = skill->skipped;
        p.skill = skill->skipped ? p.base : outcome_of(*skill); // a skipped arm is scored as its base
        if (source) p.source = outcome_of(*source);
        p.contended = base->contended || (!skill->skipped && skill->contended) || (source && source->contended);
        d.pairs.push_back(p);
      }
      if (!d.pairs.empty()) out.push_back(std::move(d));
    }
  return out;
}

template <typename Keep> std::vector<const pair_unit *> select(const std::vector<pair_unit> &pairs, Keep keep) {
  std::vector<const pair_unit *> out;
  for (const pair_unit &p : pairs)
    if (keep(p)) out.push_back(&p);
  return out;
}

const char *tier_name(int tier) { return tier > 0 ? "above" : tier < 0 ? "below" : "same"; }

} // namespace

std::vector<direction_score> compute_scores(const std::vector<trial_result> &results, const score_settings &settings) {
  scorer sc(settings);
  std::vector<direction_pairs> directions = gather(results);
  std::vector<direction_score> out;
  for (const direction_pairs &d : directions) {
    direction_score s;
    s.model = d.model;
    s.source_dsl = d.source_dsl;
    s.target_dsl = d.target_dsl;
    s.direction = d.skill_arm == MKB_ARM_A2B_SKILL ? "a_to_b" : "b_to_a";
    auto all = select(d.pairs, [](const pair_unit &) { return true; });
    s.all = sc.group(all);
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
      if (o.model == d.model && o.skill_arm != d.skill_arm) reverse = &o;
    size_t harmed = 0, source_passed = 0;
    for (const pair_unit &p : d.pairs) {
      s.skipped += p.skipped;
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
    double n = static_cast<double>(d.pairs.size());
    s.skill_coverage = (n - static_cast<double>(s.skipped)) / n;
    s.source_coverage = static_cast<double>(source_passed) / n;
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

void write_rates(json_writer &j, const char *name, const rate_set &r) {
  j.key(name).begin_object();
  for (size_t t = 0; t < score_thresholds.size(); ++t) j.field(fmt::format("R@{}", score_thresholds[t]), r.r[t]);
  j.field("S", r.s).end_object();
}

void write_group(json_writer &j, const group_score &g) {
  j.begin_object().field("pairs", g.pairs).field("S_skill", g.skill.s).field("S_base", g.base.s).field("lift_S", g.lift_s());
  j.field("help_rate", g.help).field("harm_rate", g.harm).field("paired_lift", g.paired_lift).end_object();
}

void write_interval(json_writer &j, const char *name, const std::array<double, 2> &c) {
  j.key(name).begin_array().value(c[0]).value(c[1]).end_array();
}

} // namespace

std::string scores_json(const std::vector<direction_score> &scores, const score_settings &settings) {
  json_writer j;
  j.begin_object().key("settings").begin_object().field("failure_floor", settings.failure_floor);
  j.field("tie_tolerance", settings.tie_tolerance).field("bootstrap_samples", settings.bootstrap_samples).end_object();
  j.key("directions").begin_array();
  for (const direction_score &s : scores) {
    j.begin_object().field("model", s.model).field("direction", s.direction).field("source_dsl", s.source_dsl);
    j.field("target_dsl", s.target_dsl);
    j.field("pairs", s.all.pairs);
    write_rates(j, "skill", s.all.skill);
    write_rates(j, "base", s.all.base);
    j.key("lift").begin_object();
    for (size_t t = 0; t < score_thresholds.size(); ++t)
      j.field(fmt::format("R@{}", score_thresholds[t]), s.all.skill.r[t] - s.all.base.r[t]);
    j.field("S", s.all.lift_s()).end_object();
    j.field("help_rate", s.all.help).field("harm_rate", s.all.harm).field("paired_lift", s.all.paired_lift);
    j.key("ci95").begin_object();
    write_interval(j, "S_skill", s.ci_skill_s);
    write_interval(j, "S_base", s.ci_base_s);
    write_interval(j, "lift_S", s.ci_lift_s);
    write_interval(j, "help_rate", s.ci_help);
    write_interval(j, "harm_rate", s.ci_harm);
    write_interval(j, "paired_lift", s.ci_paired_lift);
    j.end_object();
    j.key("by_family").begin_object();
    for (const auto &[family, g] : s.by_family) {
      j.key(family);
      write_group(j, g);
    }
    j.end_object().key("by_source_verdict").begin_object().key("passed");
    write_group(j, s.source_passed);
    j.key("failed");
    write_group(j, s.source_failed);
    j.end_object().key("by_source_tier").begin_object().key("above");
    write_group(j, s.tier_above);
    j.key("same");
    write_group(j, s.tier_same);
    j.key("below");
    write_group(j, s.tier_below);
    j.end_object();
    j.field("reverse_harm_rate", s.reverse_harm_rate).field("reverse_pairs_considered", s.reverse_considered);
    j.field("skipped", s.skipped).field("contended_pairs", s.contended).field("skill_coverage", s.skill_coverage).field("source_coverage", s.source_coverage);
    j.key("paired").begin_array();
    for (const paired_comparison &p : s.paired) {
      j.begin_object().field("problem", p.problem).field("family", p.family).field("replicate", p.replicate).field("ratio", p.ratio);
      j.field("outcome", p.outcome > 0 ? "helped" : p.outcome < 0 ? "harmed" : "same");
      j.field("source_tier", tier_name(p.source_tier)).field("source_passed", p.source_passed).field("skipped", p.skipped);
      j.field("contended", p.contended);
      j.end_object();
    }
    j.end_array().end_object();
  }
  j.end_array().end_object();
  return j.take();
}

std::string scores_table(const std::vector<direction_score> &scores) {
  if (scores.empty()) return "no finished paired comparisons yet\n";
  auto interval = [](const std::array<double, 2> &c, const char *format) {
    return std::isfinite(c[0]) ? fmt::format(fmt::runtime(format), c[0], c[1]) : std::string("-");
  };
  std::string out;
  for (const direction_score &s : scores) {
    const group_score &a = s.all;
    out += fmt::format("model {}, {} ({} -> {}): {} paired comparisons ({} skill arms skipped)\n", s.model,
                       s.direction == "a_to_b" ? "A to B" : "B to A", s.source_dsl, s.target_dsl, a.pairs, s.skipped);
    if (s.contended > 0)
      out += fmt::format("  {} of them contended: an arm was timed while another process used its GPU (flagged in "
                         "paired[].contended)\n", s.contended);
    out += "            R@0    R@0.5  R@1    R@2    R@4       S\n";
    auto line = [&](const char *label, const std::array<double, 5> &r, double total, bool sign) {
      out += fmt::format("  {:<8}", label);
      for (double v : r) out += sign ? fmt::format("{:>+7.3f}", v) : fmt::format("{:>7.3f}", v);
      out += sign ? fmt::format("{:>+8.1f}", total) : fmt::format("{:>8.1f}", total);
    };
    line("base", a.base.r, a.base.s, false);
    out += "\n";
    line("skill", a.skill.r, a.skill.s, false);
    out += "\n";
    std::array<double, 5> lift{};
    for (size_t t = 0; t < lift.size(); ++t) lift[t] = a.skill.r[t] - a.base.r[t];
    line("lift", lift, a.lift_s(), true);
    out += fmt::format("  95% CI {}\n", interval(s.ci_lift_s, "[{:+.1f}, {:+.1f}]"));
    out += fmt::format("  help {:.2f} {}  harm {:.2f} {}  paired lift (geometric mean) {:+.1f}% {}\n", a.help,
                       interval(s.ci_help, "[{:.2f}, {:.2f}]"), a.harm, interval(s.ci_harm, "[{:.2f}, {:.2f}]"),
                       100 * a.paired_lift,
                       interval({100 * s.ci_paired_lift[0], 100 * s.ci_paired_lift[1]}, "[{:+.1f}%, {:+.1f}%]"));
    out += "  by the source's standing against the target's solo:";
    for (const auto &[name, g] : {std::pair{"above", &s.tier_above}, std::pair{"same", &s.tier_same}, std::pair{"below", &s.tier_below}})
      out += fmt::format("  {} {} (help {:.2f}, harm {:.2f})", name, g->pairs, g->help, g->harm);
    out += "\n";
    out += fmt::format("  reverse direction harmed after a help: {} of {}; skill coverage {:.2f}; source coverage {:.2f}\n",
                       std::isfinite(s.reverse_harm_rate) ? fmt::format("{:.2f}", s.reverse_harm_rate) : std::string("-"),
                       s.reverse_considered, s.skill_coverage, s.source_coverage);
    auto row = [&](const std::string &label, const group_score &g) {
      out += fmt::format("  {:<26} {:>3} pairs  S base {:5.1f}  skill {:5.1f}  lift {:+5.1f}\n", label, g.pairs, g.base.s,
                         g.skill.s, g.lift_s());
    };
    for (const auto &[family, g] : s.by_family) row("family " + family, g);
    row("source passed", s.source_passed);
    row("source failed", s.source_failed);
    out += "\n";
  }
  return out;
}

} // namespace mkb
