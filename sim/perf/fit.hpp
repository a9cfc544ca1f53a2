#pragma once
// Least-squares fits for the calibration (Eigen), all in the original time domain and weighted by
// relative error: minimise sum(((model_i - t_i) / t_i)^2), so small and large sizes count alike.
#include <span>

namespace gpusim::perf {

// t = intercept + slope * x. A negative intercept is dropped (active set): the fit is redone
// through the origin, since a negative fixed cost is not physical.
struct AffineFit {
  double intercept = 0;
  double slope = 0;
  double predict(double x) const { return intercept + slope * x; }
};
AffineFit fit_affine(std::span<const double> x, std::span<const double> t);

// Mean and largest absolute percentage error of `predicted` against `measured` (fractions).
struct ErrorStats {
  double mape = 0;
  double max_ape = 0;
  int n = 0;
};
ErrorStats relative_errors(std::span<const double> predicted, std::span<const double> measured);

// y = min(1, capacity / n): per-stream throughput of n streams sharing a GPU whose aggregate
// throughput saturates at `capacity` times one stream's. Fitted by 1-D least squares on the
// points with n > capacity (a short fixed-point iteration).
double fit_capacity(std::span<const double> n, std::span<const double> y);

// delta(N) = delta_inf * (N - 1) / N: the time-slicing overhead of N processes, from measured
// overheads delta_i at N_i (least squares through the origin in the (N-1)/N variable).
double fit_overhead(std::span<const double> n, std::span<const double> delta);

}  // namespace gpusim::perf
