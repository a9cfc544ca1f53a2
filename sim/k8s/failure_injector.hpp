#pragma once
// Cluster events: nodes joining, leaving, lost and recovered, GPU failures and device-plugin
// restarts: those listed in the settings (and Node objects' join and leave times), and a
// seeded process in which every GPU fails after an exponential time with its model's mean and is
// repaired a fixed time later. The listed events are published up front as timed messages to the
// kubelets. The random process is drawn up front too (it stops at the horizon, the time the last
// pod would end if it started on arrival), but kept as 8 bytes a failure and fed to the queue
// one event per GPU at a time, each under the event id it would have had if published up front:
// the order among ties is that of publishing everything at once, while the queue holds one event
// per GPU, not every failure and repair of the run (80,000 GPUs over a month of simulated time
// with a 20 h mean: 6 M events).
#include <cstdint>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/k8s/workload_times.hpp"

namespace gpusim::k8s {

class FailureInjector final : public Component {
 public:
  FailureInjector(Bus& bus, const KubeSettings& settings, const cluster::GpuCatalog& catalog,
                  const std::vector<cluster::NodeSpec>& nodes,
                  const WorkloadTimes& times, const std::vector<cluster::PodSpec>& pods, std::uint64_t seed);
  void on_message(const Message&, core::Time) override {}
  void on_timer(std::uint32_t tag, std::uint64_t gpu, core::Time now) override;

  std::int64_t gpu_failures() const { return failures_; }

 private:
  void inject(Bus& bus, const GpuFailure& failure);
  // The random process's next event of failing GPU `gpu` (an index into failing_), if any:
  // failure k is event 2k, its repair 2k + 1.
  void set_next(std::uint32_t gpu);

  struct FailingGpu {
    std::uint32_t node = 0;
    int gpu = 0;
    std::uint32_t first = 0;   // its failures: failure_at_[first, end)
    std::uint32_t end = 0;
    std::uint32_t next = 0;    // its next event, 2 per failure
  };
  Bus& bus_;
  int xid_ = 0;
  core::Time repair_time_;
  std::vector<FailingGpu> failing_;   // in drawing order: node by node, GPU by GPU
  std::vector<core::Time> failure_at_;
  core::EventId first_id_ = 0;        // event 2k of failure_at_[k] has id first_id_ + 2k
  std::int64_t failures_ = 0;
};

}  // namespace gpusim::k8s
