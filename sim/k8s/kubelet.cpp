#include "sim/k8s/kubelet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/check.hpp"
#include "sim/core/muldiv.hpp"
#include "sim/core/status.hpp"

namespace gpusim::k8s {
namespace {

enum Tag : std::uint32_t { kAdmit, kStart, kFinish, kPublish, kRegister, kFree, kTerminate, kReconfigured, kRestart };

// The kubelet's container back-off (pkg/kubelet/kubelet.go: backOffPeriod 10 s, MaxContainerBackOff
// 300 s); an entry not updated for twice the maximum has expired (flowcontrol.Backoff's hasExpired).
constexpr core::Time kCrashLoopInitial = core::Time::from_micros(10'000'000);
constexpr core::Time kCrashLoopMax = core::Time::from_micros(300'000'000);

bool listed(const std::vector<int>& xids, int xid) { return std::find(xids.begin(), xids.end(), xid) != xids.end(); }

// Whether a pod (or one of its containers) asks more than one device.
bool asks_several(const cluster::PodSpec& pod) {
  if (pod.constraints == nullptr || pod.constraints->containers.empty()) return pod.gpu_count > 1;
  return std::any_of(pod.constraints->containers.begin(), pod.constraints->containers.end(),
                     [](const cluster::Container& c) { return c.gpus > 1; });
}

// Per physical GPU of the sharing nodes, in node order: how its pods share it.
// Parameters come from the performance model (calibration files) when there is one, else from
// the defaults: no context-switch overhead, no overlap gain under MPS.
std::vector<SharedGpuModel> shared_gpu_models(const std::vector<cluster::NodeSpec>& nodes,
                                              const std::vector<NodeSetup>& setup, const perf::PerformanceModel* performance) {
  std::vector<SharedGpuModel> models;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (!shares_speed(setup[n].model)) continue;
    const int replicas = setup[n].replicas();
    SharedGpuModel model;
    model.mps = setup[n].model == DevicePluginModel::kMps;  // gpushare's pods time-slice
    if (setup[n].model == DevicePluginModel::kKubevirtVgpu && !setup[n].vgpu_devices.empty()) {
      // Best effort divides the time as CUDA's time-slicing does; fixed share by the type's maximum
      // (one size per GPU: the maxima of its types agree).
      const VgpuScheduler scheduler = setup[n].vgpu.scheduler;
      model.time_share = scheduler == VgpuScheduler::kEqualShare   ? TimeShare::kEqualShare
                         : scheduler == VgpuScheduler::kFixedShare ? TimeShare::kFixedShare
                                                                   : TimeShare::kCuda;
      model.fixed_share = 1.0 / setup[n].vgpu_devices.front().max_instances;
    }
    if (performance != nullptr && nodes[n].gpu_count > 0) {
      const perf::GpuSpeed& speed = performance->speed(nodes[n].gpu_model);
      model.time_slice_overhead = speed.time_slice_overhead.value;
      if (speed.stream_capacity.value > 0) model.stream_capacity = speed.stream_capacity.value;
    }
    const double percentage = setup[n].sharing.mps_active_thread_percentage;
    model.thread_fraction = percentage > 0 ? percentage / 100.0 : 1.0 / replicas;
    const int gpus = nodes[n].gpu_count / replicas;
    if (!setup[n].vgpu_mig_backed()) {
      models.insert(models.end(), static_cast<std::size_t>(gpus), model);
      continue;
    }
    // Each GPU instance a unit of its own, with its SMs. One vGPU on an instance runs on it alone;
    // time-sliced MIG-backed vGPUs share it under the vGPU scheduler (set per instance), fixed
    // share giving each 1 / its type's most per instance.
    const int units = setup[n].speed_units_per_gpu();
    model.gpu_weight = 1.0 / units;
    std::vector<SharedGpuModel> instances(static_cast<std::size_t>(units), model);
    for (const NodeSetup::VgpuDevice& d : setup[n].vgpu_devices) {
      SharedGpuModel& unit = instances[static_cast<std::size_t>(d.instance)];
      unit.compute = d.compute_share;
      unit.fixed_share = 1.0 / d.per_instance;
      if (d.per_instance == 1) unit.time_share = TimeShare::kCuda;  // the schedulers time-slice only several per instance
    }
    for (int g = 0; g < gpus; ++g) models.insert(models.end(), instances.begin(), instances.end());
  }
  return models;
}

// Pairs of jobs of known types run at the speeds Gavel's table measured for them side by side.
SharedProgress::PairRate measured_pair_rate(const perf::JobTypeSpeeds* job_types) {
  if (job_types == nullptr || !job_types->uses_colocation_figures()) return {};
  return [job_types](std::int32_t self, std::int32_t other) { return job_types->colocated_speed(self, other); };
}

// The stand-in for a terminated 1.6 pod whose GPUs the GPU manager still holds.
cluster::PodSpec ghost_spec(cluster::GpuSet gpus) {
  cluster::PodSpec ghost;
  ghost.gpu_count = gpus.size();
  ghost.gpu_milli = cluster::kMilliPerGpu;
  return ghost;
}

}  // namespace

KubeletFleet::KubeletFleet(Bus& bus, const ApiServer& api, const cluster::GpuCatalog& catalog,
                           const std::vector<cluster::NodeSpec>& nodes, const std::vector<NodeSetup>& setup,
                           const DeviceChooser& chooser, const std::vector<cluster::PodSpec>& pods,
                           const WorkloadTimes& times, const KubeSettings& settings, RunTimeModel run_time,
                           const std::vector<std::uint8_t>& present)
    : bus_(bus),
      api_(api),
      setup_(setup),
      chooser_(chooser),
      pods_(pods),
      times_(times),
      settings_(settings),
      run_time_(run_time),
      truth_(catalog, nodes),
      on_node_(nodes.size()),
      registered_(nodes.size(), 1),
      state_(nodes.size(), NodeState::kUp),
      waiting_(nodes.size()),
      publish_queued_(nodes.size(), 0),
      progress_(shared_gpu_models(nodes, setup, run_time.performance),
                times.arrival.empty() ? core::Time::zero() : *std::min_element(times.arrival.begin(), times.arrival.end()),
                measured_pair_rate(run_time.job_types)),
      oom_rng_(core::Rng::stream(run_time.seed, "oom-victims")) {
  sharing_.memory_model = settings.memory_model;
  sharing_.measured_pairs = run_time.job_types != nullptr && run_time.job_types->uses_colocation_figures();
  residents_.reserve(pods.size());
  // Index of each sharing node's first GPU in the shared-GPU model (others have none there).
  physical_offset_.push_back(0);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const bool shared = shared_node(static_cast<std::uint32_t>(n));
    physical_offset_.push_back(physical_offset_.back() +
                               (shared ? static_cast<std::size_t>(nodes[n].gpu_count / setup[n].replicas() *
                                                                  setup[n].speed_units_per_gpu())
                                       : 0));
    if (shared && !present[n]) set_gpus_present(static_cast<std::uint32_t>(n), false, core::Time::zero());
    if (shared) {
      sharing_.any = true;
      sharing_.physical_gpus += nodes[n].gpu_count / setup[n].replicas();
    }
    if (setup[n].model == DevicePluginModel::kMig) sharing_.mig_gpus += nodes[n].gpu_count / setup[n].replicas();
  }
  // The parameters in use, as the speed model got them (for the report).
  for (std::uint32_t g = 0; g < physical_offset_.back(); ++g) {
    sharing_.time_slice_overhead = std::max(sharing_.time_slice_overhead, progress_.model(g).time_slice_overhead);
    sharing_.stream_capacity = std::max(sharing_.stream_capacity, progress_.model(g).stream_capacity);
  }
  if (sharing_.stream_capacity <= 0) sharing_.stream_capacity = 1;
  gpu_offset_.push_back(0);
  for (const auto& node : nodes) gpu_offset_.push_back(gpu_offset_.back() + static_cast<std::size_t>(node.gpu_count));
  pods_on_gpu_.assign(gpu_offset_.back(), 0);
  // MIG: every device's instance shape; dynamic GPUs start with the layout given, the slots past
  // it absent.
  slot_shape_.assign(gpu_offset_.back(), kNoInstance);
  mig_target_.assign(gpu_offset_.back(), kNoInstance);
  mig_layouts_.assign(nodes.size(), 0);
  incoming_.assign(nodes.size(), {});
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    if (setup[n].model != DevicePluginModel::kMig || nodes[n].gpu_count == 0) continue;
    const int slots = setup[n].replicas();
    for (int g = 0; g < nodes[n].gpu_count / slots; ++g) {
      set_layout(n, g, NodeSetup::kInitialLayout);
    }
  }
  first_arrival_ = times.arrival.empty() ? core::Time::zero() : *std::min_element(times.arrival.begin(), times.arrival.end());
  gpu_memory_.assign(physical_offset_.back(), 0);
  memory_seconds_.assign(physical_offset_.back(), 0);
  memory_since_.assign(physical_offset_.back(), core::Time::zero());
  always_overruns_.assign(pods.size(), 0);
  remaining_work_.reserve(pods.size());
  for (const cluster::PodSpec& pod : pods) remaining_work_.push_back(pod.duration ? pod.duration->micros() : 0);
  for (const std::string& name : settings.overrun_pods) {
    const auto it = std::find_if(pods.begin(), pods.end(), [&](const cluster::PodSpec& p) { return p.name == name; });
    if (it == pods.end()) throw core::InputError(fmt::format("--kube gpuMemory.overrunPods: no pod named '{}' in the workload", name));
    always_overruns_[static_cast<std::size_t>(it - pods.begin())] = 1;
  }
  // Every kubelet of a node present from the start registers it at time 0 with the status its
  // plugin advertises (none until the GPU Operator is done, if it takes time).
  const core::Time operator_delay = settings_.gpu_operator_delay();
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    if (!present[n]) {
      state_[n] = NodeState::kAbsent;
      continue;
    }
    if (operator_delay > core::Time::zero() && nodes[n].gpu_count > 0) {
      registered_[n] = 0;
      bus_.set_timer(*this, kRegister, n, operator_delay);
    }
    const Advertisement ad = advertise(setup_[n].model, nodes[n].gpu_count, mig_absent(n), registered_[n] != 0);
    if (ad.allocatable != nodes[n].gpu_count || mig_layouts_[n] != 0) publish_status(n, core::Time::zero());
  }
}

