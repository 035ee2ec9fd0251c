#include "protocol/planner.hpp"

#include <algorithm>
#include <map>

#include "dsl/dsl.hpp"
#include "mkb.h"
#include "spec/problem.hpp"

namespace mkb {

four_arm_plan::four_arm_plan(const std::vector<const problem *> &problems, const dsl &a, const dsl &b, int replicates,
                             const std::string &model, const std::vector<fingerprints> &prints_a,
                             const std::vector<fingerprints> &prints_b) {
  for (int r = 0; r < replicates; ++r)
    for (size_t i = 0; i < problems.size(); ++i) {
      const problem &p = *problems[i];
      int first = static_cast<int>(trials_.size());
      // Arms in mkb_arm order: SOLO_A, SOLO_B, A2B (in B), B2A (in A).
      const dsl *languages[4] = {&a, &b, &b, &a};
      for (int arm = 0; arm < 4; ++arm) {
        planned_trial t;
        t.key = {model, p.id, p.family, languages[arm]->name(), arm, r};
        t.p = &p;
        t.language = languages[arm];
        t.prints = languages[arm] == &a ? prints_a[i] : prints_b[i];
        trials_.push_back(std::move(t));
      }
      trials_[first + MKB_ARM_A2B_SKILL].source = first + MKB_ARM_SOLO_A;
      trials_[first + MKB_ARM_B2A_SKILL].source = first + MKB_ARM_SOLO_B;
      trials_[first + MKB_ARM_SOLO_A].dependent = first + MKB_ARM_A2B_SKILL;
      trials_[first + MKB_ARM_SOLO_B].dependent = first + MKB_ARM_B2A_SKILL;
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
      if (ledger.started.count(t.key)) ++*interrupted;
      continue;
    }
    t.stale = !(it->second->prints == t.prints);
    if (t.stale) stale.push_back(t.key.id());
    if (t.stale && rerun_stale) continue;
    t.result = *it->second;
    t.state = trial_state::finished;
  }
  // A skill arm is only as current as its source: when the source runs again, so does the arm.
  for (planned_trial &t : trials_)
    if (t.source >= 0 && t.state == trial_state::finished && trials_[t.source].state != trial_state::finished) {
      t.state = trial_state::waiting;
      t.result.reset();
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
