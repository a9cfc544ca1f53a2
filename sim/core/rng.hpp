#pragma once
// Bit-reproducible randomness. The engine is xoshiro256** (Blackman & Vigna), seeded through
// splitmix64; every distribution is written here rather than taken from <random>, whose
// distributions differ between standard libraries. Named streams derive independent seeds from
// one root seed, so adding a consumer never shifts the numbers another consumer sees.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace gpusim::core {

std::uint64_t splitmix64(std::uint64_t& state);
// FNV-1a, 64-bit: a fixed, documented hash for stream names.
std::uint64_t fnv1a64(std::string_view text);

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  // The stream called `name` under `root_seed`.
  static Rng stream(std::uint64_t root_seed, std::string_view name);

  std::uint64_t next_u64();
  // Uniform integer in [0, bound), bound > 0, without modulo bias (Lemire's method).
  std::uint64_t uniform_below(std::uint64_t bound);
  // Uniform double in [0, 1) with 53 random bits.
  double uniform_unit();

  // Fisher–Yates shuffle, drawing from the back of the range.
  template <typename T>
  void shuffle(std::span<T> items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      const std::size_t j = static_cast<std::size_t>(uniform_below(i));
      std::swap(items[i - 1], items[j]);
    }
  }

 private:
  std::array<std::uint64_t, 4> state_{};
};

}  // namespace gpusim::core
