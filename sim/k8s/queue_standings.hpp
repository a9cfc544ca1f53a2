#pragma once
// gpusim's own per-queue series, the same for every queueing system (sim/k8s/queue_metrics.hpp,
// gpusim_queue_*): what a queue deserves, its fair share, what it holds, borrows and lends, its
// waiting workloads by reason, whether it is starved (workloads waiting while it holds less than it
// deserves, or for KAI less than its fair share) and for how long, and the workloads it lost to
// preemption by reason. A policy updates a queue when its standing may have changed; the time
// starved is integrated between updates.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/k8s/queue_series.hpp"

namespace gpusim::k8s {

struct QueueStanding {
  double deserved_gpus = 0;
  double fair_share_gpus = NAN;  // NaN: the system has no such figure (no series)
  double allocated_gpus = 0;
  double borrowed_gpus = 0;
  double lent_gpus = 0;
  std::int64_t waiting_quota = 0;   // for quota: its queue (or a limit) would not take it
  std::int64_t waiting_flavor = 0;  // for a flavor: none of its queue's flavors matches its pods (Kueue)
  std::int64_t waiting_fit = 0;     // admitted, or within quota, but no node fits it yet
  bool starved = false;
};

class QueueStandings {
 public:
  // `system` labels the series ("kueue", "kai"); `queues` are the queues' names.
  QueueStandings(QueueSeries& series, std::string system, std::vector<std::string> queues);

  void update(core::Time now, std::size_t queue, const QueueStanding& standing);
  // A workload of `queue` was preempted for `reason`.
  void preempted(core::Time now, std::size_t queue, const std::string& reason);
  double starved_seconds(std::size_t queue, core::Time now) const;
  std::size_t size() const { return queues_.size(); }

 private:
  struct Ids {
    std::uint32_t deserved, fair_share, allocated, borrowed, lent, quota, flavor, fit, starved, starved_seconds;
  };
  QueueSeries& series_;
  std::string system_;
  std::vector<std::string> queues_;
  std::vector<Ids> ids_;
  std::vector<std::uint8_t> has_fair_share_;
  std::vector<std::uint8_t> starved_;
  std::vector<std::int64_t> starved_us_;  // integral: sums stay exact
  std::vector<core::Time> since_;  // the last update
  std::map<std::pair<std::size_t, std::string>, std::pair<std::uint32_t, double>> preemptions_;
};

// Lent GPUs per queue of one tree: the tree's borrowed GPUs split among the queues with unused
// deserved GPUs in proportion to those (no more than each one's unused).
std::vector<double> lent_gpus(const std::vector<double>& deserved, const std::vector<double>& allocated);

}  // namespace gpusim::k8s
