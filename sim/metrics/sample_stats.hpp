#pragma once
// Summary statistics of a sample of run metrics (JCTs, waits, slowdowns), shared by the pod and the
// job metrics so that both define a percentile the same way.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

namespace gpusim::metrics {

// Nearest-rank percentile (q in [0, 1]) of an ascending sample; 0 when it is empty.
inline double percentile_of_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// The same percentile of a sample in any order, which it reorders: the nearest rank's order
// statistic is the value a full sort would put there, found in linear time (a run of 10^7 jobs
// takes several of these; sorting each was seconds).
inline double percentile_in_place(std::span<double> values, double q) {
  if (values.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::min(values.size() - 1, rank == 0 ? 0 : rank - 1));
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

// Arithmetic mean; NaN when the sample is empty.
inline double sample_mean(std::span<const double> values) {
  double sum = 0;
  for (const double x : values) sum += x;
  return sum / static_cast<double>(values.size());
}

}  // namespace gpusim::metrics
