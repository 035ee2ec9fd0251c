// A problem's eager PyTorch times per GPU model, from the optional eager_times.json beside its spec: the
// original MetaKernelBench's denominator (its eager reference() at the inputs' dtypes, host work
// included), which reports and scores set beside the baseline's (docs/PROBLEMS.md, Eager times).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mkb {

class file_source;

struct eager_time {
  std::string gpu;       // the device name as the driver reports it; the lookup key
  double eager_us = 0;   // median of the timed calls
  std::optional<double> eager_min_us, eager_max_us, spread_pct, graph_us, baseline_us;
  std::optional<int> timed_calls;
  std::string date, torch, method;
};

// The records of `<folder>/eager_times.json` of `files`, none when the file is absent. Throws
// mkb::error(MKB_ERR_SPEC) naming the file, the problem and the field when it is malformed.
std::vector<eager_time> load_eager_times(const file_source &files, const std::string &folder,
                                         const std::string &problem_id);

// The record of `gpu` (exactly as the driver names it) in `times`, or nullptr.
const eager_time *find_eager_time(const std::vector<eager_time> &times, std::string_view gpu);

} // namespace mkb
