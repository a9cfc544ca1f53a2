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
  const Event event{time, phase, id, kind, payload};
  if (run_front_ == run_.size()) {
    run_.clear();
    run_front_ = 0;
  }
  if (run_.empty() || !fires_before(event, run_.back())) {
    run_.push_back(event);
    return id;
  }
  heap_.push_back(event);
  std::push_heap(heap_.begin(), heap_.end(), later);
  return id;
}

bool EventQueue::cancel(EventId id) {
  if (id >= next_seq_ || is_done(id)) return false;
  mark_done(id);
  ++cancelled_stored_;
  return true;
}

void EventQueue::drop_cancelled_fronts() {
  while (cancelled_stored_ > 0 && !heap_.empty() && is_done(heap_.front().seq)) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
    --cancelled_stored_;
  }
  while (cancelled_stored_ > 0 && run_front_ < run_.size() && is_done(run_[run_front_].seq)) {
    ++run_front_;
    --cancelled_stored_;
  }
}

bool EventQueue::run_first() const {
  if (run_front_ == run_.size()) return false;
  return heap_.empty() || fires_before(run_[run_front_], heap_.front());
}

bool EventQueue::empty() {
  drop_cancelled_fronts();
  return heap_.empty() && run_front_ == run_.size();
}

const Event& EventQueue::peek() {
  GPUSIM_CHECK(!empty(), "peek on an empty event queue");
  return run_first() ? run_[run_front_] : heap_.front();
}

Event EventQueue::pop() {
  GPUSIM_CHECK(!empty(), "pop on an empty event queue");
  Event event;
  if (run_first()) {
    event = run_[run_front_++];
    // The consumed prefix goes once it is the larger part: amortised O(1), memory bounded by
    // twice what is stored.
    if (run_front_ >= 4096 && run_front_ * 2 >= run_.size()) {
      run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_front_));
      run_front_ = 0;
    }
  } else {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    event = heap_.back();
    heap_.pop_back();
  }
  mark_done(event.seq);
  return event;
}

}  // namespace gpusim::core
