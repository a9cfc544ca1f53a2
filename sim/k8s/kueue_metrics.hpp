#pragma once
// Kueue's metrics as a run's queue series (sim/k8s/queue_series.hpp), under Kueue's own names and
// labels (kubernetes-sigs/kueue v0.19.2 pkg/metrics/metrics.go; every series with
// replica_role="standalone", a single Kueue replica; priority_class "": the trace's jobs name no
// WorkloadPriorityClass), and gpusim's per-queue standings (sim/k8s/queue_standings.hpp) for each
// ClusterQueue. Counters move when the engine admits or preempts; gauges are updated by update().
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/k8s/kueue_admission.hpp"
#include "sim/k8s/queue_series.hpp"
#include "sim/k8s/queue_standings.hpp"

namespace gpusim::k8s::kueue {

class KueueMetrics {
 public:
  KueueMetrics(QueueSeries& series, const Admission& engine);

  void admitted(core::Time now, WorkloadId id);
  void preempted(core::Time now, const Decisions::Preemption& p);
  // The gauges now; `waiting_fit` per tree node: admitted workloads of that ClusterQueue whose pods
  // wait for nodes.
  void update(core::Time now, const std::vector<std::int64_t>& waiting_fit);
  // Seconds starved, summed over the ClusterQueues, as of `now`.
  double starved_seconds(core::Time now) const;

 private:
  struct PerQueue {
    NodeId node;
    std::uint32_t active, inadmissible, reserving, admitted_total;
    std::int64_t admitted = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> quotas;  // (flavor-resource pair, nominal series), then usage series
    std::vector<std::uint32_t> usage;
    std::uint32_t weighted_share = 0;
  };
  QueueSeries& series_;
  const Admission& engine_;
  std::vector<PerQueue> queues_;
  std::vector<std::size_t> queue_of_node_;  // per tree node: its index in queues_ (ClusterQueues)
  std::vector<std::pair<NodeId, std::uint32_t>> cohort_shares_;
  std::map<std::pair<NodeId, PreemptionReason>, std::pair<std::uint32_t, double>> preempted_;  // preempting queue
  std::map<NodeId, std::pair<std::uint32_t, double>> evicted_;                                 // victim's queue
  std::vector<std::uint32_t> gpu_pairs_;  // the (flavor, nvidia.com/gpu) pairs
  QueueStandings standings_;
};

}  // namespace gpusim::k8s::kueue
