#pragma once
// The time series of a run (one point after each event), kept compact: a run of 10^7 jobs samples
// about 2 x 10^7 points, 48 bytes each as structs (and up to three times that while a vector
// doubles), where each point differs from the one before by a few small numbers. Each point is
// stored as its six fields' differences from the previous point, zigzag-encoded varints (LEB128),
// in chunks of 64 KiB that never move: typically 8-12 bytes a point. Read back in order only.
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace gpusim::experiment {

// One row of the time series: the cluster after an event.
struct SeriesPoint {
  std::int64_t time_us = 0;
  std::int64_t arrived_gpu_milli = 0;
  std::int64_t allocated_gpu_milli = 0;
  std::int64_t gpus_in_use = 0;
  std::int64_t running_pods = 0;
  std::int64_t pending_pods = 0;
};

class SeriesLog {
 public:
  static constexpr std::size_t kChunkBytes = 1 << 16;
  static constexpr std::size_t kFields = 6;
  static constexpr std::size_t kMaxPointBytes = kFields * 10;  // a 64-bit varint takes at most 10

  SeriesLog() = default;
  SeriesLog(const SeriesLog&) = default;
  SeriesLog& operator=(const SeriesLog&) = default;
  // A log moved from is empty (its chunks went with the move; so do its counts).
  SeriesLog(SeriesLog&& other) noexcept { *this = std::move(other); }
  SeriesLog& operator=(SeriesLog&& other) noexcept {
    chunks_ = std::exchange(other.chunks_, {});
    ends_ = std::exchange(other.ends_, {});
    used_ = std::exchange(other.used_, 0);
    size_ = std::exchange(other.size_, 0);
    last_ = std::exchange(other.last_, {});
    return *this;
  }

  void push(const SeriesPoint& point) {
    if (chunks_.empty() || used_ + kMaxPointBytes > kChunkBytes) {
      chunks_.emplace_back(kChunkBytes);
      ends_.push_back(0);
      used_ = 0;
    }
    std::uint8_t* const start = chunks_.back().data();
    std::uint8_t* out = start + used_;
    const std::array<std::uint64_t, kFields> now = fields(point);
    for (std::size_t f = 0; f < kFields; ++f) out = put(out, zigzag(static_cast<std::int64_t>(now[f] - last_[f])));
    last_ = now;
    used_ = static_cast<std::size_t>(out - start);
    ends_.back() = used_;
    ++size_;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Bytes held (for the memory report).
  std::size_t bytes() const { return chunks_.size() * kChunkBytes; }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = SeriesPoint;
    using difference_type = std::ptrdiff_t;
    using pointer = const SeriesPoint*;
    using reference = const SeriesPoint&;

    Iterator() = default;
    Iterator(const SeriesLog* log, std::size_t index) : log_(log), index_(index) {
      if (index_ < log_->size_) decode();
    }
    const SeriesPoint& operator*() const { return point_; }
    const SeriesPoint* operator->() const { return &point_; }
    Iterator& operator++() {
      if (++index_ < log_->size_) decode();
      return *this;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    void decode() {
      if (offset_ == log_->ends_[chunk_]) {
        ++chunk_;
        offset_ = 0;
      }
      const std::uint8_t* const start = log_->chunks_[chunk_].data();
      const std::uint8_t* in = start + offset_;
      for (std::size_t f = 0; f < kFields; ++f) {
        std::uint64_t raw = *in++;
        if (raw >= 0x80) {  // most differences fit one byte; the rest continue 7 bits a byte
          raw &= 0x7f;
          for (int shift = 7;; shift += 7) {
            const std::uint8_t byte = *in++;
            raw |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) break;
          }
        }
        fields_[f] += static_cast<std::uint64_t>(unzigzag(raw));
      }
      offset_ = static_cast<std::size_t>(in - start);
      const auto value = [&](std::size_t f) { return static_cast<std::int64_t>(fields_[f]); };
      point_ = {value(0), value(1), value(2), value(3), value(4), value(5)};
    }
    const SeriesLog* log_ = nullptr;
    std::size_t index_ = 0;
    std::size_t chunk_ = 0;
    std::size_t offset_ = 0;
    std::array<std::uint64_t, kFields> fields_{};  // the point so far, modulo 2^64
    SeriesPoint point_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size_); }

 private:
  static std::array<std::uint64_t, kFields> fields(const SeriesPoint& p) {
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    return {u(p.time_us), u(p.arrived_gpu_milli), u(p.allocated_gpu_milli), u(p.gpus_in_use), u(p.running_pods), u(p.pending_pods)};
  }
  // Differences are taken modulo 2^64 (above), so that any two values round-trip.
  static std::uint64_t zigzag(std::int64_t value) {
    const auto u = static_cast<std::uint64_t>(value);
    return (u << 1) ^ (value < 0 ? ~std::uint64_t{0} : 0);
  }
  static std::int64_t unzigzag(std::uint64_t raw) {
    return static_cast<std::int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
  }
  static std::uint8_t* put(std::uint8_t* out, std::uint64_t value) {
    while (value >= 0x80) {
      *out++ = static_cast<std::uint8_t>(value | 0x80);
      value >>= 7;
    }
    *out++ = static_cast<std::uint8_t>(value);
    return out;
  }

  std::vector<std::vector<std::uint8_t>> chunks_;
  std::vector<std::size_t> ends_;  // bytes used in each chunk
  std::size_t used_ = 0;
  std::size_t size_ = 0;
  std::array<std::uint64_t, kFields> last_{};
};

}  // namespace gpusim::experiment
