#pragma once
// Watches the bus and the kubelets' truth like a monitoring stack: samples the cluster after every
// scheduling cycle and when GPUs are handed back, counts what happened, and at the end turns the
// API server's pod objects into the run's records and metrics (results/README.md defines them).
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/experiment/run_result.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/workload_times.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

class MetricsCollector final : public Component {
 public:
  MetricsCollector(const ApiServer& api, const cluster::ClusterState& truth, const traces::Workload& workload,
                   const WorkloadTimes& times, const experiment::RunConfig& config);
  void on_message(const Message& message, core::Time now) override;

  // The run's records, series and metrics.
  experiment::RunResult finish(std::string policy);

 private:
  void sample(core::Time now);

  const ApiServer& api_;
  const cluster::ClusterState& truth_;
  const traces::Workload& workload_;
  const WorkloadTimes& times_;
  experiment::RunConfig config_;
  std::vector<experiment::SeriesPoint> series_;
  std::vector<std::uint8_t> ran_;  // per pod object: its containers started
  std::int64_t running_ = 0;
  std::int64_t pending_ = 0;
  std::int64_t last_allocated_ = 0;
  core::Time last_time_ = core::Time::zero();
  double allocation_integral_ = 0;
};

}  // namespace gpusim::k8s
