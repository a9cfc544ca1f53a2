#include "sim/experiment/replay_experiment.hpp"

#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/controller.hpp"
#include "sim/k8s/device_plugin.hpp"
#include "sim/k8s/failure_injector.hpp"
#include "sim/k8s/kubelet.hpp"
#include "sim/k8s/metrics_collector.hpp"
#include "sim/k8s/node_setup.hpp"
#include "sim/k8s/scheduler.hpp"
#include "sim/k8s/workload_driver.hpp"

namespace gpusim::experiment {

// The replay is assembled from components that talk only through the bus (sim/k8s/README.md):
// the API server (the bus's store), the workload driver, the scheduler, the kubelets, the pods'
// owners, the failure injector and the metrics collector.
RunResult run_replay(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config) {
  const k8s::KubeSettings defaults;
  const k8s::KubeSettings& settings = inputs.kube != nullptr ? *inputs.kube : defaults;
  const auto& nodes = inputs.cluster->nodes;
  const auto& pods = inputs.workload->pods;
  const topology::Library topologies;
  const std::vector<k8s::NodeSetup> setup = k8s::resolve_node_setup(settings, nodes, *inputs.catalog, topologies);
  const k8s::WorkloadTimes times = k8s::workload_times(*inputs.workload, config.time_compression);
  // Count-only device plugins hand out whole GPUs: the scheduler's cache knows which nodes.
  std::vector<cluster::NodeSpec> scheduler_nodes = nodes;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    scheduler_nodes[n].whole_gpus_only = setup[n].model != k8s::DevicePluginModel::kSchedulerAssigned;
  }
  const k8s::DeviceChooser chooser(setup, topologies);

  k8s::Bus bus;
  bus.reserve(pods.size() * 2);
  k8s::ApiServer api(nodes, pods.size());
  bus.set_store(api);
  k8s::WorkloadDriver driver(bus, api, *inputs.workload, times);
  k8s::Scheduler scheduler(bus, api, *inputs.catalog, scheduler_nodes, setup, pods, profile, *inputs.registry,
                           inputs.plugin_context(config.seed));
  k8s::KubeletFleet kubelets(bus, api, *inputs.catalog, nodes, setup, chooser, pods, times, settings,
                             {inputs.performance, inputs.job});
  k8s::Controller owners(bus, settings, pods.size());
  k8s::FailureInjector failures(bus, settings, nodes, times, pods, config.seed);
  k8s::MetricsCollector metrics(api, kubelets.truth(), *inputs.workload, times, config);

  using k8s::Topic;
  for (const Topic topic : {Topic::kPodCreated, Topic::kPodDeleted, Topic::kPodTerminated, Topic::kNodeStatus}) {
    bus.subscribe(topic, scheduler);
  }
  for (const Topic topic : {Topic::kPodBound, Topic::kGpuEvent, Topic::kPluginRestart}) bus.subscribe(topic, kubelets);
  for (const Topic topic : {Topic::kPodTerminated, Topic::kPodDeleted}) bus.subscribe(topic, owners);
  for (const Topic topic : {Topic::kPodCreated, Topic::kPodBound, Topic::kPodDeleted, Topic::kPodRunning,
                            Topic::kPodTerminated, Topic::kCycleDone, Topic::kGpusReleased}) {
    bus.subscribe(topic, metrics);
  }
  bus.run();
  kubelets.truth().check_invariants();
  scheduler.cache().check_invariants();
  return metrics.finish(profile.name);
}

}  // namespace gpusim::experiment