std::vector<cluster::GpuSet> KubeletFleet::container_devices(PodId pod) const {
  if (!outputs_only_) return pod < residents_.size() ? residents_[pod].containers : std::vector<cluster::GpuSet>{};
  const auto it = std::lower_bound(kept_containers_.begin(), kept_containers_.end(), pod,
                                   [](const auto& kept, PodId id) { return kept.first < id; });
  return it != kept_containers_.end() && it->first == pod ? it->second : std::vector<cluster::GpuSet>{};
}

std::int32_t KubeletFleet::mig_share_milli(PodId pod) const {
  if (!outputs_only_) return pod < residents_.size() ? residents_[pod].mig_share_milli : -1;
  const auto it = std::lower_bound(kept_mig_share_.begin(), kept_mig_share_.end(), pod,
                                   [](const auto& kept, PodId id) { return kept.first < id; });
  return it != kept_mig_share_.end() && it->first == pod ? it->second : -1;
}

void KubeletFleet::keep_outputs_only() {
  for (PodId id = 0; id < residents_.size(); ++id) {
    Resident& r = residents_[id];
    if (!r.containers.empty()) kept_containers_.emplace_back(id, std::move(r.containers));
    if (r.mig_share_milli >= 0) kept_mig_share_.emplace_back(id, r.mig_share_milli);
  }
  std::vector<Resident>().swap(residents_);
  outputs_only_ = true;
}

KubeletFleet::Resident& KubeletFleet::resident(PodId pod) {
  GPUSIM_CHECK(!outputs_only_, "a kubelet was asked about a pod after the run");
  if (residents_.size() <= pod) residents_.resize(pod + 1);
  return residents_[pod];
}

void KubeletFleet::on_message(const Message& message, core::Time now) {
  switch (message.topic) {
    case Topic::kPodBound:
      if (api_.pod(message.pod).phase == PodPhase::kDeleted) break;  // a binding the API server refused
      resident(message.pod).spread = message.value != 0;
      // Dynamic MIG: instances named for a pod on its way are not idle (no re-partition).
      if (setup_[message.node].mig_dynamic) incoming_[message.node] |= message.gpus;
      if (state_[message.node] == NodeState::kLost) {
        waiting_[message.node].push_back(message.pod);  // no kubelet answers until it is back
      } else if (settings_.bind_latency > core::Time::zero()) {
        bus_.set_timer(*this, kAdmit, message.pod, now + settings_.bind_latency);
      } else {
        admit(message.pod, now);
      }
      break;
    case Topic::kGpuEvent:
      message.gpus.for_each([&](int g) { gpu_event(message.node, g, static_cast<int>(message.value), now); });
      break;
    case Topic::kNodeJoined:
    case Topic::kNodeRemoved:
    case Topic::kNodeLost:
    case Topic::kNodeRecovered:
      node_event(message, now);
      break;
    case Topic::kPodTerminated: {
      // Evicted by the taint manager while its node was lost, or deleted with its failed Job
      // before a kubelet admitted it: forget what it held there.
      const bool job_failed = message.reason == Reason::kBackoffLimitExceeded ||
                              message.reason == Reason::kDeadlineExceeded || message.reason == Reason::kPodFailurePolicy;
      if (message.reason == Reason::kEvicted || job_failed) {
        auto& waiting = waiting_[message.node];
        if (const auto it = std::find(waiting.begin(), waiting.end(), message.pod); it != waiting.end()) {
          waiting.erase(it);
          incoming_[message.node] -= api_.pod(message.pod).gpus;
        }
      }
      if (message.reason == Reason::kEvicted && message.pod < residents_.size() && residents_[message.pod].holds) {
        release(message.pod, now);
      }
      break;
    }
    case Topic::kPodKill:
      // Its Job failed and the Job controller deleted it: the kubelet stops its containers (a
      // kubelet whose node is lost does not hear of it until the node is back).
      if (message.pod < residents_.size() && residents_[message.pod].holds) {
        if (state_[static_cast<std::size_t>(residents_[message.pod].node)] == NodeState::kUp) {
          cancel_finish(message.pod);
          end(message.pod, message.reason, now);
        }
      } else if (api_.pod(message.pod).phase == PodPhase::kBound) {
        // Bound but not admitted yet (its admission waits out the bind latency, or its node is
        // lost): it holds nothing here and ends now; its admission, if still due, is refused.
        resident(message.pod).killed = true;
        auto& waiting = waiting_[message.node];
        if (const auto it = std::find(waiting.begin(), waiting.end(), message.pod); it != waiting.end()) waiting.erase(it);
        incoming_[message.node] -= api_.pod(message.pod).gpus;
        bus_.publish(pod_terminated(message.pod, message.source, message.node, message.reason, api_.pod(message.pod).gpus), now);
      }
      break;
    case Topic::kEvictRequest:
      evict(message.pod, message.value, now);
      break;
    case Topic::kMigReconfigure:
      reconfigure(message.node, static_cast<int>(message.value), static_cast<int>(message.layout), now);
      break;
    case Topic::kPluginRestart:
      if (state_[message.node] != NodeState::kUp) break;  // nothing runs on a node that is down
      registered_[message.node] = 0;
      status_changed(message.node, now);
      bus_.set_timer(*this, kRegister, message.node, now + core::Time::from_micros(message.value));
      break;
    default:
      break;
  }
}

