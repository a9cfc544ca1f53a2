#include "traces/k8s_quantity.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>

namespace gpusim::traces {
namespace {

// 128 bits hold every intermediate value below (at most ~10^31), so the conversions are exact.
__extension__ typedef unsigned __int128 Wide;

template <typename T>
Parsed<T> failed(std::string why) {
  return Parsed<T>{std::nullopt, std::move(why)};
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct Suffix {
  std::string_view text;
  int exp10;
  int exp2;
};
constexpr std::array<Suffix, 16> kSuffixes{{{"", 0, 0},
                                            {"n", -9, 0},
                                            {"u", -6, 0},
                                            {"m", -3, 0},
                                            {"k", 3, 0},
                                            {"M", 6, 0},
                                            {"G", 9, 0},
                                            {"T", 12, 0},
                                            {"P", 15, 0},
                                            {"E", 18, 0},
                                            {"Ki", 0, 10},
                                            {"Mi", 0, 20},
                                            {"Gi", 0, 30},
                                            {"Ti", 0, 40},
                                            {"Pi", 0, 50},
                                            {"Ei", 0, 60}}};

// Exponents beyond this are out of any range gpusim reads; the bound keeps sums far from int64 limits.
constexpr std::int64_t kMaxExponent = 1'000'000'000;

// "e3", "E-2", "e+6": the decimal-exponent form (a bare "E" is the exa suffix, found first).
std::optional<std::int64_t> exponent_suffix(std::string_view s) {
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  s.remove_prefix(1);
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : s) {
    if (!is_digit(c)) return std::nullopt;
    value = std::min(kMaxExponent + 1, value * 10 + (c - '0'));
  }
  return negative ? -value : value;
}

// Multiplies the decimal fraction 0.<frac> by `factor` in place and returns the integer part that
// carries out; `frac` keeps the fractional part. factor <= 2^60 and 4 * 10^12 keep every step
// within 64 bits (9 x 2^60 + 2^60 < 2^64).
std::uint64_t multiply_fraction(std::string& frac, std::uint64_t factor) {
  std::uint64_t carry = 0;
  for (auto it = frac.rbegin(); it != frac.rend(); ++it) {
    const std::uint64_t v = static_cast<std::uint64_t>(*it - '0') * factor + carry;
    *it = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return carry;
}

// digits x 5 in place (a decimal string without leading zeros).
void times_five(std::string& digits) {
  unsigned carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const unsigned v = static_cast<unsigned>(*it - '0') * 5 + carry;
    *it = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  if (carry != 0) digits.insert(digits.begin(), static_cast<char>('0' + carry));
}

struct Scaled {
  std::int64_t value = 0;  // ceil(quantity x 10^extra10 x 2^extra2)
  bool exact = true;       // no rounding happened
  bool over = false;       // the value exceeds the limit
};

// ceil(q x 10^extra10 x 2^extra2), exactly, or `over` when it exceeds `limit` (<= 10^18).
Scaled scale_up(const Quantity& q, int extra10, int extra2, std::int64_t limit) {
  if (q.is_zero()) return {};
  std::string digits = q.digits;
  std::int64_t p10 = q.exp10 + extra10;
  int p2 = q.exp2 + extra2;
  // 2^-k = 5^k / 10^k: a negative power of two becomes decimal digits.
  for (; p2 < 0; ++p2) {
    times_five(digits);
    --p10;
  }
  const auto d = static_cast<std::int64_t>(digits.size());
  const double log2_10 = 0.30103;  // a hair above log10(2): bounds below stay safe
  // The value lies in [10^(d-1+p10), 10^(d+p10)) x 2^p2.
  if (static_cast<double>(d - 1 + p10) + p2 * log2_10 >= 31) return {0, false, true};
  if (static_cast<double>(d + p10) + p2 * log2_10 <= 0) return {1, false, 1 > limit};  // 0 < value < 1
  // Split into integer digits and a fraction, then multiply both by 2^p2.
  const std::int64_t int_digits = d + p10;
  Wide integer = 0;
  std::string frac;
  if (int_digits <= 0) {
    frac = std::string(static_cast<std::size_t>(-int_digits), '0') + digits;
  } else {
    const auto n = static_cast<std::size_t>(std::min(int_digits, d));
    for (std::size_t i = 0; i < n; ++i) integer = integer * 10 + static_cast<unsigned>(digits[i] - '0');
    for (std::int64_t i = d; i < int_digits; ++i) integer *= 10;
    frac = digits.substr(n);
  }
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  const std::uint64_t factor = std::uint64_t{1} << p2;
  integer = integer * factor + multiply_fraction(frac, factor);
  Scaled out;
  out.exact = frac.empty();
  if (!out.exact) integer += 1;
  out.over = integer > static_cast<Wide>(limit);
  out.value = out.over ? 0 : static_cast<std::int64_t>(integer);
  return out;
}

std::string too_large(std::string_view text, std::int64_t limit, std::string_view unit) {
  return fmt::format("'{}' is out of range (at most {} {})", text, limit, unit);
}

}  // namespace

Parsed<Quantity> parse_quantity(std::string_view text) {
  const std::string_view original = text;
  if (text.empty()) return failed<Quantity>("empty quantity (expected e.g. 500m, 2, 16Gi)");
  if (text[0] == '-') return failed<Quantity>(fmt::format("'{}' is negative", original));
  if (text[0] == '+') text.remove_prefix(1);
  std::size_t pos = 0;
  std::string whole;
  std::string fraction;
  while (pos < text.size() && is_digit(text[pos])) whole += text[pos++];
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && is_digit(text[pos])) fraction += text[pos++];
  }
  if (whole.empty() && fraction.empty()) {
    return failed<Quantity>(fmt::format("'{}' is not a quantity (expected e.g. 500m, 2, 16Gi, 1e3)", original));
  }
  const std::string_view suffix = text.substr(pos);
  Quantity q;
  bool known = false;
  for (const Suffix& s : kSuffixes) {
    if (s.text == suffix) {
      q.exp10 = s.exp10;
      q.exp2 = s.exp2;
      known = true;
      break;
    }
  }
  if (!known) {
    const auto exponent = exponent_suffix(suffix);
    if (!exponent) {
      return failed<Quantity>(
          fmt::format("'{}': unknown suffix '{}' (expected n, u, m, k, M, G, T, P, E, "
                      "Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3)",
                      original, suffix));
    }
    if (*exponent > kMaxExponent || *exponent < -kMaxExponent) {
      return failed<Quantity>(fmt::format("'{}': exponent out of range", original));
    }
    q.exp10 = *exponent;
  }
  q.digits = whole + fraction;
  q.exp10 -= static_cast<std::int64_t>(fraction.size());
  const std::size_t first = q.digits.find_first_not_of('0');
  if (first == std::string::npos) return Parsed<Quantity>{Quantity{}, {}};  // zero
  q.digits.erase(0, first);
  while (q.digits.back() == '0') {
    q.digits.pop_back();
    ++q.exp10;
  }
  return Parsed<Quantity>{std::move(q), {}};
}

