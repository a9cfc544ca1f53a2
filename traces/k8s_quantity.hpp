#pragma once
// Kubernetes resource quantities ("500m", "16Gi", "1e3", "0.5") and Go duration strings ("90s",
// "1h30m") as Kubernetes and Go read them, converted exactly (no floating point) to gpusim's
// units. Every function returns a value or the reason it has none; callers add file, line and
// field. Rules and their sources: traces/README.md, "Kubernetes manifests".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/time.hpp"

namespace gpusim::traces {

// A value, or why the text has none.
template <typename T>
struct Parsed {
  std::optional<T> value;
  std::string error;  // non-empty exactly when value is empty
  explicit operator bool() const { return value.has_value(); }
};

// A non-negative quantity, exactly: significant digits x 10^exp10 x 2^exp2 (binary suffixes).
struct Quantity {
  std::string digits;      // no leading or trailing zeros; empty for zero
  std::int64_t exp10 = 0;  // decimal exponent of the last digit
  int exp2 = 0;            // 0, 10, 20, ..., 60 (Ki .. Ei)
  bool is_zero() const { return digits.empty(); }
};

// CPU and memory sizes are capped so that cluster totals never overflow (as for openb traces).
inline constexpr std::int64_t kMaxQuantity = 1'000'000'000'000;

// resource.Quantity's syntax: [+]digits[.digits] then one suffix: none, a decimal SI suffix (n u m
// k M G T P E), a binary suffix (Ki Mi Gi Ti Pi Ei) or a decimal exponent (e3, E-2, e+6). A minus
// sign is refused: gpusim reads requests and capacities, which Kubernetes requires non-negative.
Parsed<Quantity> parse_quantity(std::string_view text);

// CPU in millicores, rounded up to the milli as Kubernetes' MilliValue does ("1n" is 1m);
// at most kMaxQuantity.
Parsed<std::int64_t> cpu_millicores(std::string_view text);
// Memory in MiB: bytes / 2^20, rounded up; at most kMaxQuantity.
Parsed<std::int64_t> memory_mib(std::string_view text);
// A whole count (extended resources such as nvidia.com/gpu: Kubernetes refuses fractions, so
// "0.5" and "500m" are errors); at most `max`.
Parsed<std::int64_t> whole_count(std::string_view text, std::int64_t max);

// The quantity rounded up to a whole unit, as resource.Quantity's Value() does ("500m" is 1, "1Ki"
// is 1024): what Kueue holds for every resource but cpu; at most `max` (<= 10^18).
Parsed<std::int64_t> units_rounded_up(std::string_view text, std::int64_t max);

// Go's time.ParseDuration syntax: "0", or one or more <number><unit> with units ns, us (µs,
// μs), ms, s, m, h, e.g. "90s", "1h30m", "1.5h", "500ms". Each part is rounded up to the
// nanosecond (Go's unit) and the total up to the microsecond (gpusim's). A sign other than '+'
// is refused; at most core::Time::kMaxInputSeconds.
Parsed<core::Time> parse_go_duration(std::string_view text);

}  // namespace gpusim::traces
