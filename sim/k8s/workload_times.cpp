#include "sim/k8s/workload_times.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/status.hpp"

namespace gpusim::k8s {

WorkloadTimes workload_times(const traces::Workload& workload, double time_compression) {
  if (!(time_compression > 0)) throw core::InputError("time compression must be > 0");
  WorkloadTimes times;
  times.arrival.reserve(workload.pods.size());
  times.deadline.assign(workload.pods.size(), core::Time::zero());
  for (std::size_t i = 0; i < workload.pods.size(); ++i) {
    const cluster::PodSpec& pod = workload.pods[i];
    if (!pod.creation_time || !pod.duration) {
      throw core::InputError(fmt::format("{}: pod {} has no creation time or duration; replay needs both",
                                         workload.source, pod.name));
    }
    const double arrival_us = std::floor(static_cast<double>(pod.creation_time->micros()) / time_compression);
    if (!(arrival_us <= kMaxSimulatedMicros)) {
      throw core::InputError(fmt::format("{}: pod {}: creation_time / --time-compression {} is out of range",
                                         workload.source, pod.name, time_compression));
    }
    times.arrival.push_back(core::Time::from_micros(static_cast<std::int64_t>(arrival_us)));
    if (pod.phase == cluster::TracePhase::kPending) {
      times.deadline[i] = times.arrival[i] + (*pod.deletion_time - *pod.creation_time);
    }
  }
  return times;
}

core::Time trace_end(const traces::Workload& workload, const WorkloadTimes& times) {
  core::Time end = core::Time::zero();
  for (std::size_t i = 0; i < workload.pods.size(); ++i) {
    const cluster::PodSpec& pod = workload.pods[i];
    const core::Time pod_end =
        pod.phase == cluster::TracePhase::kPending ? times.deadline[i] : times.arrival[i] + *pod.duration;
    end = std::max(end, pod_end);
  }
  return end;
}

}  // namespace gpusim::k8s
