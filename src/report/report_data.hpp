// The report's tables (docs/REPORT.md): computed from the scores and the trials they were computed
// from, each later written as CSV and JSON beside the page and drawn by one figure.
#pragma once

#include <utility>
#include <vector>

#include "protocol/scoring.hpp"
#include "protocol/trial.hpp"
#include "report/table.hpp"

namespace mkb::report {

struct report_tables {
  table summary;   // per model, denominator and direction: the paper's Table 1, every figure with its interval
  table intervals; // help rate, harm rate and paired lift with their 95% intervals (figure)
  table ladder;    // R@t of each arm with a 95% Wilson interval (figure)
  table paired;    // every paired comparison, sorted by ratio within its direction (figure)
  table tiers;     // outcomes by the source's tier (figure)
  table families;  // the figures of each family (figure)
  table usage;     // what each arm spent (figure)
  table verdicts;  // final verdicts of the counted trials per arm (figure)
  table flagged;   // stale and contended trials

  std::vector<const table *> all() const; // in the order above
};

// `results`: the trials as the ledgers' readers give them (the latest record of each, staleness set);
// a trial found twice counts once, its later record, as in compute_scores.
report_tables build_tables(const score_report &scores, const std::vector<trial_result> &results);

// The latest record of each trial, in order of first appearance (as compute_scores keeps the later one).
std::vector<const trial_result *> latest_records(const std::vector<trial_result> &results);

// The 95% Wilson score interval of a rate observed over n trials; NaNs for n = 0 or a NaN rate.
std::pair<double, double> wilson_interval(double rate, size_t n);

} // namespace mkb::report
