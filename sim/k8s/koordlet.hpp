#pragma once
// Koordinator's node agent (koordlet), GPU part: on every GPU node where the shared-GPU speed
// model runs, it reports every `reportInterval` (default 60 s) a NodeMetric with the node's GPU
// busy share and memory in use, each the average over the last `aggregateDuration` (300 s), and
// the same for every pod whose containers run there (koordlet's states_nodemetric.go: nodeUsage
// and podsMetric are averages over the aggregate window; the first report comes one interval
// after the start). A lost or removed node reports nothing, so its last report grows stale.
// The load-aware plugin reads the reports (cluster/node_metrics.hpp), never the kubelets' truth.
//
// Averages come from the kubelets' cumulative counters sampled at each report: exact when
// aggregateDuration is a multiple of reportInterval, else over the samples' span that covers
// it. While no pod holds devices on any measured node and the last aggregateDuration saw none,
// every report would show 0: the agent stops its timer (a run must end) and the store stamps
// the reports it would have made (NodeMetrics::update_time); a binding or a node event wakes it.
#include <cstdint>
#include <vector>

#include "sim/cluster/node_metrics.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/kubelet.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

class Koordlet final : public Component {
 public:
  Koordlet(Bus& bus, const ApiServer& api, const KubeletFleet& kubelets, const KubeSettings& settings,
           cluster::NodeMetrics& out, const std::vector<std::uint8_t>& present);
  // Subscribe to kPodBound and the node events (kNodeJoined, kNodeLost, kNodeRecovered, kNodeRemoved).
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

  std::int64_t reports() const { return reports_; }

 private:
  struct Sample {
    core::Time at;
    KubeletFleet::UsageCounters counters;
  };
  // Samples of one node's (or pod's) cumulative counters, oldest first: those inside the window
  // and the last one before it.
  struct Window {
    std::vector<Sample> samples;
    core::Time pod_started = core::Time::zero();  // a pod's: its run's start (its counters' zero)
  };
  void report(core::Time now);
  // The average over the window ending now, after adding the sample `now`.
  KubeletFleet::UsageCounters average(Window& window, const Sample& now_sample) const;
  void wake(core::Time now);
  static std::int64_t milli(double gpus) { return static_cast<std::int64_t>(gpus * 1000 + 0.5); }

  Bus& bus_;
  const ApiServer& api_;
  const KubeletFleet& kubelets_;
  core::Time interval_;
  core::Time window_;
  cluster::NodeMetrics& out_;
  std::vector<std::uint32_t> measured_nodes_;
  std::vector<Window> node_windows_;  // per node
  std::vector<Window> pod_windows_;   // per pod object
  std::vector<std::uint8_t> joined_;  // per node: it has been part of the cluster
  bool ticking_ = false;
  bool all_zero_ = true;  // the last report showed no use on any node
  core::Time last_busy_ = core::Time::zero();  // the last report that saw a pod on a measured node
  std::int64_t reports_ = 0;
  std::vector<PodId> active_pods_;  // the pods the last report measured, ascending
  std::vector<PodId> seen_;         // scratch: the pods of the report being made
};

}  // namespace gpusim::k8s
