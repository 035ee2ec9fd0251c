#include "core/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace mkb {

namespace {
double quantile(const std::vector<double> &sorted, double q) {
  double position = q * static_cast<double>(sorted.size() - 1);
  size_t below = static_cast<size_t>(std::floor(position));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}
} // namespace

sample_summary summarize(std::span<const double> samples) {
  sample_summary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = quantile(sorted, 0.5);
  s.q1 = quantile(sorted, 0.25);
  s.q3 = quantile(sorted, 0.75);
  double sum = 0;
  for (double v : sorted) sum += v;
  s.mean = sum / static_cast<double>(sorted.size());
  double squares = 0;
  for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
  s.stddev = sorted.size() > 1 ? std::sqrt(squares / static_cast<double>(sorted.size() - 1)) : 0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
  return s;
}

} // namespace mkb
