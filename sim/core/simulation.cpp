#include "sim/core/simulation.hpp"

#include <fmt/format.h>

#include "sim/core/check.hpp"

namespace gpusim::core {

EventId Simulation::schedule(Time time, Phase phase, std::uint32_t kind, std::uint64_t payload) {
  GPUSIM_CHECK(time >= now_, fmt::format("event kind {} scheduled at {} us, before now ({} us)",
                                         kind, time.micros(), now_.micros()));
  return queue_.push(time, phase, kind, payload);
}

void Simulation::schedule_reserved(EventId id, Time time, Phase phase, std::uint32_t kind, std::uint64_t payload) {
  GPUSIM_CHECK(time >= now_, fmt::format("event kind {} scheduled at {} us, before now ({} us)",
                                         kind, time.micros(), now_.micros()));
  queue_.push_reserved(id, time, phase, kind, payload);
}

std::uint64_t Simulation::run(EventHandler& handler, std::optional<Time> until) {
  std::uint64_t count = 0;
  while (!queue_.empty()) {
    if (until && queue_.peek().time > *until) break;
    const Event event = queue_.pop();
    GPUSIM_CHECK(event.time >= now_,
                 fmt::format("time went back: event seq {} at {} us, now {} us", event.seq,
                             event.time.micros(), now_.micros()));
    now_ = event.time;
    handler.handle(event);
    if (++count % kProgressEvents == 0) post_progress();
  }
  post_progress();
  handled_ += count;
  return count;
}

}  // namespace gpusim::core