Parsed<std::int64_t> cpu_millicores(std::string_view text) {
  auto q = parse_quantity(text);
  if (!q) return failed<std::int64_t>(std::move(q.error));
  const Scaled s = scale_up(*q.value, 3, 0, kMaxQuantity);
  if (s.over) return failed<std::int64_t>(too_large(text, kMaxQuantity, "millicores"));
  return Parsed<std::int64_t>{s.value, {}};
}

Parsed<std::int64_t> memory_mib(std::string_view text) {
  auto q = parse_quantity(text);
  if (!q) return failed<std::int64_t>(std::move(q.error));
  const Scaled s = scale_up(*q.value, 0, -20, kMaxQuantity);
  if (s.over) return failed<std::int64_t>(too_large(text, kMaxQuantity, "MiB"));
  return Parsed<std::int64_t>{s.value, {}};
}

Parsed<std::int64_t> whole_count(std::string_view text, std::int64_t max) {
  auto q = parse_quantity(text);
  if (!q) return failed<std::int64_t>(std::move(q.error));
  const Scaled s = scale_up(*q.value, 0, 0, max);
  if (!s.exact && !s.over) {
    return failed<std::int64_t>(
        fmt::format("'{}' is not a whole number (Kubernetes requires whole numbers for extended resources)", text));
  }
  if (s.over) return failed<std::int64_t>(fmt::format("'{}' is out of range (at most {})", text, max));
  return Parsed<std::int64_t>{s.value, {}};
}

