#include <gtest/gtest.h>

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
