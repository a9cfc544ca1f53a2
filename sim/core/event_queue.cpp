#include "sim/core/event_queue.hpp"

#include <algorithm>

#include "sim/core/check.hpp"

namespace gpusim::core {
namespace {
// The heap is 4-ary: half the levels of a binary heap, and a node's 4 children are 160 adjacent
// bytes, so a pop from a heap of 80,000 GPU-failure timers touches 9 levels, not 17. The order
// popped is the same for any heap, (time, phase, seq) being total.
constexpr std::size_t kArity = 4;
}  // namespace

void EventQueue::heap_push(const Event& event) {
  std::size_t hole = heap_.size();
  heap_.push_back(event);
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!fires_before(event, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = event;
}

Event EventQueue::heap_pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t size = heap_.size();
  if (size == 0) return top;
  std::size_t hole = 0;
  while (true) {
    const std::size_t first_child = hole * kArity + 1;
    if (first_child >= size) break;
    const std::size_t end = std::min(first_child + kArity, size);
    std::size_t earliest = first_child;
    for (std::size_t c = first_child + 1; c < end; ++c) {
      if (fires_before(heap_[c], heap_[earliest])) earliest = c;
    }
    if (!fires_before(heap_[earliest], last)) break;
    heap_[hole] = heap_[earliest];
    hole = earliest;
  }
  heap_[hole] = last;
  return top;
}

EventId EventQueue::push(Time time, Phase phase, std::uint32_t kind, std::uint64_t payload) {
  const EventId id = next_seq_++;
  if (id / 64 >= done_.size()) done_.push_back(0);
  store({time, phase, id, kind, payload});
  return id;
}

EventId EventQueue::reserve_ids(std::uint64_t count) {
  const EventId first = next_seq_;
  next_seq_ += count;
  done_.resize((next_seq_ + 63) / 64, 0);
  return first;
}

void EventQueue::push_reserved(EventId id, Time time, Phase phase, std::uint32_t kind, std::uint64_t payload) {
  GPUSIM_CHECK(id < next_seq_ && !is_done(id), "push_reserved with an id not reserved, or already popped");
  store({time, phase, id, kind, payload});
}

void EventQueue::store(const Event& event) {
  if (run_front_ == run_.size()) {
    run_.clear();
    run_front_ = 0;
  }
  if (run_.empty() || !fires_before(event, run_.back())) {
    run_.push_back(event);
    return;
  }
  heap_push(event);
}

bool EventQueue::cancel(EventId id) {
  if (id >= next_seq_ || is_done(id)) return false;
  mark_done(id);
  ++cancelled_stored_;
  return true;
}

void EventQueue::drop_cancelled_fronts() {
  while (cancelled_stored_ > 0 && !heap_.empty() && is_done(heap_.front().seq)) {
    heap_pop();
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
    event = heap_pop();
  }
  mark_done(event.seq);
  return event;
}

}  // namespace gpusim::core
