#pragma once
// Binary-heap event queue ordered by (time, phase, insertion sequence). Cancellation is lazy: a
// cancelled event is marked and skipped when it reaches the top.
// push/pop/cancel are O(log n), O(log n), O(1); no allocation once the heap has grown to its working
// size, except one word of marks per 64 events pushed (a bit per event: 125 KB per million).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event.hpp"

namespace gpusim::core {

class EventQueue {
 public:
  // Returns the id that `cancel` accepts.
  EventId push(Time time, Phase phase, std::uint32_t kind, std::uint64_t payload);
  // Marks an event so it is never popped. Returns false if the id is unknown or already
  // popped or cancelled.
  bool cancel(EventId id);
  // True when no live (uncancelled) event is left.
  bool empty();
  // Removes and returns the earliest live event. Precondition: !empty().
  Event pop();
  // The earliest live event without removing it. Precondition: !empty().
  const Event& peek();
  std::size_t live_size() const { return heap_.size() - cancelled_in_heap_; }
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  void drop_cancelled_top();
  bool is_done(EventId id) const { return ((done_[id / 64] >> (id % 64)) & 1U) != 0; }
  void mark_done(EventId id) { done_[id / 64] |= std::uint64_t{1} << (id % 64); }

  std::vector<Event> heap_;
  // A bit per event ever pushed, set once it is popped or cancelled: an event in the heap whose
  // bit is set was cancelled. (Sharing moves finish events on every co-runner change, so
  // cancellation is common and must not scan the heap.)
  std::vector<std::uint64_t> done_;
  std::size_t cancelled_in_heap_ = 0;
  EventId next_seq_ = 0;
};

}  // namespace gpusim::core
