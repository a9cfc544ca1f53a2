#include "sim/perf/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpusim::perf {

AffineFit fit_affine(std::span<const double> x, std::span<const double> t) {
  if (x.size() != t.size() || x.size() < 2) throw std::invalid_argument("fit_affine needs >= 2 paired points");
  const auto n = static_cast<Eigen::Index>(t.size());
  Eigen::MatrixXd design(n, 2);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(t[i] > 0)) throw std::invalid_argument("fit_affine needs positive times");
    design(i, 0) = 1.0 / t[i];
    design(i, 1) = x[i] / t[i];
  }
  Eigen::Vector2d beta = design.colPivHouseholderQr().solve(ones);
  if (beta(0) < 0) {  // constrained: no negative fixed cost
    beta(0) = 0;
    beta(1) = design.col(1).dot(ones) / design.col(1).squaredNorm();
  }
  // Time must grow with size; a non-positive slope would be a rate <= 0 (it once read as "no
  // change in speed"). Such measurements cannot calibrate anything.
  if (!(beta(1) > 0) || !std::isfinite(beta(1))) {
    throw std::domain_error("times do not grow with size: the fitted rate would be <= 0");
  }
  return {beta(0), beta(1)};
}

ErrorStats relative_errors(std::span<const double> predicted, std::span<const double> measured) {
  ErrorStats stats;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double ape = std::abs(predicted[i] - measured[i]) / measured[i];
    stats.mape += ape;
    stats.max_ape = std::max(stats.max_ape, ape);
  }
  stats.n = static_cast<int>(measured.size());
  if (stats.n > 0) stats.mape /= stats.n;
  return stats;
}

double fit_capacity(std::span<const double> n, std::span<const double> y) {
  // Start from the best single-point estimate, then refit on the saturated points.
  double capacity = 1.0;
  for (std::size_t i = 0; i < n.size(); ++i) capacity = std::max(capacity, n[i] * y[i]);
  for (int iteration = 0; iteration < 20; ++iteration) {
    // Saturated points satisfy y = capacity * (1/n): least squares through the origin.
    double numerator = 0, denominator = 0;
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (n[i] <= capacity) continue;
      numerator += y[i] / n[i];
      denominator += 1.0 / (n[i] * n[i]);
    }
    if (denominator == 0) break;
    const double next = numerator / denominator;
    if (std::abs(next - capacity) < 1e-12) break;
    capacity = next;
  }
  return std::max(capacity, 1.0);  // at least one stream's worth: never slower than serial
}

double fit_overhead(std::span<const double> n, std::span<const double> delta) {
  double numerator = 0, denominator = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double u = (n[i] - 1.0) / n[i];
    numerator += u * delta[i];
    denominator += u * u;
  }
  // Constrained to >= 0: noise can make co-located runs look faster than one alone, but a
  // negative overhead would make shared pods faster than solo ones in replay.
  return denominator > 0 ? std::max(0.0, numerator / denominator) : 0.0;
}

}  // namespace gpusim::perf
