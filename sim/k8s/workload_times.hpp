#pragma once
// When each trace pod arrives in the simulation and, for pods the trace never saw scheduled, when
// their owner deletes them: derived once from the trace and the time compression, read by the
// components that need it.
#include <cstdint>
#include <vector>

#include "sim/cluster/pod.hpp"
#include "sim/core/time.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

struct WorkloadTimes {
  std::vector<core::Time> arrival;
  // trace-Pending pods: arrival + (deletion - creation); waiting is not compressed, as run times
  // are not. Zero for the others.
  std::vector<core::Time> deadline;
};

// Throws core::InputError for a pod without creation time or duration, or with times out of range.
WorkloadTimes workload_times(const traces::Workload& workload, double time_compression);

// When the trace's last pod would end if every pod started on arrival (trace-Pending pods: at
// their deadline): where a replay is expected to end, and ends later when its queue outlasts it.
core::Time trace_end(const traces::Workload& workload, const WorkloadTimes& times);

// Simulated times stay below this, so that a time plus a duration never overflows int64.
inline constexpr double kMaxSimulatedMicros = 4e18;

}  // namespace gpusim::k8s
