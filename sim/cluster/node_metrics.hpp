#pragma once
// Koordinator's NodeMetric objects (slo.koordinator.sh/v1alpha1), GPU part, as the scheduler's
// lister sees them: per node, what its node agent last reported (sim/k8s/koordlet.hpp writes
// them) and when. The load-aware plugin (policies/score/load_aware.cpp) reads them, stale as they
// are between reports.
//
// Units are thousandths of one GPU: `gpu_core_milli` is the GPUs' busy share (the speed model's
// utilisation, Koordinator's koordinator.sh/gpu-core summed over the node's GPUs, per mille
// instead of percent) and `gpu_memory_milli` their memory in use (koordinator.sh/gpu-memory-ratio
// likewise), each averaged over the report's aggregate window; a node's capacity is 1000 per
// physical GPU.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/core/time.hpp"

namespace gpusim::cluster {

struct PodUsage {
  std::uint32_t row = 0;  // trace row (a pod object's source)
  std::int64_t gpu_core_milli = 0;
  std::int64_t gpu_memory_milli = 0;
};

struct NodeMetric {
  bool reported = false;  // no report yet: the node has no NodeMetric
  core::Time update_time = core::Time::zero();
  core::Time report_interval = core::Time::zero();  // spec.metricCollectPolicy.reportIntervalSeconds
  std::int64_t capacity_milli = 0;                  // 1000 per physical GPU
  std::int64_t gpu_core_milli = 0;
  std::int64_t gpu_memory_milli = 0;
  std::vector<PodUsage> pods;  // the pods it measured, by row ascending
  // Its agent is idle and reports the same every interval (NodeMetrics::update_time).
  bool idle_reports = false;

  // The usage of the pod of trace row `row`, or null when the report does not list it.
  const PodUsage* pod(std::uint32_t row) const {
    const auto it = std::lower_bound(pods.begin(), pods.end(), row, [](const PodUsage& p, std::uint32_t r) { return p.row < r; });
    return it != pods.end() && it->row == row ? &*it : nullptr;
  }
};

class NodeMetrics {
 public:
  NodeMetrics(std::size_t nodes, std::function<core::Time()> clock) : metrics_(nodes), clock_(std::move(clock)) {}
  const NodeMetric& of(std::size_t node) const { return metrics_[node]; }
  NodeMetric& write(std::size_t node) { return metrics_[node]; }
  std::size_t size() const { return metrics_.size(); }
  // The simulated time now (the plugins judge a report's age by it).
  core::Time now() const { return clock_(); }
  // When the node's last report was made. An idle agent's reports (the same zeros each time) are
  // not made one by one: the last would be at the last multiple of the interval before now.
  core::Time update_time(std::size_t node) const {
    const NodeMetric& m = metrics_[node];
    if (!m.idle_reports || !(m.report_interval > core::Time::zero())) return m.update_time;
    const std::int64_t step = m.report_interval.micros();
    const std::int64_t last = (clock_().micros() - 1) / step * step;
    return std::max(m.update_time, core::Time::from_micros(last));
  }

 private:
  std::vector<NodeMetric> metrics_;
  std::function<core::Time()> clock_;
};

}  // namespace gpusim::cluster
