#include "sim/core/event_queue.hpp"

#include <algorithm>

#include "sim/core/check.hpp"

namespace gpusim::core {
namespace {
// std heap functions build a max-heap; invert the order to keep the earliest on top. A function
// object, not a function: passed as a pointer the comparison is an indirect call per step (a
// quarter of the queue's cost in a replay with many timers).
struct Later {
  bool operator()(const Event& a, const Event& b) const { return fires_before(b, a); }
};
constexpr Later later;
}  // namespace

EventId EventQueue::push(Time time, Phase phase, std::uint32_t kind, std::uint64_t payload) {
  const EventId id = next_seq_++;
  if (id / 64 >= done_.size()) done_.push_back(0);
  heap_.push_back(Event{time, phase, id, kind, payload});
  std::push_heap(heap_.begin(), heap_.end(), later);
  return id;
}

bool EventQueue::cancel(EventId id) {
  if (id >= next_seq_ || is_done(id)) return false;
  mark_done(id);
  ++cancelled_in_heap_;
  return true;
}

void EventQueue::drop_cancelled_top() {
  while (!heap_.empty() && cancelled_in_heap_ > 0 && is_done(heap_.front().seq)) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
    --cancelled_in_heap_;
  }
}

bool EventQueue::empty() {
  drop_cancelled_top();
  return heap_.empty();
}

const Event& EventQueue::peek() {
  drop_cancelled_top();
  GPUSIM_CHECK(!heap_.empty(), "peek on an empty event queue");
  return heap_.front();
}

Event EventQueue::pop() {
  drop_cancelled_top();
  GPUSIM_CHECK(!heap_.empty(), "pop on an empty event queue");
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Event event = heap_.back();
  heap_.pop_back();
  mark_done(event.seq);
  return event;
}

}  // namespace gpusim::core
