#include "protocol/planner.hpp"

#include <algorithm>
#include <map>

#include "core/text.hpp"
#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/problem.hpp"

namespace mkb {

const char *plan_state_name(const planned_trial &t) {
  if (t.state == trial_state::finished) return t.stale ? "stale" : t.result && t.result->skipped ? "skipped" : "done";
  if (t.stale) return "rerun";
  return t.interrupted ? "interrupted" : "pending";
}

four_arm_plan::four_arm_plan(const std::vector<const problem *> &problems, const dsl &a, const dsl &b, int replicates,
                             const std::string &model, const std::vector<fingerprints> &prints_a,
                             const std::vector<fingerprints> &prints_b,
                             const std::function<bool(const trial_key &)> &selected) {
  for (int r = 0; r < replicates; ++r)
    for (size_t i = 0; i < problems.size(); ++i) {
      const problem &p = *problems[i];
      // Arms in mkb_arm order: SOLO_A, SOLO_B, A2B (in B), B2A (in A).
      const dsl *languages[4] = {&a, &b, &b, &a};
      planned_trial four[4];
      bool keep[4];
      for (int arm = 0; arm < 4; ++arm) {
        planned_trial &t = four[arm];
        t.key = {model, p.id, p.family, languages[arm]->name(), arm, r};
        t.p = &p;
        t.language = languages[arm];
        t.prints = languages[arm] == &a ? prints_a[i] : prints_b[i];
        keep[arm] = !selected || selected(t.key);
      }
      keep[MKB_ARM_SOLO_A] |= keep[MKB_ARM_A2B_SKILL]; // a skill arm needs the skill its source writes
      keep[MKB_ARM_SOLO_B] |= keep[MKB_ARM_B2A_SKILL];
      int index[4] = {-1, -1, -1, -1};
      for (int arm = 0; arm < 4; ++arm)
        if (keep[arm]) {
          index[arm] = static_cast<int>(trials_.size());
          trials_.push_back(std::move(four[arm]));
        }
      for (auto [skill, solo] : {std::pair{MKB_ARM_A2B_SKILL, MKB_ARM_SOLO_A}, std::pair{MKB_ARM_B2A_SKILL, MKB_ARM_SOLO_B}})
        if (index[skill] >= 0) {
          trials_[index[skill]].source = index[solo];
          trials_[index[solo]].dependent = index[skill];
        }
    }
  for (int i = 0; i < static_cast<int>(trials_.size()); ++i)
    if (trials_[i].source < 0) make_ready(i);
}

void four_arm_plan::make_ready(int index) {
  trials_[index].state = trial_state::ready;
  ready_.push_back(index);
}

std::vector<std::string> four_arm_plan::restore(const ledger_contents &ledger, bool rerun_stale, int *interrupted) {
  std::map<trial_key, const trial_result *> latest;
  for (const trial_result &r : ledger.finished) latest[r.key] = &r; // file order: the last one wins
  std::vector<std::string> stale;
  *interrupted = 0;
  for (planned_trial &t : trials_) {
    auto it = latest.find(t.key);
    if (it == latest.end()) {
      t.interrupted = ledger.started.count(t.key) > 0;
      if (t.interrupted) ++*interrupted;
      continue;
    }
    t.stale = !(it->second->prints == t.prints);
    if (t.stale) stale.push_back(t.key.id());
    if (t.stale && rerun_stale) continue;
    t.result = *it->second;
    t.state = trial_state::finished;
  }
  // A skill arm is only as current as its source: a stale source makes it stale, and when the source
  // runs again, so does the arm.
  for (planned_trial &t : trials_) {
    if (t.source < 0 || !t.result) continue;
    const planned_trial &source = trials_[t.source];
    if (source.stale && !t.stale) {
      t.stale = true;
      stale.push_back(t.key.id());
    }
    if (t.state == trial_state::finished && source.state != trial_state::finished) {
      t.state = trial_state::waiting;
      t.result.reset();
    }
  }
  ready_.clear();
  for (int i = 0; i < static_cast<int>(trials_.size()); ++i) {
    planned_trial &t = trials_[i];
    if (t.state == trial_state::finished) continue;
    bool source_done = t.source < 0 || trials_[t.source].state == trial_state::finished;
    if (source_done) make_ready(i);
    else t.state = trial_state::waiting;
  }
  return stale;
}

std::optional<int> four_arm_plan::take() {
  if (ready_.empty()) return std::nullopt;
  int index = ready_.front();
  ready_.pop_front();
  trials_[index].state = trial_state::handed_out;
  return index;
}

void four_arm_plan::put_back(int index) {
  trials_[index].state = trial_state::ready;
  ready_.push_front(index);
}

std::optional<int> four_arm_plan::finish(int index, trial_result result) {
  planned_trial &t = trials_[index];
  if (t.state == trial_state::ready) ready_.erase(std::find(ready_.begin(), ready_.end(), index)); // a skip
  t.state = trial_state::finished;
  t.result = std::move(result);
  if (t.dependent >= 0 && trials_[t.dependent].state == trial_state::waiting) {
    make_ready(t.dependent);
    return t.dependent;
  }
  return std::nullopt;
}

bool four_arm_plan::left_without_skill(int index) const {
  const planned_trial &t = trials_[index];
  if (t.source < 0 || t.state == trial_state::finished) return false;
  const planned_trial &source = trials_[t.source];
  return source.state == trial_state::finished && source.result && trim(source.result->skill).empty();
}

bool four_arm_plan::all_handed_out() const {
  for (const planned_trial &t : trials_)
    if (t.state == trial_state::waiting || t.state == trial_state::ready) return false;
  return true;
}

bool four_arm_plan::all_finished() const {
  for (const planned_trial &t : trials_)
    if (t.state != trial_state::finished) return false;
  return true;
}

} // namespace mkb
