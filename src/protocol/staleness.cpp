#include "protocol/staleness.hpp"

#include <map>

#include "mkb.h"

namespace mkb {

namespace {

int source_arm(int skill_arm) { return skill_arm == MKB_ARM_A2B_SKILL ? MKB_ARM_SOLO_A : MKB_ARM_SOLO_B; }

} // namespace

std::vector<trial_result> latest_with_staleness(const std::vector<trial_result> &finished, const planned_prints &current) {
  std::map<trial_key, size_t> position; // of the latest record, in file order
  for (size_t i = 0; i < finished.size(); ++i) position[finished[i].key] = i;

  std::vector<trial_result> latest;
  std::map<trial_key, size_t> index_of;
  for (const auto &[key, at] : position) {
    trial_result r = finished[at];
    auto planned = current.find({r.key.problem, r.key.dsl});
    r.stale = planned != current.end() && !(planned->second == r.prints);
    index_of[key] = latest.size();
    latest.push_back(std::move(r));
  }
  for (trial_result &r : latest) {
    if (r.key.arm != MKB_ARM_A2B_SKILL && r.key.arm != MKB_ARM_B2A_SKILL) continue;
    trial_key source = r.key;
    source.arm = source_arm(r.key.arm);
    auto it = index_of.find(source);
    if (it == index_of.end()) continue; // its source is not in these records: nothing to judge by
    if (latest[it->second].stale || position[source] > position[r.key]) r.stale = true;
  }
  return latest;
}

} // namespace mkb
