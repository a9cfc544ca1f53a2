#pragma once
// Event queue ordered by (time, phase, insertion sequence). Cancellation is lazy: a cancelled
// event is marked and skipped when it reaches the front.
//
// Two stores: a run of events pushed in firing order (each no earlier than the one pushed into the
// run before it) and a 4-ary heap for the rest. A trace's arrivals, set up front in time order,
// stay in the run, so the heap holds only what is in flight and stays small (Philly: 82,755
// arrivals would otherwise sit in it). Pops take the earlier of the two fronts, so the order is
// the same as one heap's.
// push/pop/cancel are O(log n) (O(1) into the run), O(log n), O(1); no allocation once both have
// grown to their working size, except one word of marks per 64 events pushed (125 KB per million).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event.hpp"

namespace gpusim::core {

class EventQueue {
 public:
  // Returns the id that `cancel` accepts.
  EventId push(Time time, Phase phase, std::uint32_t kind, std::uint64_t payload);
  // Takes `count` ids in a block, as `count` pushes would now, for events pushed later with
  // push_reserved: a process drawn up front but fed to the queue one event at a time keeps the
  // place among ties that pushing it all up front would give it, and the queue stays small.
  EventId reserve_ids(std::uint64_t count);
  // Pushes an event under an id from reserve_ids. Precondition: the id is pushed once.
  void push_reserved(EventId id, Time time, Phase phase, std::uint32_t kind, std::uint64_t payload);
  // Marks an event so it is never popped. Returns false if the id is unknown or already
  // popped or cancelled.
  bool cancel(EventId id);
  // True when no live (uncancelled) event is left.
  bool empty();
  // Removes and returns the earliest live event. Precondition: !empty().
  Event pop();
  // The earliest live event without removing it. Precondition: !empty().
  const Event& peek();
  std::size_t live_size() const { return heap_.size() + (run_.size() - run_front_) - cancelled_stored_; }
  // Room for n events in the run, where events set up front in time order (a trace's arrivals) go;
  // the heap grows to what is in flight.
  void reserve(std::size_t n) { run_.reserve(n); }

 private:
  void drop_cancelled_fronts();
  bool run_first() const;  // whether the run's front fires before the heap's (both live)
  void store(const Event& event);
  void heap_push(const Event& event);
  Event heap_pop();  // precondition: the heap is not empty
  bool is_done(EventId id) const { return ((done_[id / 64] >> (id % 64)) & 1U) != 0; }
  void mark_done(EventId id) { done_[id / 64] |= std::uint64_t{1} << (id % 64); }

  std::vector<Event> heap_;
  std::vector<Event> run_;     // in firing order from run_front_
  std::size_t run_front_ = 0;
  // A bit per event ever pushed, set once it is popped or cancelled: an event stored whose
  // bit is set was cancelled. (Sharing moves finish events on every co-runner change, so
  // cancellation is common and must not scan the heap.)
  std::vector<std::uint64_t> done_;
  std::size_t cancelled_stored_ = 0;  // cancelled events still in the heap or the run
  EventId next_seq_ = 0;
};

}  // namespace gpusim::core
