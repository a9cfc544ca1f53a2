#pragma once
// What one simulation run is asked to do.
#include <cstdint>
#include <string>

namespace gpusim::experiment {

enum class Mode : std::uint8_t {
  // The FGD paper's experiment: shuffled arrivals, no departures, unplaceable pods dropped,
  // until the GPU requests that arrived reach `fill_target` x cluster GPU capacity.
  kFill,
  // Timed arrivals and departures from the trace, a pending queue with retries.
  kReplay,
};

const char* to_string(Mode mode);

struct RunConfig {
  Mode mode = Mode::kFill;
  std::uint64_t seed = 42;
  double fill_target = 1.3;       // fill: arrived GPU requests / cluster GPU capacity
  double time_compression = 1.0;  // replay: arrival times are divided by this (> 1 raises load)
  bool record_pods = true;        // keep per-pod records (CSV output)
  bool record_series = true;      // keep the time series (CSV output)
};

}  // namespace gpusim::experiment
