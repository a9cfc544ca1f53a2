#pragma once
// a x b / c for non-negative 64-bit integers without overflow (a 128-bit product), rounded down or
// up: work and time kept in integers stay exact where a double would round.
#include <cstdint>

namespace gpusim::core {

__extension__ using Int128 = __int128;

inline std::int64_t mul_div_floor(std::int64_t a, std::int64_t b, std::int64_t c) {
  return static_cast<std::int64_t>(static_cast<Int128>(a) * b / c);
}

inline std::int64_t mul_div_ceil(std::int64_t a, std::int64_t b, std::int64_t c) {
  return static_cast<std::int64_t>((static_cast<Int128>(a) * b + c - 1) / c);
}

}  // namespace gpusim::core