Parsed<std::int64_t> units_rounded_up(std::string_view text, std::int64_t max) {
  auto q = parse_quantity(text);
  if (!q) return failed<std::int64_t>(std::move(q.error));
  const Scaled s = scale_up(*q.value, 0, 0, max);
  if (s.over) return failed<std::int64_t>(fmt::format("'{}' is out of range (at most {})", text, max));
  return Parsed<std::int64_t>{s.value, {}};
}

Parsed<core::Time> parse_go_duration(std::string_view text) {
  const std::string_view original = text;
  const auto bad = [&](std::string_view why) {
    return failed<core::Time>(
        fmt::format("'{}' is not a duration: {} (units ns, us, ms, s, m, h; e.g. 90s, 1h30m, 500ms)", original, why));
  };
  if (text.empty()) return bad("empty");
  if (text[0] == '-') return failed<core::Time>(fmt::format("'{}' is negative", original));
  if (text[0] == '+') text.remove_prefix(1);
  if (text == "0") return Parsed<core::Time>{core::Time::zero(), {}};  // Go's one unit-less form
  if (text.empty()) return bad("no number");
  struct Unit {
    std::string_view name;
    std::uint64_t nanos;
  };
  static constexpr std::array<Unit, 8> kUnits{{{"ns", 1},
                                               {"us", 1'000},
                                               {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
                                               {"\xCE\xBCs", 1'000},  // U+03BC Greek mu
                                               {"ms", 1'000'000},
                                               {"s", 1'000'000'000},
                                               {"m", 60'000'000'000},
                                               {"h", 3'600'000'000'000}}};
  constexpr Wide kMaxNanos = static_cast<Wide>(core::Time::kMaxInputSeconds) * 1'000'000'000U;
  Wide total = 0;
  while (!text.empty()) {
    std::string whole;
    std::string frac;
    std::size_t pos = 0;
    while (pos < text.size() && is_digit(text[pos])) whole += text[pos++];
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      while (pos < text.size() && is_digit(text[pos])) frac += text[pos++];
    }
    if (whole.empty() && frac.empty()) return bad("expected a number");
    const std::size_t unit_start = pos;
    while (pos < text.size() && !is_digit(text[pos]) && text[pos] != '.') ++pos;
    const std::string_view unit_text = text.substr(unit_start, pos - unit_start);
    if (unit_text.empty()) return bad("missing unit");
    std::uint64_t unit = 0;
    for (const Unit& u : kUnits) {
      if (u.name == unit_text) unit = u.nanos;
    }
    if (unit == 0) return bad(fmt::format("unknown unit '{}'", unit_text));
    const std::size_t first = whole.find_first_not_of('0');
    whole.erase(0, std::min(first, whole.size()));
    if (whole.size() > 22) return failed<core::Time>(fmt::format("'{}' is out of range", original));
    Wide part = 0;
    for (const char c : whole) part = part * 10 + static_cast<unsigned>(c - '0');
    part = part * unit + multiply_fraction(frac, unit);
    if (!frac.empty()) part += 1;  // round the part up to the nanosecond
    total += part;
    if (total > kMaxNanos) {
      return failed<core::Time>(
          fmt::format("'{}' is out of range (at most {} s)", original, core::Time::kMaxInputSeconds));
    }
    text.remove_prefix(pos);
  }
  const Wide micros = (total + 999) / 1000;
  return Parsed<core::Time>{core::Time::from_micros(static_cast<std::int64_t>(micros)), {}};
}

}  // namespace gpusim::traces
