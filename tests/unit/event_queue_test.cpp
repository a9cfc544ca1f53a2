#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/core/check.hpp"
#include "sim/core/simulation.hpp"

namespace gpusim::core {
namespace {

TEST(EventQueue, OrdersByTimeThenPhaseThenInsertion) {
  EventQueue queue;
  queue.push(Time::from_seconds(5), Phase::kArrival, 1, 0);
  queue.push(Time::from_seconds(1), Phase::kSchedule, 2, 0);
  queue.push(Time::from_seconds(1), Phase::kStateChange, 3, 0);
  queue.push(Time::from_seconds(1), Phase::kSchedule, 4, 0);  // same key as kind 2, inserted later
  queue.push(Time::from_seconds(0), Phase::kEndOfRun, 5, 0);
  std::vector<std::uint32_t> kinds;
  while (!queue.empty()) kinds.push_back(queue.pop().kind);
  EXPECT_EQ(kinds, (std::vector<std::uint32_t>{5, 3, 2, 4, 1}));
}

TEST(EventQueue, CancelledEventsAreSkipped) {
  EventQueue queue;
  const EventId a = queue.push(Time::from_seconds(1), Phase::kArrival, 1, 0);
  const EventId b = queue.push(Time::from_seconds(2), Phase::kArrival, 2, 0);
  queue.push(Time::from_seconds(3), Phase::kArrival, 3, 0);
  EXPECT_TRUE(queue.cancel(b));
  EXPECT_FALSE(queue.cancel(b)) << "cancelling twice";
  EXPECT_EQ(queue.live_size(), 2U);
  EXPECT_EQ(queue.pop().kind, 1U);
  EXPECT_FALSE(queue.cancel(a)) << "already popped";
  EXPECT_EQ(queue.pop().kind, 3U);
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.cancel(999)) << "unknown id";
}

TEST(EventQueue, CancellingTheOnlyEventEmptiesTheQueue) {
  EventQueue queue;
  const EventId id = queue.push(Time::from_seconds(1), Phase::kArrival, 1, 0);
  EXPECT_TRUE(queue.cancel(id));
  EXPECT_TRUE(queue.empty());
  EXPECT_THROW(queue.pop(), InvariantViolation);
}

// Events pushed in firing order go to the queue's run, the others to its heap (sim/core/
// event_queue.hpp); pops must come out exactly as from one sorted list, with cancellations in both.
TEST(EventQueue, TwoStoresMatchOneHeapPopForPop) {
  EventQueue queue;
  std::vector<Event> reference;
  std::uint64_t state = 99;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  std::int64_t now = 0;
  std::vector<EventId> live;
  for (int step = 0; step < 20'000; ++step) {
    const std::uint64_t what = next() % 10;
    if (what < 5) {
      // Mostly in order (into the run), sometimes earlier than the last (into the heap).
      const std::int64_t at = now + static_cast<std::int64_t>(next() % (what == 0 ? 50 : 5000));
      const Phase phase = (next() % 3) == 0 ? Phase::kSchedule : Phase::kArrival;
      const auto kind = static_cast<std::uint32_t>(step);
      const EventId id = queue.push(Time::from_micros(at), phase, kind, 0);
      reference.push_back(Event{Time::from_micros(at), phase, id, kind, 0});
      live.push_back(id);
    } else if (what < 6 && !live.empty()) {
      const std::size_t pick = next() % live.size();
      ASSERT_TRUE(queue.cancel(live[pick]));
      std::erase_if(reference, [&](const Event& e) { return e.seq == live[pick]; });
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick));
    } else if (!reference.empty()) {
      const auto first = std::min_element(reference.begin(), reference.end(),
                                          [](const Event& a, const Event& b) { return fires_before(a, b); });
      ASSERT_FALSE(queue.empty());
      ASSERT_EQ(queue.peek().seq, first->seq);
      const Event event = queue.pop();
      ASSERT_EQ(event.seq, first->seq) << "step " << step;
      now = event.time.micros();
      std::erase(live, event.seq);
      reference.erase(first);
    }
    ASSERT_EQ(queue.live_size(), reference.size());
  }
}

// An event pushed later under a reserved id pops where it would have if pushed when the id was
// reserved: before the events pushed after the reservation, at equal time and phase.
TEST(EventQueue, ReservedIdsKeepTheirPlaceAmongTies) {
  EventQueue queue;
  queue.push(Time::from_seconds(5), Phase::kStateChange, 1, 0);
  const EventId reserved = queue.reserve_ids(2);
  queue.push(Time::from_seconds(5), Phase::kStateChange, 2, 0);
  queue.push(Time::from_seconds(4), Phase::kStateChange, 0, 0);
  queue.push_reserved(reserved + 1, Time::from_seconds(5), Phase::kStateChange, 4, 0);
  EXPECT_EQ(queue.pop().kind, 0U);
  queue.push_reserved(reserved, Time::from_seconds(5), Phase::kStateChange, 3, 0);
  std::vector<std::uint32_t> kinds;
  while (!queue.empty()) kinds.push_back(queue.pop().kind);
  EXPECT_EQ(kinds, (std::vector<std::uint32_t>{1, 3, 4, 2}));
  EXPECT_THROW(queue.push_reserved(reserved, Time::from_seconds(6), Phase::kStateChange, 3, 0), InvariantViolation)
      << "an id already popped";
  EXPECT_THROW(queue.push_reserved(reserved + 99, Time::from_seconds(6), Phase::kStateChange, 3, 0), InvariantViolation)
      << "an id never reserved";
}

