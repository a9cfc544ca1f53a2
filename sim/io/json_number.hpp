#pragma once
// Integers from JSON without undefined behaviour: nlohmann's get<int>() on 1e300 converts a
// double that does not fit (undefined); this checks the value and its range first.
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpusim::io {

// Throws std::domain_error naming `what` unless `j` is an integer (or an integral float) in the
// range of Int.
template <typename Int>
Int checked_integer(const nlohmann::json& j, const std::string& what) {
  constexpr auto low = std::numeric_limits<Int>::min();
  constexpr auto high = std::numeric_limits<Int>::max();
  const auto out_of_range = [&] { return std::domain_error(what + ": out of range for an integer"); };
  if (j.is_number_unsigned()) {
    const auto value = j.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(high)) throw out_of_range();
    return static_cast<Int>(value);
  }
  if (j.is_number_integer()) {
    const auto value = j.get<std::int64_t>();
    if (value < static_cast<std::int64_t>(low) || value > static_cast<std::int64_t>(high)) throw out_of_range();
    return static_cast<Int>(value);
  }
  if (j.is_number_float()) {
    const double value = j.get<double>();
    if (!std::isfinite(value) || value != std::floor(value)) throw std::domain_error(what + ": expected an integer");
    if (value < static_cast<double>(low) || value >= -2.0 * static_cast<double>(std::numeric_limits<std::int64_t>::min()) ||
        value > static_cast<double>(high)) {
      throw out_of_range();
    }
    return static_cast<Int>(value);
  }
  throw std::domain_error(what + ": expected an integer");
}

template <typename Int>
std::vector<Int> checked_integers(const nlohmann::json& j, const std::string& what) {
  if (!j.is_array()) throw std::domain_error(what + ": expected a list of integers");
  std::vector<Int> out;
  for (const auto& item : j) out.push_back(checked_integer<Int>(item, what));
  return out;
}

}  // namespace gpusim::io