void KubeletFleet::on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) {
  switch (tag) {
    case kAdmit: admit(static_cast<PodId>(payload), now); break;
    case kReconfigured: {
      const auto n = static_cast<std::uint32_t>(payload >> 8);
      const auto g = static_cast<int>(payload & 0xFF);
      const std::size_t first = gpu_offset_[n] + static_cast<std::size_t>(g * setup_[n].replicas());
      set_layout(n, g, mig_target_[first]);
      mig_target_[first] = kNoInstance;
      if (state_[n] == NodeState::kUp) status_changed(n, now);
      break;
    }
    case kStart: start(static_cast<PodId>(payload), now); break;
    case kRestart: restart(static_cast<PodId>(payload), now); break;
    case kTerminate: {
      // The termination grace period after its node was removed is over.
      const PodId pod = static_cast<PodId>(payload);
      if (!residents_[pod].holds) break;  // it finished its work first
      cancel_finish(pod);
      end(pod, Reason::kNodeRemoved, now);
      break;
    }
    case kFinish: {
      const PodId pod = static_cast<PodId>(payload);
      residents_[pod].finish_timer = kNoTimer;
      if (progress_.holds(pod) && pods_[api_.pod(pod).source].phase != cluster::TracePhase::kPending) {
        sharing_.slowdowns.push_back(progress_.slowdown(pod, now));
        sharing_.pods_with_corunners += progress_.had_corunner(pod);
        sharing_.pods_with_measured_pair += progress_.had_measured_pair(pod);
      }
      if (residents_[pod].mig_slowdown > 0) sharing_.mig_slowdowns.push_back(residents_[pod].mig_slowdown);
      Reason reason = Reason::kSucceeded;
      switch (pods_[api_.pod(pod).source].phase) {
        case cluster::TracePhase::kFailed: reason = Reason::kTraceFailed; break;
        case cluster::TracePhase::kPending: reason = Reason::kDeletedByOwner; break;
        default: break;
      }
      end(pod, reason, now);
      break;
    }
    case kPublish: {
      const auto n = static_cast<std::uint32_t>(payload);
      publish_queued_[n] = 0;
      publish_status(n, now);
      break;
    }
    case kRegister:
      registered_[payload] = 1;
      status_changed(static_cast<std::uint32_t>(payload), now);
      break;
    case kFree: {
      // The 1.6 GPU manager lets go of a terminated pod's GPUs.
      const PodId pod = static_cast<PodId>(payload);
      Resident& r = residents_[pod];
      truth_.release(ghost_spec(r.ghost), {static_cast<cluster::NodeIndex>(r.node), r.ghost}, false);
      Message freed;
      freed.topic = Topic::kGpusReleased;
      freed.pod = pod;
      freed.node = static_cast<std::uint32_t>(r.node);
      freed.gpus = r.ghost;
      r.ghost = {};
      bus_.publish(freed, now);
      break;
    }
    default:
      break;
  }
}

void KubeletFleet::node_event(const Message& message, core::Time now) {
  const std::uint32_t n = message.node;
  switch (message.topic) {
    case Topic::kNodeJoined:
      if (state_[n] != NodeState::kAbsent) return;  // it is there already
      state_[n] = NodeState::kUp;
      set_gpus_present(n, true, now);
      status_changed(n, now);  // what changed while it was away (a MIG re-partition) shows
      if (settings_.gpu_operator_delay() > core::Time::zero() && truth_.node(n).gpu_count > 0) {
        // It registers without GPUs: its first status says so at once.
        registered_[n] = 0;
        publish_status(n, now);
        bus_.set_timer(*this, kRegister, n, now + settings_.gpu_operator_delay());
      }
      break;
    case Topic::kNodeRemoved: {
      if (state_[n] == NodeState::kAbsent) return;
      state_[n] = NodeState::kAbsent;
      set_gpus_present(n, false, now);
      // Its pods get SIGTERM: they end when they finish or when the grace period is over.
      const std::vector<PodId> residents = on_node_[n];
      for (const PodId pod : residents) {
        if (settings_.termination_grace_period > core::Time::zero()) {
          bus_.set_timer(*this, kTerminate, pod, now + settings_.termination_grace_period);
        } else {
          cancel_finish(pod);
          end(pod, Reason::kNodeRemoved, now);
        }
      }
      for (const PodId pod : waiting_[n]) {
        incoming_[n] -= api_.pod(pod).gpus;
        bus_.publish(pod_terminated(pod, api_.pod(pod).source, n, Reason::kNodeRemoved), now);
      }
      waiting_[n].clear();
      break;
    }
    case Topic::kNodeLost:
      if (state_[n] != NodeState::kUp) return;  // only a running node can be lost
      // The machine is down: its containers stop; nobody tells the API server.
      state_[n] = NodeState::kLost;
      for (const PodId pod : on_node_[n]) {
        cancel_finish(pod);
        stop_shared(pod, now);
      }
      break;
    case Topic::kNodeRecovered: {
      if (state_[n] != NodeState::kLost) return;  // only a lost node can come back
      state_[n] = NodeState::kUp;
      status_changed(n, now);  // what changed while it was down (a MIG re-partition) shows
      // The kubelet restarts and reports the containers that died with the node.
      const std::vector<PodId> residents = on_node_[n];
      for (const PodId pod : residents) end(pod, Reason::kNodeLost, now);
      const std::vector<PodId> waiting = std::move(waiting_[n]);
      waiting_[n].clear();
      for (const PodId pod : waiting) admit(pod, now);
      break;
    }
    default:
      break;
  }
}

void KubeletFleet::cancel_finish(PodId id) {
  Resident& r = residents_[id];
  if (r.finish_timer != kNoTimer) bus_.cancel_timer(r.finish_timer);
  r.finish_timer = kNoTimer;
}

