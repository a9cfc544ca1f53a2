#pragma once
// The run loop: pops events in (time, phase, seq) order, refuses to go back in time, and hands
// each event to one handler. It owns the clock and the queue and nothing else.
#include <cstdint>
#include <optional>

#include "sim/core/event_queue.hpp"
#include "sim/core/run_progress.hpp"

namespace gpusim::core {

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void handle(const Event& event) = 0;
};

class Simulation {
 public:
  Time now() const { return now_; }
  // Schedules an event at `time` >= now(). Scheduling into the past is an engine bug.
  EventId schedule(Time time, Phase phase, std::uint32_t kind, std::uint64_t payload = 0);
  // A block of ids for events scheduled later with schedule_reserved (EventQueue::reserve_ids).
  EventId reserve_ids(std::uint64_t count) { return queue_.reserve_ids(count); }
  void schedule_reserved(EventId id, Time time, Phase phase, std::uint32_t kind, std::uint64_t payload = 0);
  bool cancel(EventId id) { return queue_.cancel(id); }
  // Runs until the queue is empty, or until the next event is later than `until`.
  // Returns the number of events handled.
  std::uint64_t run(EventHandler& handler, std::optional<Time> until = std::nullopt);
  std::uint64_t events_handled() const { return handled_; }
  void reserve(std::size_t events) { queue_.reserve(events); }
  // Posts the simulated time to `progress` every kProgressEvents events and when run() returns
  // (null: nowhere). The loop pays a test of its event count per event, nothing more.
  void report_progress(RunProgress* progress) { progress_ = progress; }

  static constexpr std::uint64_t kProgressEvents = 4096;

 private:
  void post_progress() const {
    if (progress_ != nullptr) progress_->simulated_us.store(now_.micros(), std::memory_order_relaxed);
  }

  EventQueue queue_;
  Time now_ = Time::zero();
  std::uint64_t handled_ = 0;
  RunProgress* progress_ = nullptr;
};

}  // namespace gpusim::core