// Mostly out of order (the 4-ary heap), with reserved ids pushed later: pops as from one sorted list.
TEST(EventQueue, HeapWithReservedIdsMatchesSortedOrder) {
  EventQueue queue;
  std::vector<Event> reference;
  std::vector<EventId> waiting;  // reserved, not yet pushed
  std::uint64_t state = 7;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  std::int64_t now = 0;
  for (int step = 0; step < 30'000; ++step) {
    const std::uint64_t what = next() % 12;
    const std::int64_t at = now + static_cast<std::int64_t>(next() % 64);  // many ties
    const auto kind = static_cast<std::uint32_t>(step);
    if (what < 4) {
      const EventId id = queue.push(Time::from_micros(at), Phase::kStateChange, kind, 0);
      reference.push_back(Event{Time::from_micros(at), Phase::kStateChange, id, kind, 0});
    } else if (what < 5) {
      const EventId first = queue.reserve_ids(3);
      for (EventId i = 0; i < 3; ++i) waiting.push_back(first + i);
    } else if (what < 8 && !waiting.empty()) {
      const std::size_t pick = next() % waiting.size();
      const EventId id = waiting[pick];
      waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(pick));
      queue.push_reserved(id, Time::from_micros(at), Phase::kStateChange, kind, 0);
      reference.push_back(Event{Time::from_micros(at), Phase::kStateChange, id, kind, 0});
    } else if (!reference.empty()) {
      const auto first = std::min_element(reference.begin(), reference.end(),
                                          [](const Event& a, const Event& b) { return fires_before(a, b); });
      const Event event = queue.pop();
      ASSERT_EQ(event.seq, first->seq) << "step " << step;
      now = event.time.micros();
      reference.erase(first);
    }
    ASSERT_EQ(queue.live_size(), reference.size());
  }
}

class Recorder final : public EventHandler {
 public:
  explicit Recorder(Simulation& sim) : sim_(sim) {}
  void handle(const Event& event) override {
    seen.push_back(event.kind);
    times.push_back(sim_.now().micros());
    // An event may schedule more work, at the same instant in a later phase.
    if (event.kind == 1) sim_.schedule(event.time, Phase::kSchedule, 9);
  }
  std::vector<std::uint32_t> seen;
  std::vector<std::int64_t> times;

 private:
  Simulation& sim_;
};

TEST(Simulation, RunsInOrderAndAdvancesTheClock) {
  Simulation sim;
  sim.schedule(Time::from_seconds(2), Phase::kArrival, 2);
  sim.schedule(Time::from_seconds(1), Phase::kArrival, 1);
  Recorder recorder(sim);
  EXPECT_EQ(sim.run(recorder), 3U);
  EXPECT_EQ(recorder.seen, (std::vector<std::uint32_t>{1, 9, 2}));
  EXPECT_EQ(recorder.times, (std::vector<std::int64_t>{1'000'000, 1'000'000, 2'000'000}));
  EXPECT_EQ(sim.now(), Time::from_seconds(2));
}

TEST(Simulation, StopsAtTheHorizon) {
  Simulation sim;
  sim.schedule(Time::from_seconds(1), Phase::kArrival, 1);
  sim.schedule(Time::from_seconds(10), Phase::kArrival, 2);
  Recorder recorder(sim);
  sim.run(recorder, Time::from_seconds(5));
  EXPECT_EQ(recorder.seen, (std::vector<std::uint32_t>{1, 9}));
}

TEST(Simulation, RefusesToScheduleIntoThePast) {
  Simulation sim;
  sim.schedule(Time::from_seconds(3), Phase::kArrival, 1);
  Recorder recorder(sim);
  sim.run(recorder);
  EXPECT_THROW(sim.schedule(Time::from_seconds(2), Phase::kArrival, 1), InvariantViolation);
}

TEST(Simulation, CancelledEventNeverFires) {
  Simulation sim;
  const EventId id = sim.schedule(Time::from_seconds(1), Phase::kArrival, 7);
  sim.schedule(Time::from_seconds(2), Phase::kArrival, 2);
  EXPECT_TRUE(sim.cancel(id));
  Recorder recorder(sim);
  sim.run(recorder);
  EXPECT_EQ(recorder.seen, (std::vector<std::uint32_t>{2}));
}

}  // namespace
}  // namespace gpusim::core