void KubeletFleet::admit(PodId id, core::Time now) {
  const PodObject& object = api_.pod(id);
  if (object.node >= 0 && setup_[static_cast<std::size_t>(object.node)].mig_dynamic) {
    incoming_[static_cast<std::size_t>(object.node)] -= object.gpus;
  }
  if (object.phase != PodPhase::kBound || resident(id).killed) return;  // evicted or deleted meanwhile
  const auto bound_to = static_cast<std::uint32_t>(object.node);
  if (state_[bound_to] == NodeState::kLost) {
    waiting_[bound_to].push_back(id);  // bound while the bind was in flight; no kubelet answers
    return;
  }
  if (state_[bound_to] == NodeState::kAbsent) {
    bus_.publish(pod_terminated(id, object.source, bound_to, Reason::kNodeRemoved), now);
    return;
  }
  const cluster::PodSpec& pod = pods_[object.source];
  const auto n = static_cast<std::uint32_t>(object.node);
  const NodeSetup& setup = setup_[n];
  const cluster::NodeSpec& node = truth_.node(n);
  cluster::Placement placement{n, {}};
  std::vector<cluster::GpuSet> containers;
  bool ok = truth_.cpu_free(n) >= pod.cpu_milli && truth_.memory_free(n) >= pod.memory_mib &&
            truth_.rdma_free(n) >= pod.rdma_percent && truth_.app_has_room(pod, n) && truth_.has_pod_room(n);
  if (ok && pod.wants_gpu()) {
    cluster::GpuSet unhealthy = mig_absent(n);
    for (int g = 0; g < node.gpu_count; ++g) {
      if (!truth_.gpu_healthy(n, g)) unhealthy.add(g);
    }
    const Advertisement ad = advertise(setup.model, node.gpu_count, unhealthy, registered_[n] != 0);
    if (scheduler_picks_gpus(setup.model) || setup.mig_dynamic) {
      // Allocate honours the annotation, if those devices are advertised and have room (dynamic
      // MIG: HAMi's scheduler names the instances, which must still be of the pod's profile).
      placement.gpus = object.gpus;
      ok = !placement.gpus.intersects(ad.unadvertised) && truth_.fits(pod, placement);
      for (int d = 0; d < node.gpu_count && ok && setup.mig_dynamic; ++d) {
        ok = !placement.gpus.contains(d) || 1 + shape_of(n, d) == pod.device_class;
      }
      if (ok) containers = split_by_container(pod, placement.gpus);
    } else {
      cluster::GpuSet available;
      const auto unallocated = truth_.gpu_milli_unallocated(n);
      const bool by_profile = setup.model == DevicePluginModel::kMig && setup.mig_strategy == MigStrategy::kMixed;
      for (int g = 0; g < node.gpu_count; ++g) {
        // MIG mixed: the pod's resource is one instance profile.
        if (by_profile && 1 + slot_shape_[gpu_offset_[n] + static_cast<std::size_t>(g)] != pod.device_class) continue;
        // vGPU: the pod's resource is one vGPU type.
        if (setup.model == DevicePluginModel::kKubevirtVgpu &&
            setup.vgpu_devices[static_cast<std::size_t>(g % setup.replicas())].device_class != pod.device_class) {
          continue;
        }
        if (!ad.unadvertised.contains(g) && unallocated[static_cast<std::size_t>(g)] == cluster::kMilliPerGpu) available.add(g);
      }
      if (shared_node(n) && setup.sharing.fail_requests_greater_than_one && asks_several(pod)) {
        // The plugin's Allocate refuses a container asking more than one replica. The device
        // manager calls it once it has found the devices: enough available replicas (it takes any
        // of them), so the refusal counts only then. No allocation need be worked out.
        ok = false;
        if (pod.gpu_milli == cluster::kMilliPerGpu && available.size() >= pod.gpu_count) ++sharing_.refused_multi_replica;
      } else {
        auto chosen = chooser_.allocate(n, pod, available);
        ok = chosen.has_value() && pod.gpu_milli == cluster::kMilliPerGpu && chosen->all.size() == pod.gpu_count;
        if (ok) {
          placement.gpus = chosen->all;
          containers = std::move(chosen->containers);
          if (shared_node(n)) count_replica_spread(placement.gpus, setup.replicas());
        }
      }
    }
  }
  Message message;
  message.pod = id;
  message.source = object.source;
  message.node = n;
  if (!ok) {
    message.topic = Topic::kPodTerminated;
    message.reason = Reason::kUnexpectedAdmissionError;
    bus_.publish(message, now);
    return;
  }
  truth_.allocate(pod, placement);
  mig_account(n, placement.gpus, +1, now);
  Resident& r = resident(id);
  r.node = static_cast<std::int32_t>(n);
  r.gpus = placement.gpus;
  r.containers = std::move(containers);
  r.holds = true;
  if (setup.model == DevicePluginModel::kMig && !placement.gpus.empty()) {
    int slices = 0;
    placement.gpus.for_each([&](int d) { slices += setup.mig_geometry->profiles[static_cast<std::size_t>(shape_of(n, d))].compute_slices; });
    r.mig_share_milli = slices * cluster::kMilliPerGpu / (7 * placement.gpus.size());
  }
  on_node_[n].push_back(id);
  count_pods(n, placement.gpus, +1);
  message.topic = Topic::kPodAdmitted;
  message.gpus = placement.gpus;
  bus_.publish(message, now);
  // A VM powers its vGPUs on as it boots; its workload starts once the guest is up.
  const bool vm = setup.model == DevicePluginModel::kKubevirtVgpu && pod.wants_gpu();
  if (vm) power_vgpus(id, +1, now);
  const core::Time start_after = settings_.container_start_latency + (vm ? setup.vgpu.boot_time : core::Time::zero());
  if (start_after > core::Time::zero()) {
    bus_.set_timer(*this, kStart, id, now + start_after);
  } else {
    start(id, now);
  }
}

void KubeletFleet::start(PodId id, core::Time now) {
  Resident& r = residents_[id];
  // Its GPU failed before the containers started, or its node went down.
  if (!r.holds || state_[static_cast<std::size_t>(r.node)] != NodeState::kUp) return;
  bus_.publish(about_container(Topic::kPodRunning, id), now);
  // restartPolicy OnFailure: a GPU lost since admission fails the container as it starts (a pod
  // that is not restarted in place was ended when its GPU was lost).
  if (restarts_in_place(id) && gpu_lost(id)) {
    restart_in_place(id, Reason::kGpuLost, now);
    return;
  }
  launch(id, now);
}

Message KubeletFleet::about_container(Topic topic, PodId id) const {
  const Resident& r = residents_[id];
  Message message;
  message.topic = topic;
  message.pod = id;
  message.source = api_.pod(id).source;
  message.node = static_cast<std::uint32_t>(r.node);
  message.gpus = r.gpus;
  return message;
}

void KubeletFleet::launch(PodId id, core::Time now) {
  Resident& r = residents_[id];
  const std::uint32_t source = api_.pod(id).source;
  const auto n = static_cast<std::uint32_t>(r.node);
  r.containers_up = true;
  core::Time duration = run_time(id, now);
  r.full_run = duration;
  // A replacement of an evicted pod resumes from its last checkpoint: its run takes the remaining
  // work's share of the whole run here, rounded up (integers, so that nothing is lost or gained).
  const cluster::PodSpec& spec = pods_[source];
  const std::int64_t remaining = remaining_work_[source];
  if (spec.phase != cluster::TracePhase::kPending && spec.duration && remaining < spec.duration->micros()) {
    duration = core::Time::from_micros(core::mul_div_ceil(duration.micros(), remaining, spec.duration->micros()));
  }
  r.run_for = duration;
  r.started = now;
  // Starts and durations are each within range, but a long chain of them may not be.
  if (static_cast<double>(now.micros()) + static_cast<double>(duration.micros()) > kMaxSimulatedMicros) {
    throw core::InputError(fmt::format("pod {} would end past the simulated time range ({} us)",
                                       pods_[source].name, kMaxSimulatedMicros));
  }
  if (shared_node(n) && pods_[source].wants_gpu()) {
    start_shared(id, duration, now);
    return;
  }
  r.finish_timer = bus_.set_timer(*this, kFinish, id, now + duration);
  if (settings_.memory_model && setup_[n].model == DevicePluginModel::kMig && pods_[source].wants_gpu()) {
    check_mig_memory(id, now);
  }
}

// MIG instances have memory of their own: a pod that uses more than its instance has fails alone.
void KubeletFleet::check_mig_memory(PodId id, core::Time now) {
  Resident& r = residents_[id];
  const NodeSetup& setup = setup_[static_cast<std::size_t>(r.node)];
  const cluster::PodSpec& pod = pods_[api_.pod(id).source];
  double limit = 1;
  r.gpus.for_each([&](int d) {
    limit = std::min(limit, setup.mig_geometry->memory_share(shape_of(static_cast<std::uint32_t>(r.node), d)));
  });
  r.overruns = draws_overrun(id);
  if (r.restarts == 0) sharing_.overrunning_pods += r.overruns;
  // Its request: its fraction of a GPU (mixed: it asked a profile that has that much memory), or
  // its whole instance (a whole GPU, or a device under strategy single).
  // A pod that named its profile asked that instance's memory.
  const bool named = pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kMigProfile;
  const double request = setup.mig_strategy == MigStrategy::kMixed && pod.asked_share() < 1 && !named ? pod.asked_share() : limit;
  constexpr double kSlack = 1e-9;
  if (request * (r.overruns ? settings_.memory_overrun_factor : 1.0) > limit + kSlack) oom_kill(id, false, now);
}

