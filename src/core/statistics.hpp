// Order statistics of timing samples.
#pragma once

#include <cstddef>
#include <span>

namespace mkb {

struct sample_summary {
  size_t count = 0;
  double min = 0, max = 0, median = 0, q1 = 0, q3 = 0, mean = 0, stddev = 0;
  double cv = 0; // stddev / mean
  double relative_iqr() const { return median > 0 ? (q3 - q1) / median : 0; }
};

// Quantiles by linear interpolation between closest ranks (the usual "type 7").
sample_summary summarize(std::span<const double> samples);

} // namespace mkb
