#pragma once
// Summary statistics of a sample of run metrics (JCTs, waits, slowdowns), shared by the pod and the
// job metrics so that both define a percentile the same way.
#include <algorithm>
#include <cmath>
#include <span>

namespace gpusim::metrics {

// Nearest-rank percentile (q in [0, 1]) of an ascending sample; 0 when it is empty.
inline double percentile_of_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// Arithmetic mean; NaN when the sample is empty.
inline double sample_mean(std::span<const double> values) {
  double sum = 0;
  for (const double x : values) sum += x;
  return sum / static_cast<double>(values.size());
}

}  // namespace gpusim::metrics
