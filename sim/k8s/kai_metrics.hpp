#pragma once
// KAI's metrics as a run's queue series (sim/k8s/queue_series.hpp), under KAI's own names and labels
// (kai-scheduler/KAI-Scheduler: the scheduler's kai_queue_fair_share_* for every queue, parents
// included, and the queue controller's kai_queue_deserved_gpus and kai_queue_allocated_*; labels
// queue_name, queue_metadata_name, queue_display_name), and gpusim's per-queue standings
// (sim/k8s/queue_standings.hpp) for the leaf queues, where jobs run.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/k8s/kai_queues.hpp"
#include "sim/k8s/queue_series.hpp"
#include "sim/k8s/queue_standings.hpp"

namespace gpusim::k8s::kai {

// Per queue: GPUs (devices), CPU (millicores), memory (megabytes), as KAI's Queues count them.
using Amounts = std::array<double, 3>;

struct QueueNow {
  Amounts fair_share{};
  Amounts allocated{};
  std::int64_t waiting_quota = 0;  // jobs a limit or quota holds back (OverLimit, NonPreemptibleOverQuota)
  std::int64_t waiting_fit = 0;    // jobs within their queue's capacity that no node fits yet
};

class KaiMetrics {
 public:
  KaiMetrics(QueueSeries& series, const std::vector<Queue>& queues, std::vector<std::uint32_t> leaves);

  // Every queue's state now (per Queue, in the Queues' order).
  void update(core::Time now, const std::vector<QueueNow>& queues);
  // A job of a leaf queue was evicted by `action` (reclaim, preempt).
  void evicted(core::Time now, std::uint32_t leaf, const char* action);
  double starved_seconds(core::Time now) const;

 private:
  struct Ids {
    std::uint32_t fair_gpu, fair_cpu, fair_memory, deserved, allocated_gpu, allocated_cpu, allocated_memory;
  };
  QueueSeries& series_;
  const std::vector<Queue>& queues_;
  std::vector<std::uint32_t> leaves_;
  std::vector<std::size_t> standing_of_;  // per Queue: its index among the leaves, or SIZE_MAX
  std::vector<Ids> ids_;
  QueueStandings standings_;
};

}  // namespace gpusim::k8s::kai
