#pragma once
// How far one run has got, posted by the run's thread and read by a progress reporter on another
// thread (sim/io/progress_reporter.hpp). The run writes with relaxed stores every few thousand
// events: a reader needs a recent value, not an ordering, so posting costs a plain store. One
// cache line each, so that runs on different threads never write to a shared line.
#include <atomic>
#include <cstdint>

namespace gpusim::core {

struct alignas(64) RunProgress {
  enum State : std::uint8_t { kWaiting, kRunning, kDone };

  std::atomic<std::uint8_t> state{kWaiting};
  // The simulated time the run has reached, in microseconds.
  std::atomic<std::int64_t> simulated_us{0};
  // Where the run is expected to end in simulated time (replay: its trace's last pod end if every
  // pod started on arrival; fill: its last arrival), in microseconds; 0 while unknown. A replay
  // whose queue outlasts the trace goes past it.
  std::atomic<std::int64_t> span_us{0};
  // When the run started and ended, in nanoseconds of std::chrono::steady_clock (0: not yet), so
  // that a reporter can tell how fast runs go.
  std::atomic<std::int64_t> started_ns{0};
  std::atomic<std::int64_t> finished_ns{0};
};

}  // namespace gpusim::core
