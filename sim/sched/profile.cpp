#include "sim/sched/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/sched/names.hpp"

namespace gpusim::sched {
bool is_plain_name(std::string_view name) {
  if (name.empty() || name.size() > 100 || !std::isalnum(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::vector<std::string> builtin_profile_names() {
  return {"kube-default", "binpack", "random", "dotprod", "gpu-clustering", "gpu-packing",
          "bestfit", "fgd", "topology-aware", "fifo", "sjf", "backfill", "srtf", "tiresias", "preemption", "drf",
          "gavel-maxmin", "gavel-ftf", "maxmin", "ftf", "themis", "gang", "proportion", "capacity", "kueue", "kai"};
}

std::string paper_name(const std::string& policy) {
  if (policy == "random") return "Random";
  if (policy == "dotprod") return "DotProd";
  if (policy == "gpu-clustering") return "GpuClustering";
  if (policy == "gpu-packing") return "GpuPacking";
  if (policy == "bestfit") return "BestFit";
  if (policy == "fgd") return "FGD";
  return "";
}

std::string policy_summary(const std::string& policy) {
  if (policy == "kube-default") return "kube-scheduler's default scores (least-allocated, balanced allocation)";
  if (policy == "binpack") return "most-allocated: fills nodes before opening new ones";
  if (policy == "topology-aware") return "bin packing with HAMi-style topology-aware GPU choice";
  if (policy == "fifo") return "strict first come, first served (head-of-line blocking); best fit";
  if (policy == "sjf") return "shortest job first by the trace's run time (oracle), non-preemptive; best fit";
  if (policy == "backfill") return "FIFO with EASY backfilling; best fit";
  if (policy == "srtf") return "shortest remaining time first (oracle), preemptive, restarts from checkpoints; best fit";
  if (policy == "tiresias") return "Tiresias' 2D-LAS: queues by attained GPU-time, preemptive; best fit";
  if (policy == "preemption") return "kube-scheduler's priority queue with DefaultPreemption; best fit";
  if (policy == "drf") return "dominant resource fairness across the workload's queues, FIFO within one; best fit";
  if (policy == "gavel-maxmin") return "Gavel's heterogeneity-aware max-min fairness (LP, CLP), rounds of time shares; best fit";
  if (policy == "gavel-ftf") return "Gavel's heterogeneity-aware finish-time fairness (LP, CLP), rounds of time shares; best fit";
  if (policy == "maxmin") return "max-min fairness blind to GPU speed (Gavel's LAS), rounds of time shares; best fit";
  if (policy == "ftf") return "finish-time fairness blind to GPU speed, rounds of time shares; best fit";
  if (policy == "themis") return "Themis-style finish-time fairness: leases offered to the jobs with the largest rho (approximated); best fit";
  if (policy == "proportion") return "Volcano-style queue quotas: deserved GPUs by weight, guarantee, capability, reclaim; best fit";
  if (policy == "capacity") return "Volcano-style queue quotas: deserved GPUs per queue (Volcano Queues in --config), borrowing, reclaim; best fit";
  if (policy == "kueue") return "Kueue: jobs admitted by their ClusterQueue's quota (Kueue's objects in --config), borrowing, preemption; best fit";
  if (policy == "kai") return "KAI Scheduler: queue fair shares (KAI's Queues in --config), over-quota by priority and weight, reclaim, preempt; best fit";
  if (policy == "gang") return "coscheduling: gangs wait at Permit, holding what they reserved, until whole (timeout); FIFO, skipping; best fit";
  return "";
}

std::optional<std::string> builtin_policy_name(const std::string& asked) {
  const std::string key = name_key(asked);
  if (key == "dotproduct") return "dotprod";  // the score plugin's name
  for (const auto& name : builtin_profile_names()) {
    if (name_key(name) == key) return name;
  }
  return std::nullopt;
}

}  // namespace gpusim::sched