bool KubeletFleet::draws_overrun(PodId id) const {
  // Keyed on the trace row and the attempt, not the pod id (ids follow creation order).
  const PodObject& object = api_.pod(id);
  std::uint64_t state = run_time_.seed ^ (0x9E3779B97F4A7C15ULL * (std::uint64_t{object.source} + 1)) ^
                        (0xC2B2AE3D27D4EB4FULL * (static_cast<std::uint64_t>(object.attempt) + 1));
  return core::Rng(core::splitmix64(state)).uniform_unit() < settings_.memory_overrun_probability ||
         always_overruns_[object.source] != 0;
}

void KubeletFleet::physical_gpus(const Resident& r, std::vector<std::uint32_t>& out) const {
  const auto n = static_cast<std::uint32_t>(r.node);
  const NodeSetup& setup = setup_[n];
  out.clear();
  r.gpus.for_each([&](int d) {
    out.push_back(static_cast<std::uint32_t>(physical_offset_[n] + static_cast<std::size_t>(setup.speed_unit(d))));
  });
}

void KubeletFleet::evict(PodId id, std::int64_t kind, core::Time now) {
  const bool preemption = kind >= 1;   // counted as preemptions (round suspensions too)
  const bool at_checkpoint = kind >= 2;
  if (id >= residents_.size() || !residents_[id].holds) return;  // it ended meanwhile
  Resident& r = residents_[id];
  const auto n = static_cast<std::uint32_t>(r.node);
  if (state_[n] != NodeState::kUp || shared_node(n)) return;
  const PodObject& object = api_.pod(id);
  const cluster::PodSpec& pod = pods_[object.source];
  double lost_gpu_s = 0;
  if (r.finish_timer != kNoTimer && pod.phase != cluster::TracePhase::kPending && r.run_for > core::Time::zero()) {
    // Running: the work up to its last checkpoint is kept, the rest is lost (none when it was
    // told to checkpoint first, as a time-sharing round's end does).
    const std::int64_t elapsed = (now - r.started).micros();  // since its container (re)started
    const std::int64_t period = settings_.checkpoint_interval.micros();
    const std::int64_t kept = at_checkpoint ? elapsed : elapsed / period * period;
    // Work done, in microseconds of the trace run time: the kept time's share of the whole run
    // here, rounded down; all that was left if it ran its whole run.
    std::int64_t& remaining = remaining_work_[object.source];
    if (kept >= r.run_for.micros()) {
      remaining = 0;
    } else if (pod.duration && r.full_run > core::Time::zero()) {
      const std::int64_t done = core::mul_div_floor(kept, pod.duration->micros(), r.full_run.micros());
      remaining -= std::min(remaining, done);
    }
    lost_gpu_s = static_cast<double>(elapsed - kept) / 1e6 * static_cast<double>(pod.total_gpu_milli()) / 1000.0;
  }
  cancel_finish(id);
  if (preemption) {
    ++evictions_.preemptions;
    evictions_.preempted_lost_gpu_s += lost_gpu_s;
  } else {
    ++evictions_.evictions;
    evictions_.lost_gpu_s += lost_gpu_s;
  }
  // The job ledger learns the share still to do from the message, as an operator reads a job's
  // checkpoint step.
  const cluster::GpuSet gpus = r.gpus;
  release(id, now);
  const Reason reason = kind == 2 ? Reason::kSuspended : preemption ? Reason::kPreempted : Reason::kDescheduled;
  Message ended = pod_terminated(id, object.source, n, reason, gpus);
  ended.value = remaining_work_[object.source];
  bus_.publish(ended, now);
}

void KubeletFleet::start_shared(PodId id, core::Time duration, core::Time now) {
  Resident& r = residents_[id];
  physical_gpus(r, scratch_gpus_);
  // Several replicas of one GPU are still one container on one device: one process in the time
  // share, not one per replica (the list is in GPU order, so repeats are adjacent). A VM's vGPUs
  // are GPUs of their own to it: each is a process, and the vGPU scheduler gives each its share.
  const cluster::PodSpec& pod = pods_[api_.pod(id).source];
  if (setup_[static_cast<std::size_t>(r.node)].model != DevicePluginModel::kKubevirtVgpu) {
    scratch_gpus_.erase(std::unique(scratch_gpus_.begin(), scratch_gpus_.end()), scratch_gpus_.end());
  }
  const double demand = std::clamp(pod.gpu_demand(), 1e-3, 1.0);
  // A trace-Pending pod runs until its owner deletes it, whatever its speed.
  const bool fixed_end = pod.phase == cluster::TracePhase::kPending;
  // HAMi caps a pod's compute at its gpucores (the share it asked), if it asked any.
  const NodeSetup& node = setup_[static_cast<std::size_t>(r.node)];
  const bool manifest_hami = pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kHamiVgpu;
  GPUSIM_CHECK(!r.gpus.empty(), "a pod on a shared GPU holds a device");
  // A MIG-backed vGPU runs on its GPU instance's SMs alone.
  const double instance = node.vgpu_mig_backed() ? node.vgpu_devices[static_cast<std::size_t>(r.gpus.lowest() % node.replicas())].compute_share : 1.0;
  const double core_cap = node.vgpu_mig_backed() ? instance
                          : node.model != DevicePluginModel::kHamiVgpu ? 1.0
                          : manifest_hami ? (pod.constraints->hami.cores_percent > 0 ? pod.constraints->hami.cores_percent / 100.0 : 1.0)
                          : node.hami.fraction_asks_cores ? std::clamp(pod.gpu_milli / double{cluster::kMilliPerGpu}, 1e-3, 1.0)
                                                          : 1.0;
  // With Gavel's table, a job of a known type beside one other runs at their measured pair speed.
  std::int32_t pair_class = -1;
  if (sharing_.measured_pairs && pod.job_type >= 0) {
    if (const auto worker = run_time_.job_types->worker_type_of(truth_.node(static_cast<std::uint32_t>(r.node)).gpu_model)) {
      pair_class = run_time_.job_types->pair_class(pod, *worker, r.spread);
    }
  }
  progress_.add(id, scratch_gpus_, demand, static_cast<double>(duration.micros()), fixed_end, now, core_cap, pair_class);
  if (fixed_end) r.finish_timer = bus_.set_timer(*this, kFinish, id, now + duration);
  retime();
  Resident& started = residents_[id];
  started.overruns = settings_.memory_model && draws_overrun(id);
  started.memory = memory_request(id) * (started.overruns ? settings_.memory_overrun_factor : 1.0);
  charge_memory(id, +1, now);
  if (settings_.memory_model) check_memory(id, now);
}

void KubeletFleet::charge_memory(PodId id, int sign, core::Time now) {
  physical_gpus(residents_[id], scratch_memory_gpus_);
  for (const std::uint32_t g : scratch_memory_gpus_) {
    if (now > memory_since_[g]) {
      memory_seconds_[g] += gpu_memory_[g] * static_cast<double>((now - memory_since_[g]).micros()) / 1e6;
      memory_since_[g] = now;
    }
    gpu_memory_[g] += sign * residents_[id].memory;
  }
}

