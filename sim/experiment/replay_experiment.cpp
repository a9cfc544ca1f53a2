#include "sim/experiment/replay_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "sim/core/status.hpp"
#include "sim/experiment/device_shares.hpp"
#include "sim/experiment/vgpu_requests.hpp"
#include "sim/k8s/vgpu_layout.hpp"
#include "sim/experiment/job_metrics.hpp"
#include "sim/experiment/never_ran.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/controller.hpp"
#include "sim/k8s/descheduler.hpp"
#include "sim/k8s/koordlet.hpp"
#include "sim/k8s/device_plugin.hpp"
#include "sim/k8s/failure_injector.hpp"
#include "sim/k8s/gpushare_scheduler.hpp"
#include "sim/k8s/hami_scheduler.hpp"
#include "sim/k8s/kubelet.hpp"
#include "sim/k8s/metrics_collector.hpp"
#include "sim/k8s/mig_partitioner.hpp"
#include "sim/k8s/node_lifecycle.hpp"
#include "sim/k8s/node_setup.hpp"
#include "sim/k8s/scheduler.hpp"
#include "sim/k8s/workload_driver.hpp"

namespace gpusim::experiment {

// The replay is assembled from components that talk only through the bus (sim/k8s/README.md):
// the API server (the bus's store), the workload driver, the scheduler, the kubelets, the pods'
// owners, the failure injector and the metrics collector.
namespace {

// The GPU resource a node's device plugin advertises (the MIG mixed profiles and HAMi's extras as
// one kind each: sim/cluster/pod_constraints.hpp).
cluster::GpuResource advertised_resource(const k8s::NodeSetup& setup) {
  switch (setup.model) {
    case k8s::DevicePluginModel::kAccelerators16:
    case k8s::DevicePluginModel::kAlpha13: return cluster::GpuResource::kAlphaNvidiaGpu;
    case k8s::DevicePluginModel::kGpushare: return cluster::GpuResource::kAliyunGpuMem;
    case k8s::DevicePluginModel::kHamiVgpu: return cluster::GpuResource::kHamiVgpu;
    case k8s::DevicePluginModel::kKubevirtVgpu: return cluster::GpuResource::kVgpuType;
    case k8s::DevicePluginModel::kMig:
      return setup.mig_strategy == k8s::MigStrategy::kMixed ? cluster::GpuResource::kMigProfile
                                                            : cluster::GpuResource::kNvidiaGpu;
    default:
      return k8s::is_shared(setup.model) && setup.sharing.rename_by_default ? cluster::GpuResource::kNvidiaGpuShared
                                                                            : cluster::GpuResource::kNvidiaGpu;
  }
}

// The settings' node events plus the join and leave times Node objects carry; which nodes are
// there from the start (those whose first event is not a join).
k8s::KubeSettings with_node_objects(const k8s::KubeSettings& given, const traces::ClusterSpec& cluster,
                                    std::vector<std::uint8_t>& present) {
  k8s::KubeSettings settings = given;
  for (std::uint32_t n = 0; n < cluster.kube.size(); ++n) {
    const traces::NodeKube& own = cluster.kube[n];
    if (own.joins_at > core::Time::zero()) settings.node_events.push_back({own.joins_at, n, k8s::NodeEventKind::kJoin});
    if (own.leaves_at) settings.node_events.push_back({*own.leaves_at, n, k8s::NodeEventKind::kRemove});
  }
  present.assign(cluster.nodes.size(), 1);
  std::vector<core::Time> first(cluster.nodes.size(), core::Time::from_micros(INT64_MAX));
  for (const k8s::NodeEvent& event : settings.node_events) {
    if (event.at < first[event.node]) {
      first[event.node] = event.at;
      present[event.node] = event.kind != k8s::NodeEventKind::kJoin;
    }
  }
  return settings;
}

// Rows whose last pod was still Pending when the run ended (outcome pending or unschedulable)
// never ran: the scheduler says why (pods.csv's reason, summary.json's never_ran_by_reason).
void explain_never_ran(RunResult& result, k8s::Scheduler& scheduler, const k8s::ApiServer& api, const traces::Workload& workload) {
  std::vector<k8s::PodId> waiting;
  std::vector<std::uint32_t> rows;
  for (std::uint32_t s = 0; s < workload.pods.size(); ++s) {
    const k8s::PodId latest = api.latest(s);
    if (latest == k8s::kNoPod || api.pod(latest).phase != k8s::PodPhase::kPending) continue;
    waiting.push_back(latest);
    rows.push_back(s);
  }
  if (waiting.empty()) return;
  const std::vector<sched::NeverRanReason> reasons = scheduler.explain_never_ran(waiting, workload.queues);
  NeverRanTally tally;
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    tally.add(reasons[i]);
    if (!result.pods.empty()) result.pods[rows[i]].reason = experiment::ReasonText(std::make_shared<const std::string>(reasons[i].text));
  }
  result.never_ran = tally.take();
}

}  // namespace

