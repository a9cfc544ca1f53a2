#pragma once
// An event is a plain value: when, in which phase of that instant, and what (a kind and a payload
// that only the owner of the simulation interprets). The core knows nothing of pods or nodes.
#include <cstdint>

#include "sim/core/time.hpp"

namespace gpusim::core {

// Order of events that share a timestamp. State changes settle before arrivals, so that the
// scheduling cycle at time t sees every completion and arrival of time t.
enum class Phase : std::uint8_t {
  kStateChange = 0,  // completions, failures, health changes
  kArrival = 1,      // new work enters the system
  kSchedule = 2,     // one scheduling cycle over everything pending
  kMetrics = 3,      // samples of the settled state
  kEndOfRun = 4,
};

// Handle to a scheduled event; the insertion sequence number, unique within one queue.
using EventId = std::uint64_t;

struct Event {
  Time time;
  Phase phase = Phase::kStateChange;
  EventId seq = 0;           // insertion order: the last tie-breaker
  std::uint32_t kind = 0;    // meaning defined by the simulation's owner
  std::uint64_t payload = 0; // e.g. an index into the owner's tables
};

// Strict weak order (time, phase, seq): total, because seq is unique.
constexpr bool fires_before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.phase != b.phase) return a.phase < b.phase;
  return a.seq < b.seq;
}

}  // namespace gpusim::core
