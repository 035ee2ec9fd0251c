// The four-arm plan of a session: for every problem and replicate, SOLO_A, SOLO_B, A2B_SKILL and
// B2A_SKILL, or the part of them a selection keeps (a kept skill arm keeps its source solo). Solos are
// ready at once; a skill arm becomes ready when its source solo ends. The plan resumes from a ledger:
// finished trials are kept, interrupted ones planned again, stale ones kept or planned again.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "protocol/ledger.hpp"
#include "protocol/trial.hpp"

namespace mkb {

struct problem;
class dsl;

enum class trial_state { waiting, ready, handed_out, finished };

struct planned_trial {
  trial_key key;
  const problem *p = nullptr;
  const dsl *language = nullptr;
  fingerprints prints;
  trial_state state = trial_state::waiting;
  int source = -1; // skill arms: the solo whose skill they receive
  int dependent = -1; // solos: the skill arm that waits for them
  std::optional<trial_result> result;
  bool stale = false; // finished under other fingerprints (kept unless rerun_stale)
  bool interrupted = false; // started in the ledger, never finished
};

// What a dry run says of a trial: "done", "skipped", "stale", "rerun" (stale, planned again),
// "interrupted" (planned again) or "pending".
const char *plan_state_name(const planned_trial &t);

class four_arm_plan {
public:
  // `selected` keeps a trial (nullptr: all); a kept skill arm keeps its source solo.
  four_arm_plan(const std::vector<const problem *> &problems, const dsl &a, const dsl &b, int replicates,
                const std::string &model, const std::vector<fingerprints> &prints_a,
                const std::vector<fingerprints> &prints_b, const std::function<bool(const trial_key &)> &selected = nullptr);

  // Takes finished trials from a ledger. Returns the ids of stale trials (kept, or planned again with
  // rerun_stale) and the count of interrupted ones (started, never finished: planned again). A skill
  // arm whose source is planned again is stale too: it would receive another skill.
  std::vector<std::string> restore(const ledger_contents &ledger, bool rerun_stale, int *interrupted);

  // The next ready trial, now handed out; nullopt when none is ready.
  std::optional<int> take();
  // Undoes take() of `index` (its hand-out could not be recorded): first in line again.
  void put_back(int index);
  // Records the end of a trial (handed out, or still ready when it is skipped). Returns the skill arm
  // that became ready, if any.
  std::optional<int> finish(int index, trial_result result);

  // Whether the trial is a skill arm not yet finished whose source ended with an empty skill: it is
  // never handed out, but recorded as skipped (the session does so; a dry run says so).
  bool left_without_skill(int index) const;

  bool all_handed_out() const;
  bool all_finished() const;
  std::vector<planned_trial> &trials() { return trials_; }
  const std::vector<planned_trial> &trials() const { return trials_; }

private:
  void make_ready(int index);
  std::vector<planned_trial> trials_;
  std::deque<int> ready_;
};

} // namespace mkb
