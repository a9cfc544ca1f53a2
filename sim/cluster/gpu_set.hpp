#pragma once
// A set of device indices on one node: its GPUs, MIG slots or time-slicing replicas (a node with
// 8 GPUs of 10 replicas each has 80 devices, NVIDIA's own example). A fixed bit set of a few
// words, so that it is copied and compared without allocation.
#include <array>
#include <bit>
#include <cstdint>

namespace gpusim::cluster {

// Devices per node at most: GPUs x replicas (time-slicing, MPS), or MIG slots. 128 (8 GPUs of 16
// replicas) costs nothing measurable against the 64 before issue 28; 256 made the preemption-heavy
// Philly SRTF replay 5 % slower (results/perf/README.md).
inline constexpr int kMaxGpusPerNode = 128;

struct GpuSet {
  static constexpr int kWords = kMaxGpusPerNode / 64;
  std::array<std::uint64_t, kWords> words{};

  // {0, 1, ..., count - 1}.
  static GpuSet first(int count) {
    GpuSet set;
    for (int w = 0; w < kWords && count > 0; ++w, count -= 64) set.words[w] = count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
    return set;
  }
  // From one word: devices 0-63 only.
  static GpuSet of_word(std::uint64_t bits) {
    GpuSet set;
    set.words[0] = bits;
    return set;
  }

  void add(int index) { words[static_cast<std::size_t>(index >> 6)] |= std::uint64_t{1} << (index & 63); }
  void remove(int index) { words[static_cast<std::size_t>(index >> 6)] &= ~(std::uint64_t{1} << (index & 63)); }
  bool contains(int index) const { return ((words[static_cast<std::size_t>(index >> 6)] >> (index & 63)) & 1U) != 0; }
  int size() const {
    // A population count is a library call on the baseline x86-64 target: one for the first word,
    // the others only when a node has more than 64 devices.
    int n = std::popcount(words[0]);
    std::uint64_t high = 0;
    for (int w = 1; w < kWords; ++w) high |= words[w];
    if (high != 0) {
      for (int w = 1; w < kWords; ++w) n += std::popcount(words[w]);
    }
    return n;
  }
  bool empty() const {
    for (const std::uint64_t w : words) {
      if (w != 0) return false;
    }
    return true;
  }
  // The lowest index in the set; -1 when it is empty.
  int lowest() const {
    for (int w = 0; w < kWords; ++w) {
      if (words[w] != 0) return w * 64 + std::countr_zero(words[w]);
    }
    return -1;
  }
  // Whether an index at or above `count` is in the set.
  bool any_from(int count) const {
    for (int w = 0; w < kWords; ++w) {
      const int base = w * 64;
      if (count <= base) {
        if (words[w] != 0) return true;
      } else if (count < base + 64 && (words[w] >> (count - base)) != 0) {
        return true;
      }
    }
    return false;
  }
  bool intersects(const GpuSet& other) const {
    for (int w = 0; w < kWords; ++w) {
      if ((words[w] & other.words[w]) != 0) return true;
    }
    return false;
  }
  GpuSet& operator|=(const GpuSet& other) {
    for (int w = 0; w < kWords; ++w) words[w] |= other.words[w];
    return *this;
  }
  GpuSet& operator&=(const GpuSet& other) {
    for (int w = 0; w < kWords; ++w) words[w] &= other.words[w];
    return *this;
  }
  // Set difference: drops `other`'s indices.
  GpuSet& operator-=(const GpuSet& other) {
    for (int w = 0; w < kWords; ++w) words[w] &= ~other.words[w];
    return *this;
  }
  friend GpuSet operator|(GpuSet a, const GpuSet& b) { return a |= b; }
  friend GpuSet operator&(GpuSet a, const GpuSet& b) { return a &= b; }
  friend GpuSet operator-(GpuSet a, const GpuSet& b) { return a -= b; }
  friend bool operator==(const GpuSet&, const GpuSet&) = default;

  // Calls f(index) for each index, in increasing order.
  template <typename F>
  void for_each(F&& f) const {
    for (int w = 0; w < kWords; ++w) {
      for (std::uint64_t left = words[w]; left != 0; left &= left - 1) f(w * 64 + std::countr_zero(left));
    }
  }
};

}  // namespace gpusim::cluster
