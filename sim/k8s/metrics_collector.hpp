#pragma once
// Watches the bus and the kubelets' truth like a monitoring stack: samples the cluster after every
// scheduling cycle and when GPUs are handed back, counts what happened, and at the end turns the
// API server's pod objects into the run's records and metrics (results/README.md defines them).
#include <array>
#include <functional>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/experiment/run_result.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/metrics/fragmentation.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/device_plugin.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/k8s/shared_progress.hpp"
#include "sim/k8s/workload_times.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

class MetricsCollector final : public Component {
 public:
  MetricsCollector(Bus& bus, const ApiServer& api, const cluster::ClusterState& truth, const traces::Workload& workload,
                   const WorkloadTimes& times, const experiment::RunConfig& config, const KubeSettings& settings,
                   const DeviceChooser& devices);
  void on_message(const Message& message, core::Time now) override;
  // Whether pod object `pod`'s containers ever ran.
  bool containers_ran(PodId pod) const { return pod < ran_.size() && ran_[pod] != 0; }
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

  // What other components counted.
  struct Counts {
    std::uint64_t scheduling_attempts = 0;
    std::int64_t pods_recreated = 0;
    std::int64_t pods_given_up = 0;
    // Manifest Jobs (workloads with some only): completed, and failed by BackoffLimitExceeded,
    // DeadlineExceeded, PodFailurePolicy.
    std::int64_t jobs_succeeded = 0;
    std::array<std::int64_t, 3> jobs_failed{};
    std::int64_t container_restarts = 0;  // in place, restartPolicy OnFailure
  };
  // The run's records, series and metrics.
  // `containers`: each container's devices of a pod object (empty without container detail).
  experiment::RunResult finish(std::string policy, const Counts& counts,
                               const std::function<std::vector<cluster::GpuSet>(PodId)>& containers);
  // The last end of a pod that ran (set by finish; 0 if none ran): the makespan's end.
  core::Time last_end() const { return last_end_; }
  // Shared GPUs' metrics (runs with sharing nodes only; results/README.md).
  static void add_sharing_metrics(experiment::RunResult& result, const SharingReport& report);
  static void add_mig_metrics(experiment::RunResult& result, const SharingReport& report);

 private:
  void sample(core::Time now);
  // FGD fragmentation of the truth under the workload's typical pods, on the sampling grid.
  void sample_fragmentation(core::Time now);
  double integral_until(std::int64_t end) const;
  void gpu_event(const Message& message, core::Time now);
  void fragmentation_metrics(experiment::RunResult& result, std::int64_t end_us) const;
  void kubernetes_metrics(experiment::RunResult& result, const Counts& counts, core::Time end);

  Bus& bus_;
  const ApiServer& api_;
  const cluster::ClusterState& truth_;
  // An admission changed the truth: sample at the end of this instant unless a cycle's sample
  // does (admissions outside cycles come with bind latency).
  bool dirty_ = false;
  core::Time sample_requested_at_ = core::Time::from_micros(-1);
  const traces::Workload& workload_;
  const WorkloadTimes& times_;
  experiment::RunConfig config_;
  const KubeSettings& settings_;
  const DeviceChooser& devices_;
  std::int64_t admission_failures_ = 0;
  std::int64_t gpu_lost_pods_ = 0;
  double lost_gpu_seconds_ = 0;        // work destroyed when a GPU fell off the bus
  double terminated_gpu_seconds_ = 0;  // GPUs held for pods that had ended (1.6 delay)
  double unhealthy_gpu_seconds_ = 0;
  std::int64_t gpu_failures_ = 0;
  std::int64_t evicted_ = 0;
  std::int64_t node_lost_pods_ = 0;       // evicted, failed with their node, or on a removed node
  double node_lost_gpu_seconds_ = 0;
  std::vector<core::Time> node_lost_at_;  // per node: when it last went down
  std::vector<std::uint8_t> node_down_;
  const cluster::PodSpec& pods_at(std::uint32_t source) const { return workload_.pods[source]; }
  std::vector<std::size_t> gpu_offset_;
  std::vector<std::int64_t> unhealthy_since_;  // per GPU: -1 healthy, else since when (us)
  // Multi-GPU placements on nodes with a known topology, by the slowest link inside them.
  std::array<std::int64_t, 7> placements_by_link_{};
  // Every sample, kept compact; the mean allocation is integrated from it at the end, and it is
  // timeseries.csv when the run records its series.
  experiment::SeriesLog series_;
  std::vector<std::uint8_t> ran_;  // per pod object: its containers started
  std::int64_t running_ = 0;
  std::int64_t pending_ = 0;
  core::Time last_time_ = core::Time::zero();   // the last sample's
  core::Time last_event_ = core::Time::zero();  // the last pod or node change seen
  core::Time last_end_ = core::Time::zero();
  std::vector<metrics::TypicalPod> typical_;
  struct FragmentationSample {
    std::int64_t time_us;
    double fragmented_milli;
    double idle_milli;
  };
  std::vector<FragmentationSample> fragmentation_;
  core::Time last_arrival_ = core::Time::zero();
  core::Time first_arrival_ = core::Time::zero();
  bool mig_nodes_ = false;  // fragmentation is not defined on MIG instances
};

}  // namespace gpusim::k8s
