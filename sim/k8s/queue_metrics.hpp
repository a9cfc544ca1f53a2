#pragma once
// The per-queue metrics the queueing policies record (sim/k8s/queue_series.hpp) and `gpusim export
// openmetrics` writes: Kueue's own (kubernetes-sigs/kueue v0.19.2 pkg/metrics/metrics.go, with
// metrics.enableClusterQueueResources for the quota and usage gauges), KAI's own
// (kai-scheduler/KAI-Scheduler pkg/scheduler/metrics and pkg/queuecontroller/metrics, namespace
// kai), and gpusim's for what neither exports: borrowed and lent GPUs, why workloads wait, and time
// starved. Amounts are in Kueue's units for Kueue's (GPUs for nvidia.com/gpu, cores for cpu) and in
// KAI's for KAI's.
#include <optional>
#include <string_view>

namespace gpusim::k8s {

struct QueueMetric {
  std::string_view name;  // as written in samples (counters end in _total)
  bool counter;
  std::string_view help;
};

inline constexpr QueueMetric kQueueMetrics[] = {
    // Kueue.
    {"kueue_pending_workloads", false, "The number of pending workloads, per 'cluster_queue' and 'status' (active, inadmissible)."},
    {"kueue_reserving_active_workloads", false, "The number of Workloads that are reserving quota, per 'cluster_queue'."},
    {"kueue_admitted_workloads_total", true, "The total number of admitted workloads per 'cluster_queue'."},
    {"kueue_preempted_workloads_total", true,
     "The number of preempted workloads per 'preempting_cluster_queue' and 'reason' (InClusterQueue, InCohortReclamation, "
     "InCohortFairSharing, InCohortReclaimWhileBorrowing)."},
    {"kueue_evicted_workloads_total", true, "The number of evicted workloads per 'cluster_queue' and 'reason'."},
    {"kueue_cluster_queue_nominal_quota", false, "Reports the cluster_queue's resource nominal quota within all the flavors."},
    {"kueue_cluster_queue_resource_usage", false, "Reports the cluster_queue's total resource usage within all the flavors."},
    {"kueue_cluster_queue_weighted_share", false,
     "Reports the cluster_queue's weighted share: the dominant resource share over its cohort's lendable quota, in thousandths, "
     "divided by its weight (fair sharing)."},
    {"kueue_cohort_weighted_share", false, "Reports the cohort's weighted share (fair sharing)."},
    // KAI.
    {"kai_queue_fair_share_gpu", false, "Queue fair share of GPU devices (the proportion plugin's division)."},
    {"kai_queue_fair_share_cpu_cores", false, "Queue fair share of CPU cores."},
    {"kai_queue_fair_share_memory_gb", false, "Queue fair share of memory, in GB."},
    {"kai_queue_deserved_gpus", false, "Queue deserved GPUs: its spec.resources.gpu.quota."},
    {"kai_queue_allocated_gpus", false, "GPUs allocated to the queue's running pods."},
    {"kai_queue_allocated_cpu_cores", false, "CPU cores allocated to the queue's running pods."},
    {"kai_queue_allocated_memory_bytes", false, "Memory allocated to the queue's running pods, in bytes."},
    // gpusim's own, for both.
    {"gpusim_queue_deserved_gpus", false, "GPUs the queue deserves: Kueue's nominal quota, KAI's quota (-1: unlimited)."},
    {"gpusim_queue_fair_share_gpus", false, "GPUs the queue's fair share is (KAI's division; Kueue has no such figure, and no series)."},
    {"gpusim_queue_allocated_gpus", false, "GPUs held by the queue (Kueue: quota reserved by admitted workloads; KAI: allocated to running pods)."},
    {"gpusim_queue_borrowed_gpus", false, "GPUs the queue holds beyond what it deserves."},
    {"gpusim_queue_lent_gpus", false,
     "GPUs of the queue's unused deserved quota that other queues of its tree hold: the tree's borrowed GPUs, split among the "
     "queues with unused quota in proportion to it."},
    {"gpusim_queue_pending_workloads", false, "Workloads waiting, per 'queue' and 'reason': quota, flavor or fit."},
    {"gpusim_queue_starved", false, "1 while the queue has workloads waiting and holds less than it deserves (KAI: its fair share), else 0."},
    {"gpusim_queue_starved_seconds_total", true, "Seconds the queue has been starved."},
    {"gpusim_queue_preemptions_total", true, "Workloads the queue lost, per 'queue' and 'reason' (Kueue's reasons; KAI's reclaim and preempt)."},
};

inline std::optional<QueueMetric> queue_metric(std::string_view name) {
  for (const QueueMetric& m : kQueueMetrics) {
    if (m.name == name) return m;
  }
  return std::nullopt;
}

}  // namespace gpusim::k8s
