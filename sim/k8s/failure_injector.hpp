#pragma once
// Cluster events: nodes joining, leaving, lost and recovered, GPU failures and device-plugin
// restarts: those listed in the settings (and Node objects' join and leave times), and a
// seeded process in which every GPU fails after an exponential time with its model's mean and is
// repaired a fixed time later. Everything is published up front as timed messages to the
// kubelets; the process stops drawing at the horizon, the time the last pod would end if it
// started on arrival.
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

  std::int64_t gpu_failures() const { return failures_; }

 private:
  void inject(Bus& bus, const GpuFailure& failure);
  std::int64_t failures_ = 0;
};

}  // namespace gpusim::k8s
