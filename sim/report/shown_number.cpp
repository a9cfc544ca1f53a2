#include "sim/report/shown_number.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace gpusim::report {
namespace {

constexpr int kStoredPlaces = 6;
constexpr double kStoredScale = 1e6;
// Below this a value's count of millionths is an exact integer of a double (under 2^53), so the
// rounding gives the same for a value and for summary_value of it. Larger figures (a makespan of 31
// years in seconds) are written as fmt rounds them.
constexpr double kLargest = 1e9;

std::int64_t power_of_ten(int exponent) {
  std::int64_t power = 1;
  for (int i = 0; i < exponent; ++i) power *= 10;
  return power;
}

void check_places(int places) {
  if (places < 0 || places > kStoredPlaces) throw std::invalid_argument(fmt::format("decimals: {} places (0 to 6 only)", places));
}

// The figure in units of 10^-places, rounded as the header says; false when it is too large or not finite.
bool rounded_units(double x, int places, std::int64_t& units) {
  check_places(places);
  if (!std::isfinite(x) || std::abs(x) >= kLargest) return false;
  // Integer arithmetic from here: the stored decimal value, not its binary neighbour, decides a tie.
  const auto millionths = static_cast<std::int64_t>(std::nearbyint(x * kStoredScale));
  const std::int64_t step = power_of_ten(kStoredPlaces - places);
  const std::int64_t magnitude = (std::abs(millionths) + step / 2) / step;
  units = millionths < 0 ? -magnitude : magnitude;
  return true;
}

std::string written(std::int64_t units, int places, bool with_sign) {
  const std::int64_t scale = power_of_ten(places);
  const std::int64_t magnitude = units < 0 ? -units : units;
  const char* sign = units < 0 ? "-" : with_sign ? "+" : "";
  if (places == 0) return fmt::format("{}{}", sign, magnitude);
  return fmt::format("{}{}.{:0{}}", sign, magnitude / scale, magnitude % scale, places);
}

}  // namespace

double summary_value(double x) { return std::nearbyint(x * kStoredScale) / kStoredScale; }

double shown_value(double x, int places) {
  std::int64_t units = 0;
  if (!rounded_units(x, places, units)) return x;
  return static_cast<double>(units) / static_cast<double>(power_of_ten(places));
}

std::string decimals(double x, int places) {
  std::int64_t units = 0;
  if (!rounded_units(x, places, units)) return fmt::format("{:.{}f}", x, places);
  return written(units, places, false);
}

std::string signed_decimals(double x, int places) {
  std::int64_t units = 0;
  if (!rounded_units(x, places, units)) return fmt::format("{:+.{}f}", x, places);
  return written(units, places, true);
}

}  // namespace gpusim::report
