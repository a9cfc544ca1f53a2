#pragma once
// What one simulation run is asked to do.
#include <cstdint>
#include <string>

#include "sim/core/run_progress.hpp"

namespace gpusim::experiment {

enum class Mode : std::uint8_t {
  // The FGD paper's experiment: shuffled arrivals, no departures, unplaceable pods dropped,
  // until the GPU requests that arrived reach `fill_target` x cluster GPU capacity.
  kFill,
  // Timed arrivals and departures from the trace, a pending queue with retries.
  kReplay,
};

const char* to_string(Mode mode);

// Fill mode: the order in which the pod list arrives.
enum class FillOrder : std::uint8_t {
  // The FGD artifact's: shuffled with the seed, then trimmed or topped up with random copies
  // until the GPU requests reach the target (the paper's means).
  kShuffled,
  // The file's order, no copies: the longest prefix whose GPU requests stay within the target
  // (the whole list if it never reaches it). For pod-by-pod comparisons with another tool.
  kAsListed,
  // Sorted by the trace's creation time, then name; otherwise as kAsListed.
  kCreationTime,
};

const char* to_string(FillOrder order);

struct RunConfig {
  Mode mode = Mode::kFill;
  std::uint64_t seed = 42;
  double fill_target = 1.3;       // fill: arrived GPU requests / cluster GPU capacity
  FillOrder order = FillOrder::kShuffled;  // fill: arrival order
  double time_compression = 1.0;  // replay: arrival times are divided by this (> 1 raises load)
  bool record_pods = true;        // keep per-pod records (CSV output)
  bool record_series = true;      // keep the time series (CSV output)
  // replay: sample the FGD fragmentation of the cluster every this many simulated seconds
  // (0: not sampled); results/README.md defines the metrics.
  std::int64_t fragmentation_every_s = 0;
  // Where the run posts how far it got, for progress on stderr (null: nowhere). It changes
  // nothing the run computes or writes.
  core::RunProgress* progress = nullptr;
};

}  // namespace gpusim::experiment
