#pragma once
// Binary-heap event queue ordered by (time, phase, insertion sequence). Cancellation is lazy: a
// cancelled id is remembered and its event is skipped when it reaches the top.
// push/pop are O(log n); no allocation once the heap has grown to its working size.
#include <cstddef>
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
  bool is_cancelled(EventId id) const;

  std::vector<Event> heap_;
  // Sorted ids of cancelled events still in the heap. Cancellation is rare, so a sorted
  // vector beats a hash set and keeps iteration order irrelevant.
  std::vector<EventId> cancelled_;
  std::size_t cancelled_in_heap_ = 0;
  EventId next_seq_ = 0;
};

}  // namespace gpusim::core