// What a pod on a shared GPU uses of its memory when it does not overrun: gpushare and HAMi, its
// ask; time-slicing and MPS, its fraction, or 1/replicas for a whole device.
double KubeletFleet::memory_request(PodId id) const {
  const Resident& r = residents_[id];
  const NodeSetup& setup = setup_[static_cast<std::uint32_t>(r.node)];
  const cluster::PodSpec& pod = pods_[api_.pod(id).source];
  const bool asks_memory = setup.model == DevicePluginModel::kGpushare || setup.model == DevicePluginModel::kHamiVgpu;
  // HAMi with gpumem alone asks fraction / deviceMemoryScaling of the registered memory, which is
  // its fraction of the physical memory again.
  // A manifest's gpumem is a share of the registered memory too.
  const bool manifest_hami = pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kHamiVgpu;
  const double registered = setup.model == DevicePluginModel::kHamiVgpu && (!setup.hami.fraction_asks_cores || manifest_hami)
                                ? setup.hami.device_memory_scaling
                                : 1.0;
  if (asks_memory) return std::min(1.0, pod.gpu_milli * registered / double{cluster::kMilliPerGpu});
  // A fraction asked as one device uses that fraction of the memory, whatever its compute demand.
  const double fraction = pod.asked_share();
  if (fraction < 1) return fraction;
  return setup.model == DevicePluginModel::kKubevirtVgpu ? vgpu_framebuffer(r) : 1.0 / setup.replicas();
}

double KubeletFleet::vgpu_framebuffer(const Resident& r) const {
  const NodeSetup& setup = setup_[static_cast<std::uint32_t>(r.node)];
  const int first = r.gpus.lowest();
  return first < 0 ? 0 : setup.vgpu_devices[static_cast<std::size_t>(first % setup.replicas())].framebuffer_share;
}

void KubeletFleet::power_vgpus(PodId id, int delta, core::Time now) {
  physical_gpus(residents_[id], scratch_power_gpus_);
  // One per vGPU: a VM with two vGPUs of one GPU powers two on.
  for (const std::uint32_t g : scratch_power_gpus_) {
    progress_.power(g, delta, now);
    retime();
  }
}

// The pod has just started on a shared GPU and been charged its use (start_shared): with
// gpuMemory, it may overrun (a seeded draw per pod object, so the same pods overrun whatever the
// order of events), and pods fail as the mode fails them when the memory runs out.
void KubeletFleet::check_memory(PodId id, core::Time now) {
  Resident& r = residents_[id];
  const auto n = static_cast<std::uint32_t>(r.node);
  const NodeSetup& setup = setup_[n];
  const double request = memory_request(id);
  if (r.restarts == 0) sharing_.overrunning_pods += r.overruns;  // a pod, not each start of its container
  constexpr double kSlack = 1e-9;  // sums of shares are not exact
  if (setup.model == DevicePluginModel::kMps) {
    // Each MPS client is limited to its replica's share: only a pod past it fails.
    if (r.memory > 1.0 / setup.replicas() + kSlack) oom_kill(id, false, now);
    return;
  }
  if (setup.model == DevicePluginModel::kKubevirtVgpu) {
    // A vGPU's framebuffer is its own: only the VM past it fails.
    if (r.memory > vgpu_framebuffer(r) + kSlack) oom_kill(id, false, now);
    return;
  }
  if (setup.model == DevicePluginModel::kHamiVgpu) {
    // libvgpu.so fails allocations past the pod's gpumem inside that pod only.
    if (r.memory > request + kSlack) oom_kill(id, false, now);
    return;
  }
  // No isolation: an allocation fails in whichever process asks when the GPU is full, so pods on
  // it die at random (the newcomer or a neighbour) until the rest fit.
  physical_gpus(r, scratch_memory_gpus_);
  std::array<std::uint32_t, cluster::kMaxGpusPerNode> gpus;
  const std::size_t count = scratch_memory_gpus_.size();
  std::copy(scratch_memory_gpus_.begin(), scratch_memory_gpus_.end(), gpus.begin());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t g = gpus[i];
    while (gpu_memory_[g] > 1 + kSlack) {
      progress_.pods_on(g, scratch_victims_);
      GPUSIM_CHECK(!scratch_victims_.empty(), "GPU memory in use on a GPU without pods");
      const PodId victim = scratch_victims_[static_cast<std::size_t>(oom_rng_.uniform_below(scratch_victims_.size()))];
      oom_kill(victim, victim != id, now);
    }
  }
}

void KubeletFleet::oom_kill(PodId id, bool neighbour, core::Time now) {
  const Resident& r = residents_[id];
  ++sharing_.oom_kills;
  sharing_.oom_neighbours += neighbour;
  // Its containers' start (the API server records Running only when that message is delivered).
  sharing_.oom_run_hours_lost += static_cast<double>((now - r.started).micros()) / 3.6e9;
  if (restart_in_place(id, Reason::kOomKilled, now)) return;
  cancel_finish(id);
  end(id, Reason::kOomKilled, now);
}

bool KubeletFleet::restarts_in_place(PodId id) const {
  const cluster::PodSpec& pod = pods_[api_.pod(id).source];
  return pod.constraints != nullptr && pod.constraints->restart_on_failure;
}

bool KubeletFleet::gpu_lost(PodId id) const {
  const Resident& r = residents_[id];
  const auto n = static_cast<std::uint32_t>(r.node);
  bool lost = false;
  r.gpus.for_each([&](int d) { lost = lost || !truth_.gpu_healthy(n, d); });
  return lost;
}

bool KubeletFleet::restart_in_place(PodId id, Reason reason, core::Time now) {
  if (!restarts_in_place(id)) return false;
  Resident& r = residents_[id];
  cancel_finish(id);
  stop_shared(id, now);
  r.crashed_for = reason;
  Message failed = about_container(Topic::kContainerFailed, id);
  failed.reason = reason;
  failed.value = r.containers_up ? 1 : 0;
  r.containers_up = false;
  bus_.publish(failed, now);
  // kuberuntime's doBackOff with the container's finish time `now`: no live entry, it restarts at
  // once and the entry starts at 10 s; else it waits out the entry's back-off, and the restart
  // doubles it (capped at 300 s). An entry lapses when the container ran more than twice the
  // maximum since it was last updated (a container that ran 10 min starts over at 10 s).
  const bool live = r.backoff > core::Time::zero() && (now - r.backoff_updated) <= kCrashLoopMax + kCrashLoopMax;
  const core::Time at = live ? now + r.backoff : now;
  r.backoff = live ? std::min(r.backoff + r.backoff, kCrashLoopMax) : kCrashLoopInitial;
  r.backoff_updated = at;
  r.restart_timer = bus_.set_timer(*this, kRestart, id, at);
  return true;
}

void KubeletFleet::restart(PodId id, core::Time now) {
  Resident& r = residents_[id];
  r.restart_timer = kNoTimer;
  if (!r.holds || state_[static_cast<std::size_t>(r.node)] != NodeState::kUp) return;
  r.crashed_for = Reason::kNone;
  ++r.restarts;
  Message restarted = about_container(Topic::kContainerRestarted, id);
  restarted.value = r.restarts;
  bus_.publish(restarted, now);
  // A container whose GPU fell off the bus (before it failed, or while it waited) fails again at
  // once: the device is still the pod's, and CUDA finds no GPU (it crash-loops until the GPU is
  // repaired or its Job gives up).
  if (gpu_lost(id)) {
    restart_in_place(id, Reason::kGpuLost, now);
    return;
  }
  launch(id, now);
}

void KubeletFleet::set_gpus_present(std::uint32_t n, bool present, core::Time now) {
  if (!shared_node(n)) return;
  progress_.set_present(static_cast<std::uint32_t>(physical_offset_[n]),
                        static_cast<std::uint32_t>(physical_offset_[n + 1] - physical_offset_[n]), present, now);
}

KubeletFleet::UsageCounters KubeletFleet::node_usage(std::uint32_t node, core::Time now) const {
  UsageCounters usage;
  for (std::size_t g = physical_offset_[node]; g < physical_offset_[node + 1]; ++g) {
    const auto gpu = static_cast<std::uint32_t>(g);
    usage.busy_gpu_s += progress_.busy_seconds(gpu, now);
    usage.memory_gpu_s += memory_seconds_[g];
    if (now > memory_since_[g]) usage.memory_gpu_s += gpu_memory_[g] * static_cast<double>((now - memory_since_[g]).micros()) / 1e6;
  }
  return usage;
}

