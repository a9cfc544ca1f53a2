#pragma once
// Simulated time: a signed 64-bit count of microseconds. Integral so that event order never
// depends on floating-point rounding; about 292,000 years of range.
#include <compare>
#include <cstdint>

namespace gpusim::core {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_micros(std::int64_t us) { return Time(us); }
  static constexpr Time from_seconds(std::int64_t s) { return Time(s * kMicrosPerSecond); }
  static constexpr Time zero() { return Time(0); }

  constexpr std::int64_t micros() const { return us_; }
  // Whole seconds, rounded toward negative infinity.
  constexpr std::int64_t seconds_floor() const {
    return us_ >= 0 ? us_ / kMicrosPerSecond : -((-us_ + kMicrosPerSecond - 1) / kMicrosPerSecond);
  }
  constexpr double seconds() const { return static_cast<double>(us_) / kMicrosPerSecond; }

  constexpr Time operator+(Time other) const { return Time(us_ + other.us_); }
  constexpr Time operator-(Time other) const { return Time(us_ - other.us_); }
  constexpr auto operator<=>(const Time&) const = default;

  static constexpr std::int64_t kMicrosPerSecond = 1'000'000;
  // The largest time in seconds a trace may give (about 31,700 years): readers check it, so that
  // from_seconds never overflows and a time plus a duration (each below 10^18 us) fits in int64.
  static constexpr std::int64_t kMaxInputSeconds = 1'000'000'000'000;

 private:
  constexpr explicit Time(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

}  // namespace gpusim::core