RunResult run_replay(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config) {
  const k8s::KubeSettings defaults;
  std::vector<std::uint8_t> present;
  const k8s::KubeSettings settings = with_node_objects(inputs.kube != nullptr ? *inputs.kube : defaults, *inputs.cluster, present);
  const bool lifecycle_events = std::any_of(settings.node_events.begin(), settings.node_events.end(),
                                            [](const k8s::NodeEvent& e) { return e.kind == k8s::NodeEventKind::kLost; });
  const topology::Library topologies;
  const std::vector<k8s::NodeSetup> setup = k8s::resolve_node_setup(settings, *inputs.cluster, *inputs.catalog, topologies);
  // On time-slicing and MPS nodes every replica is a device, on MIG nodes every instance: the
  // scheduler and the kubelet see GPUs x replicas of them (the failure injector still names
  // physical GPUs).
  const std::vector<cluster::NodeSpec>& physical_nodes = inputs.cluster->nodes;
  std::vector<cluster::NodeSpec> nodes = physical_nodes;
  for (std::size_t n = 0; n < nodes.size(); ++n) nodes[n].gpu_count *= setup[n].replicas();
  // Fractions of a GPU as requests for one device (the fraction stays the pod's GPU demand).
  // With MIG's mixed strategy pods ask an instance profile, as a user who knows the cluster's
  // layouts would: the smallest offered one whose compute covers their share of a GPU (a whole
  // GPU: 7g, one per GPU asked); if none does, the smallest that would, which no node has.
  const traces::Workload* workload = inputs.workload;
  traces::Workload one_device;
  const cluster::MigGeometry* mixed_mig = nullptr;
  std::array<bool, cluster::kMigShapes> offered{};
  for (const k8s::NodeSetup& node : setup) {
    if (node.model == k8s::DevicePluginModel::kMig && node.mig_strategy == k8s::MigStrategy::kMixed && node.mig_geometry) {
      mixed_mig = node.mig_geometry;
      // A dynamic node offers HAMi's templates' profiles: once re-partitioned, its starting
      // layout's other profiles do not come back.
      if (node.mig_dynamic) {
        for (const auto& layout : node.mig_geometry->templates) {
          for (const int shape : layout) offered[static_cast<std::size_t>(shape)] = true;
        }
      } else {
        for (const int shape : node.mig_shapes) offered[static_cast<std::size_t>(shape)] = true;
      }
    }
  }
  if (mixed_mig != nullptr) {
    // Every GPU pod then asks a MIG profile, which only MIG mixed nodes advertise.
    for (std::size_t n = 0; n < setup.size(); ++n) {
      const bool mixed = setup[n].model == k8s::DevicePluginModel::kMig && setup[n].mig_strategy == k8s::MigStrategy::kMixed;
      if (physical_nodes[n].gpu_count > 0 && !mixed) {
        throw core::InputError(fmt::format(
            "node {}: some nodes use MIG strategy mixed, where a GPU pod asks a MIG profile (nvidia.com/mig-...), "
            "but this node advertises {} GPUs otherwise; give every GPU node devicePlugin mig with strategy mixed, "
            "or use strategy single", physical_nodes[n].name, physical_nodes[n].gpu_count));
      }
    }
  }
  const auto mig_request = [&](double demand) {
    const int needed = cluster::mig_shape_for(*mixed_mig, demand);
    for (int shape = needed; shape < cluster::kMigShapes; ++shape) {
      if (offered[static_cast<std::size_t>(shape)]) return shape;
    }
    return needed;
  };
  const std::vector<std::string> vgpu_types = k8s::vgpu_types_by_class(setup);
  std::int64_t vgpu_over_framebuffer = 0;  // trace fractions asking more memory than their vGPU type has
  const bool vgpu = vgpu_types.size() > 1;
  if (vgpu) check_vgpu_cluster(setup, physical_nodes);
  if (settings.fraction_as_one_device || mixed_mig != nullptr || vgpu) {
    one_device = *inputs.workload;
    for (cluster::PodSpec& pod : one_device.pods) {
      if (vgpu && pod.wants_gpu()) {
        pod.device_class = vgpu_class(pod, setup, vgpu_types, inputs.workload->source);
        // A fraction uses its share of a GPU's memory; a whole device (a named vGPU, a whole GPU) the
        // vGPU's framebuffer (the kubelet's memory_request).
        const bool named = pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kVgpuType;
        vgpu_over_framebuffer += !named && pod.asked_share() < 1 && pod.asked_share() > vgpu_framebuffer(setup, pod.device_class) + 1e-9;
      }
      // A pod that names its profile gets it (device_shares.cpp).
      if (mixed_mig != nullptr && pod.wants_gpu() &&
          (pod.constraints == nullptr || pod.constraints->gpu_resource != cluster::GpuResource::kMigProfile)) {
        // Its compute demand and the memory it asked must both fit the profile.
        pod.device_class = static_cast<std::uint8_t>(1 + mig_request(std::max(pod.gpu_demand(), pod.asked_share())));
      }
      if (!pod.shares_gpu()) continue;
      if (pod.gpu_demand_milli == 0) pod.gpu_demand_milli = pod.gpu_milli;  // a demand the trace gives stays
      pod.asked_fraction_milli = pod.gpu_milli;
      pod.gpu_milli = cluster::kMilliPerGpu;
    }
    workload = &one_device;
  }
  // HAMi runs one scheduler: its node policy is the cluster's. With deviceMemoryScaling above 1
  // and gpumem alone, a fraction asks fraction / scaling of the registered memory (its share of
  // the physical memory stays its GPU demand); the scheduler then sees that smaller share, which
  // other nodes would misread, so every GPU node must be such a HAMi node.
  const k8s::NodeSetup* first_hami = nullptr;
  for (std::size_t n = 0; n < setup.size(); ++n) {
    if (setup[n].model != k8s::DevicePluginModel::kHamiVgpu) continue;
    if (first_hami == nullptr) first_hami = &setup[n];
    if (setup[n].hami.node_policy != first_hami->hami.node_policy) {
      throw core::InputError(fmt::format("node {}: hami.nodeSchedulerPolicy differs from another HAMi node's; HAMi runs "
                                         "one scheduler with one node policy", physical_nodes[n].name));
    }
  }
  const k8s::HamiConfig* scaled = nullptr;  // the first GPU node that scales, the reference
  std::size_t scaled_node = 0;
  for (std::size_t n = 0; n < setup.size() && scaled == nullptr; ++n) {
    const k8s::HamiConfig& h = setup[n].hami;
    if (physical_nodes[n].gpu_count > 0 && setup[n].model == k8s::DevicePluginModel::kHamiVgpu &&
        h.device_memory_scaling != 1 && !h.fraction_asks_cores) {
      scaled = &h;
      scaled_node = n;
    }
  }
  if (scaled != nullptr) {
    for (std::size_t n = 0; n < setup.size(); ++n) {
      if (physical_nodes[n].gpu_count == 0) continue;
      if (setup[n].model != k8s::DevicePluginModel::kHamiVgpu || setup[n].hami.device_memory_scaling != scaled->device_memory_scaling ||
          setup[n].hami.fraction_asks_cores) {
        throw core::InputError(fmt::format(
            "node {}: node {} scales its memory (HAMi deviceMemoryScaling {} with fractionAsks gpumem), so a "
            "fraction asks a share of the scaled memory; give every GPU node devicePlugin hami-vgpu with the same "
            "deviceMemoryScaling and fractionAsks", physical_nodes[n].name, physical_nodes[scaled_node].name,
            scaled->device_memory_scaling));
      }
    }
    if (workload != &one_device) {
      one_device = *inputs.workload;
      workload = &one_device;
    }
    for (cluster::PodSpec& pod : one_device.pods) {
      if (!pod.shares_gpu()) continue;
      if (pod.gpu_demand_milli == 0) pod.gpu_demand_milli = pod.gpu_milli;
      pod.asked_fraction_milli = pod.gpu_milli;
      pod.gpu_milli = std::max<std::int32_t>(
          1, static_cast<std::int32_t>(std::ceil(pod.gpu_milli / scaled->device_memory_scaling - 1e-9)));
    }
  }
  // Manifests' asks of sharing plugins' own resources (gpumem, gpu-mem, MIG profiles) as shares.
  if (experiment::asks_device_shares(workload->pods)) {
    if (workload != &one_device) {
      one_device = *inputs.workload;
      workload = &one_device;
    }
    resolve_device_shares(one_device.pods, inputs.workload->source, setup, physical_nodes, *inputs.catalog,
                          {mixed_mig, offered});
  }
  const auto& pods = workload->pods;
  const k8s::WorkloadTimes times = k8s::workload_times(*workload, config.time_compression);
  if (config.progress != nullptr) {
    config.progress->span_us.store(k8s::trace_end(*workload, times).micros(), std::memory_order_relaxed);
  }
  // Count-only device plugins hand out whole GPUs: the scheduler's cache knows which nodes.
  std::vector<cluster::NodeSpec> scheduler_nodes = nodes;
  const auto vgpu_resources = std::make_shared<std::vector<std::string>>(vgpu_types.size());
  for (std::size_t c = 1; c < vgpu_types.size(); ++c) (*vgpu_resources)[c] = "nvidia.com/" + k8s::vgpu_resource(vgpu_types[c]);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    scheduler_nodes[n].whole_gpus_only = !k8s::scheduler_picks_gpus(setup[n].model);
    scheduler_nodes[n].one_gpu_per_pod = setup[n].model == k8s::DevicePluginModel::kGpushare;
    if (setup[n].model == k8s::DevicePluginModel::kHamiVgpu) {
      scheduler_nodes[n].max_pods_per_gpu = setup[n].hami.device_split_count;
    }
    if (setup[n].model == k8s::DevicePluginModel::kMig && setup[n].mig_strategy == k8s::MigStrategy::kMixed) {
      // nvidia.com/mig-<profile>: a resource per instance shape (0: a slot without an instance).
      const int slots = setup[n].replicas();
      const std::vector<int>& layout = setup[n].mig_shapes;
      for (int d = 0; d < nodes[n].gpu_count; ++d) {
        const auto i = static_cast<std::size_t>(d % slots);
        scheduler_nodes[n].device_class.push_back(i < layout.size() ? static_cast<std::uint8_t>(1 + layout[i]) : 0);
      }
    }
    if (setup[n].model == k8s::DevicePluginModel::kKubevirtVgpu) {
      // nvidia.com/NVIDIA_<type>: a resource per vGPU type.
      const int slots = setup[n].replicas();
      scheduler_nodes[n].device_class_resources = vgpu_resources;
      for (int d = 0; d < nodes[n].gpu_count; ++d) {
        scheduler_nodes[n].device_class.push_back(setup[n].vgpu_devices[static_cast<std::size_t>(d % slots)].device_class);
      }
    }
    if (nodes[n].gpu_count > 0) scheduler_nodes[n].gpu_resource = advertised_resource(setup[n]);
  }
  const k8s::DeviceChooser chooser(setup, topologies);

  // The simulation's components live in this scope only: the job metrics below, computed from the
  // records alone, do not hold their memory too (at 10^6 jobs their tables and the job metrics'
  // were each a few hundred MB, and the run's peak was both).
  std::size_t job_metrics_at = 0, job_undefined_at = 0;
  RunResult out = [&] {
    k8s::Bus bus;
    bus.reserve(pods.size());  // the arrivals, set up front
    k8s::ApiServer api(nodes, pods.size());
    bus.set_store(api);
    k8s::WorkloadDriver driver(bus, api, *workload, times);
    std::vector<const topology::Topology*> node_topologies(nodes.size(), nullptr);
    for (std::size_t n = 0; n < nodes.size(); ++n) node_topologies[n] = chooser.topology_of(static_cast<std::uint32_t>(n));
    sched::PluginContext context = inputs.plugin_context(config.seed);
    context.workload = pods;  // as the scheduler sees them (fractions as one device, if so)
    context.topologies = node_topologies;
    // gpushare's extender binds each pod to the GPU that fits it most tightly, whatever the policy.
    std::vector<std::string> node_gpu_selection(nodes.size());
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      if (setup[n].model == k8s::DevicePluginModel::kGpushare) node_gpu_selection[n] = "best";
    }
    if (std::any_of(node_gpu_selection.begin(), node_gpu_selection.end(), [](const std::string& s) { return !s.empty(); })) {
      context.node_gpu_selection = node_gpu_selection;
    }
    // HAMi's scheduler, an extender: it picks the node among those that passed the filters and the
    // GPUs on it (sim/k8s/hami_scheduler.hpp).
    std::optional<k8s::HamiScheduler> hami;
    std::vector<sched::Extender*> extenders;
    if (first_hami != nullptr) {
      hami.emplace(setup, node_topologies, scheduler_nodes, *inputs.catalog, first_hami->hami.node_policy);
      extenders.push_back(&*hami);
    }
    // gpushare's extender counts GiB for manifests that ask aliyun.com/gpu-mem; trace fractions on
    // gpushare nodes go to the GPU that fits them most tightly by share (node_gpu_selection).
    std::optional<k8s::GpushareScheduler> gpushare;
    if (std::any_of(pods.begin(), pods.end(), [](const cluster::PodSpec& pod) {
          return pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kAliyunGpuMem;
        })) {
      gpushare.emplace(setup, scheduler_nodes, *inputs.catalog);
      extenders.push_back(&*gpushare);
    }
    context.extenders = extenders;
    // Koordinator's node agents and their NodeMetric reports, where a plugin reads usage.
    const auto reads_usage = [&] {
      const auto is_load_aware = [&](const std::string& name) { return inputs.registry->canonical(name) == "load-aware"; };
      return std::any_of(profile.filter.begin(), profile.filter.end(), is_load_aware) ||
             std::any_of(profile.score.begin(), profile.score.end(), [&](const sched::WeightedPlugin& p) { return is_load_aware(p.name); });
    }();
    std::optional<cluster::NodeMetrics> node_metrics;
    if (reads_usage) {
      node_metrics.emplace(nodes.size(), [&bus] { return bus.now(); });
      context.node_metrics = &*node_metrics;
    }
    // The job ledger records what each job ran: the queueing plugins that evict (job rankings, rounds,
    // quotas' reclaim) rank and plan from it. It listens only when one of them runs (below).
    k8s::JobLedger ledger(pods.size());
    k8s::QueueingInputs queueing;
    queueing.ledger = &ledger;
    queueing.job_speeds = inputs.job_types;
    queueing.checkpoint_interval = settings.checkpoint_interval;
    queueing.free_preemption = settings.free_preemption;
    queueing.seed = config.seed;
    // Quota profiles: the queues' quotas as given, else the default quota for every queue of the workload.
    const k8s::QueueQuotas queue_quotas =
        settings.queue_quotas.queues.empty() ? k8s::default_queue_quotas(workload->queues.size()) : settings.queue_quotas;
    queueing.queue_quotas = &queue_quotas;
    queueing.kueue = settings.kueue.get();
    queueing.kai = settings.kai.get();
    k8s::QueueSeries queue_series;
    if (config.record_series) queueing.queue_series = &queue_series;
    k8s::Scheduler scheduler(bus, api, *inputs.catalog, scheduler_nodes, setup, pods, profile, *inputs.registry, context,
                             present, lifecycle_events, settings.node_status_period, queueing);
    const bool preempts = scheduler.evicts();

    k8s::KubeletFleet kubelets(bus, api, *inputs.catalog, nodes, setup, chooser, pods, times, settings,
                               {inputs.performance, inputs.job, config.seed, inputs.job_types}, present);
    k8s::Controller owners(bus, api, settings, *workload);
    k8s::NodeLifecycleController node_lifecycle(bus, api, pods, settings, nodes);
    k8s::FailureInjector failures(bus, settings, *inputs.catalog, physical_nodes, times, pods, config.seed);
    k8s::MetricsCollector metrics(bus, api, kubelets.truth(), *workload, times, config, settings, chooser);
    std::optional<k8s::Descheduler> descheduler;
    if (settings.descheduler) descheduler.emplace(bus, api, kubelets.truth(), setup, pods, settings);
    std::optional<k8s::Koordlet> koordlet;
    if (node_metrics) koordlet.emplace(bus, api, kubelets, settings, *node_metrics, present);
    std::optional<k8s::MigPartitioner> partitioner;
    if (std::any_of(setup.begin(), setup.end(), [](const k8s::NodeSetup& s) { return s.mig_dynamic; })) {
      partitioner.emplace(bus, api, kubelets.truth(), setup, pods, settings, present);
    }

    using k8s::Topic;
    if (preempts) {
      // Before the scheduler, which reads it when a pod starts running.
      for (const Topic topic : {Topic::kPodRunning, Topic::kPodTerminated, Topic::kContainerFailed, Topic::kContainerRestarted}) {
        bus.subscribe(topic, ledger);
      }
      bus.subscribe(Topic::kPodRunning, scheduler);
      bus.subscribe(Topic::kContainerRestarted, scheduler);
    }
    for (const Topic topic : {Topic::kPodCreated, Topic::kPodDeleted, Topic::kPodTerminated, Topic::kNodeStatus,
                              Topic::kNodeJoined, Topic::kNodeRemoved, Topic::kNodeTaints, Topic::kJobFailed,
                              Topic::kOwnerGaveUp}) {
      bus.subscribe(topic, scheduler);
    }
    for (const Topic topic : {Topic::kPodBound, Topic::kGpuEvent, Topic::kPluginRestart, Topic::kNodeJoined,
                              Topic::kNodeRemoved, Topic::kNodeLost, Topic::kNodeRecovered, Topic::kPodTerminated}) {
      bus.subscribe(topic, kubelets);
    }
    for (const Topic topic : {Topic::kPodBound, Topic::kNodeLost, Topic::kNodeRecovered, Topic::kNodeRemoved}) {
      bus.subscribe(topic, node_lifecycle);
    }
    if (descheduler || preempts) bus.subscribe(Topic::kEvictRequest, kubelets);
    if (descheduler) {
      for (const Topic topic : {Topic::kPodCreated, Topic::kPodBound, Topic::kPodDeleted, Topic::kPodRunning, Topic::kPodTerminated}) {
        bus.subscribe(topic, *descheduler);
      }
    }
    if (partitioner) {
      bus.subscribe(Topic::kMigReconfigure, kubelets);
      bus.subscribe(Topic::kMigReconfigure, scheduler);
      for (const Topic topic : {Topic::kPodCreated, Topic::kPodBound, Topic::kPodAdmitted, Topic::kPodDeleted,
                                Topic::kPodTerminated, Topic::kCycleDone, Topic::kNodeJoined, Topic::kNodeRemoved}) {
        bus.subscribe(topic, *partitioner);
      }
    }
    for (const Topic topic : {Topic::kPodCreated, Topic::kPodTerminated, Topic::kPodDeleted, Topic::kContainerRestarted,
                              Topic::kJobSuspended, Topic::kJobResumed}) {
      bus.subscribe(topic, owners);
    }
    if (koordlet) {
      bus.subscribe(Topic::kNodeMetrics, scheduler);
      for (const Topic topic : {Topic::kPodBound, Topic::kNodeJoined, Topic::kNodeLost, Topic::kNodeRecovered, Topic::kNodeRemoved}) {
        bus.subscribe(topic, *koordlet);
      }
    }
    for (const Topic topic : {Topic::kPodTerminated, Topic::kJobFailed}) bus.subscribe(topic, driver);
    bus.subscribe(Topic::kPodKill, kubelets);
    for (const Topic topic : {Topic::kPodCreated, Topic::kPodBound, Topic::kPodDeleted, Topic::kPodRunning,
                              Topic::kPodTerminated, Topic::kCycleDone, Topic::kGpusReleased, Topic::kPodAdmitted,
                              Topic::kGpuEvent, Topic::kNodeLost, Topic::kNodeRemoved, Topic::kNodeRecovered,
                              Topic::kNodeJoined, Topic::kContainerFailed}) {
      bus.subscribe(topic, metrics);
    }
    bus.report_progress(config.progress);
    bus.run();
    kubelets.truth().check_invariants();
    scheduler.cache().check_invariants();
    kubelets.keep_outputs_only();
    experiment::RunResult result = metrics.finish(profile.name,
                                                  {scheduler.attempts(), owners.recreated(), owners.given_up(),
                                                   owners.jobs_succeeded(), owners.jobs_failed(), owners.container_restarts()},
                                                  [&](k8s::PodId pod) { return kubelets.container_devices(pod); });
    explain_never_ran(result, scheduler, api, *workload);
    // A pod on MIG instances holds their share of each GPU's SMs, whatever it asked.
    for (experiment::PodRecord& record : result.pods) {
      const k8s::PodId latest = api.latest(record.source_index);
      if (latest == k8s::kNoPod) continue;
      if (const std::int32_t share = kubelets.mig_share_milli(latest); share >= 0) record.gpu_share_milli = share;
    }
    // Rows whose earlier pod objects ran too (preempted, evicted, failed and replaced): pods.csv has
    // the last run only; the export needs them all.
    for (k8s::PodId id = 0; id < api.pod_count(); ++id) {
      const k8s::PodObject& pod = api.pod(id);
      if (api.latest(pod.source) == id || !metrics.containers_ran(id)) continue;
      const bool ended = pod.phase == k8s::PodPhase::kSucceeded || pod.phase == k8s::PodPhase::kFailed || pod.phase == k8s::PodPhase::kDeleted;
      result.earlier_runs.push_back({pod.source, pod.node, pod.gpus, pod.running.micros(), ended ? pod.ended.micros() : -1});
    }
    std::stable_sort(result.earlier_runs.begin(), result.earlier_runs.end(),
                     [](const experiment::EarlierRun& a, const experiment::EarlierRun& b) { return a.row < b.row; });
    result.node_devices.reserve(setup.size());
    for (const k8s::NodeSetup& node : setup) result.node_devices.push_back({k8s::to_string(node.model), node.replicas()});
    // Shared GPUs' time is integrated over the makespan, as allocation is (first arrival to last end).
    k8s::MetricsCollector::add_sharing_metrics(result, kubelets.sharing_report(metrics.last_end()));
    // The job metrics go here, once this scope is gone (below).
    job_metrics_at = result.metrics.size();
    job_undefined_at = result.undefined.size();
    if (preempts) {
      result.set("preemptions", static_cast<double>(kubelets.eviction_report().preemptions));
      result.set("gpu_hours_lost_to_preemption", kubelets.eviction_report().preempted_lost_gpu_s / 3600.0);
    }
    scheduler.add_metrics([&](std::string_view name, double value) { result.set(std::string(name), value); },
                          workload->has_gangs);
    result.queue_series = std::move(queue_series);
    if (koordlet) result.set("node_metric_reports", static_cast<double>(koordlet->reports()));
    if (vgpu) result.set("vgpu_pods_over_framebuffer", static_cast<double>(vgpu_over_framebuffer));
    if (descheduler) {
      result.set("descheduler_evictions", static_cast<double>(kubelets.eviction_report().evictions));
      result.set("gpu_hours_lost_to_evictions", kubelets.eviction_report().lost_gpu_s / 3600.0);
    }
    return result;
  }();
  std::int64_t cluster_gpus = 0;
  for (const cluster::NodeSpec& node : nodes) cluster_gpus += node.gpu_count;
  std::vector<double> speeds;
  if (inputs.job_types != nullptr) speeds = inputs.job_types->equal_share_speeds(pods, nodes);
  // In their place among the metrics, as summary.json lists them: after the sharing metrics, before
  // the preemptions and the scheduler's.
  const std::size_t metrics_before = out.metrics.size(), undefined_before = out.undefined.size();
  add_job_metrics(out, *workload, cluster_gpus, inputs.job_types != nullptr ? &speeds : nullptr);
  const auto move_back = [](auto& list, std::size_t to, std::size_t from) {
    const auto at = [&](std::size_t i) { return list.begin() + static_cast<std::ptrdiff_t>(i); };
    std::rotate(at(to), at(from), list.end());
  };
  move_back(out.metrics, job_metrics_at, metrics_before);
  move_back(out.undefined, job_undefined_at, undefined_before);
  return out;
}

}  // namespace gpusim::experiment