KubeletFleet::UsageCounters KubeletFleet::pod_usage(PodId id, core::Time now) const {
  UsageCounters usage;
  if (!progress_.holds(id)) return usage;
  const Resident& r = residents_[id];
  const cluster::PodSpec& pod = pods_[api_.pod(id).source];
  // One process per physical GPU it holds (replicas of one GPU are one process), each busy at its
  // demand times the pod's rate, which is what its work advances by; its memory on every device.
  const NodeSetup& setup = setup_[static_cast<std::uint32_t>(r.node)];
  const int replicas = setup.replicas();
  int processes = 0;
  int last = -1;
  r.gpus.for_each([&](int d) {
    processes += d / replicas != last;
    last = d / replicas;
  });
  // A VM's vGPUs are a process each.
  if (setup.model == DevicePluginModel::kKubevirtVgpu) processes = r.gpus.size();
  const double demand = std::clamp(pod.gpu_demand(), 1e-3, 1.0);
  usage.busy_gpu_s = demand * processes * progress_.work_done_us(id, now) / 1e6;
  if (now > r.started) usage.memory_gpu_s = r.memory * r.gpus.size() * static_cast<double>((now - r.started).micros()) / 1e6;
  return usage;
}

void KubeletFleet::stop_shared(PodId id, core::Time now) {
  if (!progress_.holds(id)) return;
  charge_memory(id, -1, now);
  progress_.remove(id, now);
  retime();
}

// Moves the finish events of the pods whose speed the last change altered.
void KubeletFleet::retime() {
  for (const SharedProgress::Finish& finish : progress_.moved()) {
    cancel_finish(finish.pod);
    if (static_cast<double>(finish.at.micros()) > kMaxSimulatedMicros) {
      throw core::InputError(fmt::format("pod {} would end past the simulated time range ({} us) at its shared GPU's speed",
                                         pods_[api_.pod(finish.pod).source].name, kMaxSimulatedMicros));
    }
    residents_[finish.pod].finish_timer = bus_.set_timer(*this, kFinish, finish.pod, finish.at);
  }
}

void KubeletFleet::count_replica_spread(cluster::GpuSet devices, int replicas) {
  if (devices.size() < 2) return;
  cluster::GpuSet physical;
  devices.for_each([&](int d) { physical.add(d / replicas); });
  sharing_.split_across_gpus += physical.size() > 1;
  sharing_.stacked_on_one_gpu += physical.size() < devices.size();
}

SharingReport KubeletFleet::sharing_report(core::Time end) {
  sharing_.totals = progress_.totals(end);
  if (end > mig_last_change_) {
    sharing_.mig_slice_seconds += static_cast<double>(mig_slices_in_use_) * static_cast<double>((end - mig_last_change_).micros()) / 1e6;
    mig_last_change_ = end;
  }
  sharing_.mig_span_s = std::max(0.0, static_cast<double>((end - first_arrival_).micros()) / 1e6);
  return sharing_;
}

void KubeletFleet::end(PodId id, Reason reason, core::Time now) {
  const Resident& r = residents_[id];
  const auto n = static_cast<std::uint32_t>(r.node);
  const cluster::GpuSet gpus = r.gpus;
  release(id, now);
  bus_.publish(pod_terminated(id, api_.pod(id).source, n, reason, gpus), now);
}

void KubeletFleet::release(PodId id, core::Time now) {
  Resident& r = residents_[id];
  if (r.restart_timer != kNoTimer) bus_.cancel_timer(r.restart_timer);
  r.restart_timer = kNoTimer;
  r.crashed_for = Reason::kNone;
  const PodObject& object = api_.pod(id);
  const cluster::PodSpec& pod = pods_[object.source];
  const auto n = static_cast<std::uint32_t>(r.node);
  const cluster::Placement placement{n, r.gpus};
  truth_.release(pod, placement);
  mig_account(n, r.gpus, -1, now);
  r.holds = false;
  stop_shared(id, now);
  if (setup_[n].model == DevicePluginModel::kKubevirtVgpu && pod.wants_gpu()) power_vgpus(id, -1, now);
  auto& list = on_node_[n];
  list.erase(std::find(list.begin(), list.end(), id));
  count_pods(n, r.gpus, -1);
  if (setup_[n].model == DevicePluginModel::kAccelerators16 && settings_.gpu_free_delay > core::Time::zero()) {
    // The GPU manager still counts the pod as active: its GPUs stay taken for the delay. A GPU
    // that failed meanwhile is not advertised anyway, so only the healthy ones are held.
    r.gpus.for_each([&](int g) {
      if (truth_.gpu_healthy(n, g)) r.ghost.add(g);
    });
    if (!r.ghost.empty()) {
      truth_.allocate(ghost_spec(r.ghost), {n, r.ghost}, false);
      bus_.set_timer(*this, kFree, id, now + settings_.gpu_free_delay);
    }
  }
}

void KubeletFleet::gpu_event(std::uint32_t n, int gpu, int xid, core::Time now) {
  // On a sharing node the GPU's replicas are its devices: they fail together.
  const int replicas = setup_[n].replicas();
  GPUSIM_CHECK((gpu + 1) * replicas <= truth_.node(n).gpu_count, "GPU event for a GPU the node does not have");
  if (xid != 0 && listed(settings_.ignored_xids, xid)) return;
  cluster::GpuSet devices;
  for (int d = gpu * replicas; d < (gpu + 1) * replicas; ++d) {
    devices.add(d);
    truth_.set_gpu_healthy(n, d, xid == 0);
  }
  // A node that is down reports nothing; what it finds on its GPUs shows when it is back.
  if (state_[n] != NodeState::kUp) return;
  status_changed(n, now);
  if (xid == 0 || !listed(settings_.fatal_xids, xid)) return;  // running pods are left alone
  // The GPU fell off the bus: every container using it dies.
  for (std::size_t i = 0; i < on_node_[n].size();) {
    const PodId id = on_node_[n][i];
    if (residents_[id].gpus.intersects(devices) && restarts_in_place(id)) {
      // Its container dies and restarts in place; one not running (not started yet, or waiting to
      // restart) finds the GPU lost when it starts.
      if (residents_[id].containers_up) restart_in_place(id, Reason::kGpuLost, now);
      ++i;  // it keeps its devices
    } else if (residents_[id].gpus.intersects(devices)) {
      cancel_finish(id);
      end(id, Reason::kGpuLost, now);  // removes it from the list
    } else {
      ++i;
    }
  }
}

void KubeletFleet::status_changed(std::uint32_t n, core::Time now) {
  if (publish_queued_[n]) return;
  const std::int64_t period = settings_.node_status_period.micros();
  // The next tick of the node's nodeStatusUpdateFrequency grid (kubelets tick from time 0).
  const std::int64_t at = period <= 0 ? now.micros() : (now.micros() + period - 1) / period * period;
  publish_queued_[n] = 1;
  bus_.set_timer(*this, kPublish, n, core::Time::from_micros(at));
}

void KubeletFleet::publish_status(std::uint32_t n, core::Time now) {
  const cluster::NodeSpec& node = truth_.node(n);
  cluster::GpuSet unhealthy = mig_absent(n);
  for (int g = 0; g < node.gpu_count; ++g) {
    if (!truth_.gpu_healthy(n, g)) unhealthy.add(g);
  }
  const Advertisement ad = advertise(setup_[n].model, node.gpu_count, unhealthy, registered_[n] != 0);
  const NodeStatus& published = api_.node_status(n);
  if (ad.allocatable == published.allocatable_gpus && ad.unadvertised == published.unadvertised &&
      mig_layouts_[n] == published.mig_layouts) {
    return;
  }
  Message status;
  status.topic = Topic::kNodeStatus;
  status.node = n;
  status.value = ad.allocatable;
  status.gpus = ad.unadvertised;
  status.layout = mig_layouts_[n];
  bus_.publish(status, now);
}

