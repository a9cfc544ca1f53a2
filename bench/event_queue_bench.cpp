// Event-queue throughput: a steady state of N pending events, each pop followed by a push, as
// in a long replay.
#include <benchmark/benchmark.h>

#include "sim/core/event_queue.hpp"
#include "sim/core/rng.hpp"

namespace {

using namespace gpusim::core;

void BM_EventQueueHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  EventQueue queue;
  queue.reserve(pending + 1);
  Rng rng(1);
  for (std::size_t i = 0; i < pending; ++i) {
    queue.push(Time::from_micros(static_cast<std::int64_t>(rng.uniform_below(1'000'000))), Phase::kArrival, 0, i);
  }
  for (auto _ : state) {
    const Event e = queue.pop();
    queue.push(e.time + Time::from_micros(1 + static_cast<std::int64_t>(rng.uniform_below(1'000'000))),
               Phase::kArrival, 0, e.payload);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->Arg(1 << 10)->Arg(1 << 14)->Arg(1 << 18);

}  // namespace