cluster::GpuSet KubeletFleet::mig_absent(std::uint32_t n) const {
  cluster::GpuSet absent;
  if (setup_[n].model != DevicePluginModel::kMig) return absent;
  for (int d = 0; d < truth_.node(n).gpu_count; ++d) {
    if (slot_shape_[gpu_offset_[n] + static_cast<std::size_t>(d)] == kNoInstance) absent.add(d);
  }
  return absent;
}

void KubeletFleet::set_layout(std::uint32_t n, int gpu, int layout) {
  const NodeSetup& setup = setup_[n];
  const int slots = setup.replicas();
  const std::vector<int>& shapes = setup.mig_layout(layout);
  for (int i = 0; i < slots; ++i) {
    slot_shape_[gpu_offset_[n] + static_cast<std::size_t>(gpu * slots + i)] =
        i < static_cast<int>(shapes.size()) ? static_cast<std::int8_t>(shapes[static_cast<std::size_t>(i)]) : kNoInstance;
  }
  if (setup.mig_dynamic) {
    constexpr std::uint64_t kReported = std::uint64_t{1} << 63;
    mig_layouts_[n] = (mig_layouts_[n] & ~(std::uint64_t{0xF} << (4 * gpu))) | (static_cast<std::uint64_t>(layout) << (4 * gpu)) | kReported;
  }
}

// Dynamic MIG: an idle, healthy GPU is re-partitioned; its instances are gone until the new ones
// are created (the device plugin then lists them). A GPU that took a pod meanwhile, failed or is
// being re-partitioned already keeps its layout.
void KubeletFleet::reconfigure(std::uint32_t n, int gpu, int layout, core::Time now) {
  const NodeSetup& setup = setup_[n];
  if (!setup.mig_dynamic || state_[n] != NodeState::kUp) return;
  const int slots = setup.replicas();
  const std::size_t first = gpu_offset_[n] + static_cast<std::size_t>(gpu * slots);
  if (mig_target_[first] != kNoInstance) return;
  const auto unallocated = truth_.gpu_milli_unallocated(n);
  for (int i = 0; i < slots; ++i) {
    const int d = gpu * slots + i;
    if (unallocated[static_cast<std::size_t>(d)] != cluster::kMilliPerGpu || !truth_.gpu_healthy(n, d) ||
        incoming_[n].contains(d)) {
      return;
    }
  }
  for (int i = 0; i < slots; ++i) slot_shape_[first + static_cast<std::size_t>(i)] = kNoInstance;
  mig_target_[first] = static_cast<std::int8_t>(layout);
  ++sharing_.mig_reconfigurations;
  sharing_.mig_reconfiguration_gpu_s += static_cast<double>(setup.mig_reconfigure_time.micros()) / 1e6;
  status_changed(n, now);
  bus_.set_timer(*this, kReconfigured, (std::uint64_t{n} << 8) | static_cast<std::uint64_t>(gpu), now + setup.mig_reconfigure_time);
}

// The compute slices MIG pods hold, integrated over time (their share of the MIG GPUs' slices).
void KubeletFleet::mig_account(std::uint32_t n, cluster::GpuSet devices, int sign, core::Time now) {
  if (setup_[n].model != DevicePluginModel::kMig) return;
  sharing_.mig_slice_seconds += static_cast<double>(mig_slices_in_use_) * static_cast<double>((now - mig_last_change_).micros()) / 1e6;
  mig_last_change_ = now;
  for (int d = 0; d < truth_.node(n).gpu_count; ++d) {
    if (devices.contains(d)) mig_slices_in_use_ += sign * setup_[n].mig_geometry->profiles[static_cast<std::size_t>(shape_of(n, d))].compute_slices;
  }
}

void KubeletFleet::count_pods(std::uint32_t n, cluster::GpuSet gpus, int delta) {
  gpus.for_each([&](int g) { pods_on_gpu_[gpu_offset_[n] + static_cast<std::size_t>(g)] += delta; });
}

// The trace duration, or with a performance model: scaled to the GPU the pod landed on and by the
// time-slicing overhead of its busiest GPU, both fixed at start; or with Gavel's throughput table,
// scaled to the job type's speed on the GPU it landed on. A trace-Pending pod runs until its
// owner deleted it (its deadline), whatever the GPU.
core::Time KubeletFleet::run_time(PodId id, core::Time now) {
  const std::uint32_t source = api_.pod(id).source;
  const cluster::PodSpec& pod = pods_[source];
  if (pod.phase == cluster::TracePhase::kPending) return std::max(core::Time::zero(), times_.deadline[source] - now);
  const Resident& r = residents_[id];
  const auto n = static_cast<std::uint32_t>(r.node);
  // A stated slowdown for the slowest link inside a multi-GPU placement.
  double link_factor = 1;
  if (r.gpus.size() >= 2) {
    if (const topology::Topology* topology = chooser_.topology_of(n)) {
      link_factor = settings_.link_slowdown[static_cast<std::size_t>(topology->worst_link(r.gpus))];
    }
  }
  // MIG: the pod runs on its instances' SMs alone (calibration design §5: the slice's own run
  // time, no co-runner effect), at the speed of its smallest instance.
  double mig_factor = 1;
  if (setup_[n].model == DevicePluginModel::kMig && pod.wants_gpu()) {
    double share = 1;
    r.gpus.for_each([&](int d) { share = std::min(share, setup_[n].mig_geometry->compute_share(shape_of(n, d))); });
    mig_factor = std::max(1.0, std::clamp(pod.gpu_demand(), 1e-3, 1.0) / share);
    residents_[id].mig_slowdown = mig_factor;
  }
  const cluster::GpuModelId model = truth_.node(n).gpu_model;
  // A job of a Gavel job type runs at the table's speed on its GPU type (its trace duration is
  // its time on a V100), consolidated or spread as its gang landed; the table's figures are whole
  // jobs' own, so no other model applies.
  if (run_time_.job_types != nullptr && pod.job_type >= 0) {
    return scaled_duration(pod, run_time_.job_types->time_factor(pod, model, r.spread) * link_factor * mig_factor);
  }
  // Without the table, a job the trace ran on one server, spread over nodes by scattered placement,
  // runs slower by the stated factor (a trace's own gangs ran spread: their durations say so).
  if (r.spread && pod.scattered) link_factor *= settings_.scatter_slowdown;
  if (run_time_.performance == nullptr || !pod.wants_gpu()) {
    if (link_factor * mig_factor == 1) return *pod.duration;
    return scaled_duration(pod, link_factor * mig_factor);
  }
  int sharing = 1;
  // Sharing nodes: the shared-GPU model sets the speed as co-runners come and go.
  if (!shared_node(n)) {
    r.gpus.for_each([&](int g) { sharing = std::max(sharing, pods_on_gpu_[gpu_offset_[n] + static_cast<std::size_t>(g)]); });
  }
  const double factor = run_time_.performance->time_factor(run_time_.job, model) *
                        run_time_.performance->time_slice_factor(model, sharing) * link_factor * mig_factor;
  return scaled_duration(pod, factor);
}

core::Time KubeletFleet::scaled_duration(const cluster::PodSpec& pod, double factor) {
  const double scaled = std::round(static_cast<double>(pod.duration->micros()) * factor);
  if (!(scaled <= kMaxSimulatedMicros)) {
    throw core::InputError(fmt::format("pod {}: run time scaled by its run-time model (performance model or throughput "
                                       "table: {}x) is out of range", pod.name, factor));
  }
  return core::Time::from_micros(static_cast<std::int64_t>(scaled));
}

}  // namespace gpusim::k8s
