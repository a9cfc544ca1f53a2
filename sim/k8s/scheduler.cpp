#include "sim/k8s/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "sim/cluster/device_class.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"

namespace gpusim::k8s {
namespace {
constexpr std::uint32_t kCycle = 0;
constexpr std::uint32_t kLapsed = 1;  // a re-partition request's time is over (payload: node)
}  // namespace

Scheduler::Scheduler(Bus& bus, const ApiServer& api, const cluster::GpuCatalog& catalog,
                     const std::vector<cluster::NodeSpec>& nodes, const std::vector<NodeSetup>& setup,
                     const std::vector<cluster::PodSpec>& pods, const sched::Profile& profile,
                     const sched::Registry& registry, const sched::PluginContext& context,
                     const std::vector<std::uint8_t>& present, bool lifecycle_events, core::Time node_status_period,
                     const QueueingInputs& inputs)
    : bus_(bus),
      api_(api),
      setup_(setup),
      pods_(pods),
      cache_(catalog, nodes),
      framework_(profile, registry, context, cache_),
      profile_name_(profile.name),
      node_status_period_(node_status_period),
      inputs_(inputs) {
  pending_.reserve(pods.size());
  // Number the trace rows' shapes in row order. The map is only looked up, never walked, and the
  // numbers only name shapes, so no decision depends on the order of its keys.
  // Gangs: their sizes first. A gang fails as a whole where a lone pod of its members' requests
  // might fit, so gang members are shapes of their own, told apart by the gang's layout (workers and
  // GPUs): within a cycle, once a gang failed, a gang of the same layout fails too.
  std::vector<std::int64_t> gang_gpus;
  for (const cluster::PodSpec& pod : pods) {
    if (pod.gang == 0) continue;
    if (gang_size_.size() <= pod.gang) {
      gang_size_.resize(pod.gang + 1, 0);
      gang_gpus.resize(pod.gang + 1, 0);
    }
    ++gang_size_[pod.gang];
    gang_gpus[pod.gang] += pod.total_gpu_milli();
  }
  // RDMA, the service and its per-node limit are part of a shape: two pods alike in everything else
  // may still differ in where they fit.
  using Key = std::tuple<std::int64_t, std::int64_t, std::int32_t, std::int32_t, std::uint64_t, std::uint8_t, std::uintptr_t,
                         std::uint32_t, std::int64_t, std::int32_t, std::int32_t, std::int32_t>;
  std::map<Key, std::uint32_t> shapes;
  shape_of_source_.reserve(pods.size());
  for (const cluster::PodSpec& pod : pods) {
    const std::uint32_t workers = pod.gang != 0 ? gang_size_[pod.gang] : 0;
    const std::int64_t gpus = pod.gang != 0 ? gang_gpus[pod.gang] : 0;
    const Key key{pod.cpu_milli, pod.memory_mib, pod.gpu_count, pod.gpu_milli, pod.allowed_models.bits,
                  pod.device_class, reinterpret_cast<std::uintptr_t>(pod.constraints.get()), workers, gpus,
                  pod.rdma_percent, pod.max_per_node > 0 ? pod.app : -1, pod.max_per_node};
    shape_of_source_.push_back(shapes.emplace(key, static_cast<std::uint32_t>(shapes.size())).first->second);
  }
  gang_pending_.resize(gang_size_.size());
  gang_started_.assign(gang_size_.size(), 0);
  gang_spread_.assign(gang_size_.size(), 0);
  on_node_.resize(nodes.size());
  failed_in_cycle_.assign(shapes.size(), 0);
  pending_of_shape_.assign(shapes.size(), 0);
  mark_pods_larger_than_any_node(nodes, pods, shapes.size());
  for (cluster::NodeIndex n = 0; n < nodes.size(); ++n) {
    apply_status(n);
    if (!present[n]) cache_.set_present(n, false);
  }
  check_profile(profile, registry, nodes, pods, lifecycle_events);
  view_ = {&api_, &pods_, &cycle_, &shape_of_source_, &failed_in_cycle_, &pending_shapes_, &gang_started_, &bound_by_gang_, &evicting_};
  attach_plugins(profile, registry, context);
}

Scheduler::~Scheduler() = default;

void Scheduler::on_message(const Message& message, core::Time now) {
  switch (message.topic) {
    case Topic::kPodCreated: {
      if (assumed_.size() <= message.pod) assumed_.resize(message.pod + 1);
      // A pod that names another scheduler waits for it; gpusim runs one.
      const auto& constraints = pods_[message.source].constraints;
      if (constraints != nullptr && !takes(constraints->scheduler_name)) return;
      if (never_fits_[shape_of_source_[message.source]]) {
        Message unschedulable;
        unschedulable.topic = Topic::kPodUnschedulable;
        unschedulable.pod = message.pod;
        unschedulable.source = message.source;
        bus_.publish(unschedulable, now);
        return;
      }
      for (const Attached& attached : plugins_) attached.plugin->pod_queued(message.pod, now);
      queue_insert(message.pod);
      count_pending(message.pod, +1);
      if (const std::uint32_t gang = pods_[message.source].gang; gang != 0) gang_pending_[gang].push_back(message.pod);
      break;
    }
    case Topic::kPodDeleted:
      if (message.pod != kNoPod) forget_deleted(message, now);
      break;
    case Topic::kPodRunning:
    case Topic::kContainerRestarted: {  // (restartPolicy OnFailure: its container runs again)
      for (const Attached& attached : plugins_) attached.plugin->pod_running(message.pod, message.source, now);
      return;
    }
    case Topic::kPodTerminated:
      release_bound(message);
      break;
    case Topic::kJobFailed:
    case Topic::kOwnerGaveUp:
      for (const Attached& attached : plugins_) attached.plugin->owner_gave_up(message, now);
      return;
    case Topic::kNodeStatus:
      ++released_;
      apply_status(message.node);
      break;
    case Topic::kMigReconfigure: {
      // HAMi's scheduler knows the GPUs it has re-partitioned: their instances are gone from its
      // view until the node's status shows the new layout (or the request lapsed: the GPU took a
      // pod first).
      const NodeSetup& setup = setup_[message.node];
      const core::Time until = now + setup.mig_reconfigure_time + node_status_period_ + core::Time::from_micros(1);
      mig_pending_.push_back({message.node, static_cast<int>(message.value), static_cast<int>(message.layout), until});
      apply_status(message.node);
      // If the kubelet did not re-partition it (the GPU took a pod first, or its node went down),
      // the GPU shows again when the request lapses.
      bus_.set_timer(*this, kLapsed, message.node, until);
      return;
    }
    case Topic::kNodeMetrics:
      ++released_;
      break;
    case Topic::kNodeJoined:
      ++released_;
      cache_.set_present(message.node, true);
      break;
    case Topic::kNodeRemoved:
      cache_.set_present(message.node, false);
      break;
    case Topic::kNodeTaints: {
      // The node's own taints and the lifecycle controller's.
      std::vector<cluster::Taint> taints = cache_.node(message.node).taints;
      const auto bits = static_cast<std::uint32_t>(message.value);
      if (bits & kUnreachableNoSchedule) taints.push_back({"node.kubernetes.io/unreachable", "", "NoSchedule"});
      if (bits & kUnreachableNoExecute) taints.push_back({"node.kubernetes.io/unreachable", "", "NoExecute"});
      cache_.set_taints(message.node, std::move(taints));
      break;
    }
    default:
      return;
  }
  request_cycle(now);
}

void Scheduler::on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) {
  if (tag >= kPluginTimers) {
    plugins_[(tag - kPluginTimers) / 16].plugin->on_timer((tag - kPluginTimers) % 16, payload, now);
    return;
  }
  if (tag == kLapsed) {
    apply_status(static_cast<cluster::NodeIndex>(payload));
    request_cycle(now);
    return;
  }
  cycle_queued_ = false;
  run_cycle(now);
  for (const Attached& attached : plugins_) attached.plugin->cycle_done(now);
  Message done;
  done.topic = Topic::kCycleDone;
  bus_.publish(done, now, core::Phase::kMetrics);
}

void Scheduler::request_cycle(core::Time now) {
  if (cycle_queued_) return;
  bus_.set_timer(*this, kCycle, 0, now, core::Phase::kSchedule);
  cycle_queued_ = true;
}

void Scheduler::queue_insert(PodId id) {
  // The queue stays in order (ties by pod id), so a cycle need not sort it: a pod's sort key is
  // fixed while it waits (a Tiresias promotion moves it), and sorting a long queue every cycle was
  // the replay's main cost.
  pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), id, [&](PodId a, PodId b) { return queued_before(a, b); }),
                  id);
}

void Scheduler::forget_deleted(const Message& deleted, core::Time now) {
  if (const auto it = std::find(pending_.begin(), pending_.end(), deleted.pod); it != pending_.end()) {
    pending_.erase(it);
    count_pending(deleted.pod, -1);
    if (const std::uint32_t gang = pods_[api_.pod(deleted.pod).source].gang; gang != 0) {
      std::erase(gang_pending_[gang], deleted.pod);
    }
    for (const Attached& attached : plugins_) attached.plugin->pod_dequeued(deleted.pod, deleted, now);
  } else if (deleted.pod < bound_.size() && bound_[deleted.pod]) {
    // Its owner deleted it while the binding was on its way: the API server refuses the binding
    // (the pod is gone), so nothing will report it ended; what it was assumed to hold is free.
    release_bound(deleted);
  } else {
    for (const Attached& attached : plugins_) attached.plugin->pod_deleted_elsewhere(deleted.pod, now);
  }
}

void Scheduler::release_bound(const Message& ended) {
  ++released_;
  bound_[ended.pod] = 0;
  const PodObject& pod = api_.pod(ended.pod);
  if (ended.pod < evicting_.size()) evicting_[ended.pod] = 0;
  framework_.release(pods_[pod.source], assumed_[ended.pod]);
  apply_status(assumed_[ended.pod].node);
  std::erase(on_node_[assumed_[ended.pod].node], ended.pod);
  for (const Attached& attached : plugins_) attached.plugin->pod_released(ended.pod, ended);
}

void Scheduler::request_eviction(PodId pod, std::int64_t kind, core::Time now) {
  if (evicting_.size() <= pod) evicting_.resize(std::size_t{pod} + 1, 0);
  evicting_[pod] = 1;
  // A gang is evicted whole (every worker is asked to go): it starts again as a whole.
  if (const std::uint32_t gang = pods_[api_.pod(pod).source].gang; gang != 0) gang_started_[gang] = 0;
  Message evict;
  evict.topic = Topic::kEvictRequest;
  evict.pod = pod;
  evict.source = api_.pod(pod).source;
  evict.node = assumed_[pod].node;
  evict.value = kind;
  bus_.publish(evict, now);
  ++preemption_requests_;
}

void Scheduler::set_job_suspended(std::int32_t job, bool suspended, core::Time now) {
  Message m;
  m.topic = suspended ? Topic::kJobSuspended : Topic::kJobResumed;
  m.value = job;
  bus_.publish(m, now);
}

bool Scheduler::queued_before(PodId a, PodId b) const {
  if (queue_order_plugin_ != nullptr) return queue_order_plugin_->ranks_before(a, b);
  const auto& sort = framework_.queue_sort();
  const cluster::PodSpec& pa = pods_[api_.pod(a).source];
  const cluster::PodSpec& pb = pods_[api_.pod(b).source];
  return sort.less(pa, pb) || (!sort.less(pb, pa) && a < b);
}

void Scheduler::count_pending(PodId id, int sign) {
  for (const Attached& attached : plugins_) attached.plugin->pod_waiting(id, sign);
  std::uint32_t& count = pending_of_shape_[shape_of_source_[api_.pod(id).source]];
  if (sign > 0) {
    pending_shapes_ += count == 0 ? 1 : 0;
    ++count;
  } else {
    --count;
    pending_shapes_ -= count == 0 ? 1 : 0;
  }
}

void Scheduler::bind(PodId id, const cluster::Placement& placement, core::Time now, bool queued) {
  if (queued) count_pending(id, -1);
  assumed_[id] = placement;
  if (bound_.size() <= id) bound_.resize(std::size_t{id} + 1, 0);
  bound_[id] = 1;
  if (expected_end_.size() <= id) expected_end_.resize(assumed_.size());
  const auto& run = pods_[api_.pod(id).source].duration;
  expected_end_[id] = run ? now + *run : core::Time::from_micros(static_cast<std::int64_t>(kMaxSimulatedMicros));
  on_node_[placement.node].push_back(id);
  for (const Attached& attached : plugins_) attached.plugin->pod_bound(id, placement, now);

  apply_status(placement.node);
  Message bound;
  bound.topic = Topic::kPodBound;
  bound.pod = id;
  bound.source = api_.pod(id).source;
  bound.node = placement.node;
  bound.gpus = placement.gpus;
  if (const std::uint32_t gang = pods_[bound.source].gang; gang != 0) bound.value = gang_spread_[gang];
  bus_.publish(bound, now, core::Phase::kSchedule);
}

void Scheduler::note_gang_start(std::uint32_t gang, bool spread) {
  gang_spread_[gang] = spread ? 1 : 0;
  ++(spread ? gangs_spread_ : gangs_on_one_node_);
}

bool Scheduler::gang_ready(std::uint32_t gang) const {
  // Before it starts, a gang waits until all its workers exist; once started, a pending worker
  // replaces one that was lost (its owner recreated it), whatever became of the others. Through
  // Permit, a worker is placed as soon as it exists and waits there for the others.
  if (gang_placer_ != nullptr && !gang_started_[gang]) return true;
  return gang_started_[gang] ? !gang_pending_[gang].empty() : gang_pending_[gang].size() >= gang_size_[gang];
}

bool Scheduler::schedule_gang(std::uint32_t gang, core::Time now) {
  // The pending workers: all of them, or (a gang that has started) those its owner recreated to
  // replace lost ones.
  std::vector<PodId>& members = gang_pending_[gang];
  if (!gang_ready(gang) || members.empty()) return false;
  gang_placed_.clear();
  for (const PodId member : members) {
    ++attempts_;
    const auto placement = framework_.schedule(spec_to_place(member));
    if (!placement) {
      // All or nothing: the members placed so far go back, newest first.
      for (std::size_t k = gang_placed_.size(); k-- > 0;) {
        framework_.release(pods_[api_.pod(members[k]).source], gang_placed_[k]);
        apply_status(gang_placed_[k].node);
      }
      return false;
    }
    gang_placed_.push_back(*placement);
    // The node's published status limits what the next member sees there, as for any pod.
    apply_status(placement->node);
  }
  // Replacement workers of a gang that ran keep its placement's spread (and are no new start).
  if (!gang_started_[gang]) {
    note_gang_start(gang, std::any_of(gang_placed_.begin(), gang_placed_.end(), [&](const cluster::Placement& p) {
                      return p.node != gang_placed_.front().node;
                    }));
  }
  gang_started_[gang] = 1;
  if (bound_by_gang_.size() < assumed_.size()) bound_by_gang_.resize(assumed_.size(), 0);
  for (std::size_t k = 0; k < members.size(); ++k) {
    bound_by_gang_[members[k]] = 1;
    gang_bound_ids_.push_back(members[k]);
    bind(members[k], gang_placed_[k], now);
  }
  members.clear();
  return true;
}

void Scheduler::run_cycle(core::Time now) {
  const auto source_of = [&](PodId id) { return api_.pod(id).source; };
  ++cycle_;
  for (const Attached& attached : plugins_) {
    if (attached.plugin->run_cycle(now)) return;
  }
  for (const Attached& attached : plugins_) attached.plugin->walk_begin(now);
  std::size_t kept = 0;
  std::size_t failed_shapes = 0;
  std::size_t i = 0;
  // Once every shape still pending has failed, the rest of the queue is skipped whole (its pods
  // keep their order); a long queue then costs one pass over its shapes, not its pods.
  for (; i < pending_.size() && failed_shapes < pending_shapes_; ++i) {
    const PodId id = pending_[i];
    if (id < bound_by_gang_.size() && bound_by_gang_[id]) continue;  // placed with its gang's first member
    const std::uint32_t shape = shape_of_source_[source_of(id)];
    const cluster::PodSpec& spec = pods_[source_of(id)];
    // A gang waiting for a worker to be created is not a failure; one that has started places only
    // replacement workers, fewer than its layout, so its layout's failures do not apply to it.
    const bool gang = spec.gang != 0;
    if (gang && (!gang_ready(spec.gang) || held_back(spec, now))) {
      pending_[kept++] = id;
      continue;
    }
    const bool partial_gang = gang && gang_started_[spec.gang];
    if (failed_in_cycle_[shape] == cycle_ && !partial_gang) {
      pending_[kept++] = id;
      continue;
    }
    // A plugin may try the pod its own way (backfilling behind a reservation).
    QueueingPlugin::Tried tried = QueueingPlugin::Tried::kNotTried;
    for (QueueingPlugin* plugin : pod_triers_) {
      if ((tried = plugin->try_pod(id, spec, partial_gang, now)) != QueueingPlugin::Tried::kNotTried) break;
    }
    if (tried == QueueingPlugin::Tried::kPlaced) continue;
    if (tried != QueueingPlugin::Tried::kNotTried) {
      if (tried == QueueingPlugin::Tried::kKeptShapeFailed) ++failed_shapes;
      pending_[kept++] = id;
      continue;
    }
    if (place(id, spec, now)) continue;
    // A started gang places only replacement workers: its failure says nothing of its shapes.
    if (!partial_gang) failed_shapes += mark_failed(spec, shape);
    // PostFilter: pods of lower priority make room. They end at once, and the cycle stops here so
    // that no pod queued behind this one (none ranks higher) takes the room first: the next cycle,
    // at the same instant once they have gone, places it (kube-scheduler nominates the node).
    if (!partial_gang && post_filter(id, spec, now)) {
      pending_[kept++] = id;
      ++i;
      request_cycle(now);
      break;
    }
    pending_[kept++] = id;
    // Strict order: nothing queued behind a pod that does not fit may start before it.
    bool stop = false;
    for (const Attached& attached : plugins_) stop = attached.plugin->stops_walk(spec, now) || stop;
    if (stop) {
      ++i;
      break;
    }
  }
  if (kept < i) {
    std::move(pending_.begin() + static_cast<std::ptrdiff_t>(i), pending_.end(), pending_.begin() + static_cast<std::ptrdiff_t>(kept));
    pending_.resize(pending_.size() - (i - kept));
  }
  drop_gang_bound();
  for (const Attached& attached : plugins_) attached.plugin->walk_done(now);
}

bool Scheduler::place(PodId id, const cluster::PodSpec& spec, core::Time now) {
  if (spec.gang != 0) return gang_placer_ == nullptr ? schedule_gang(spec.gang, now) : gang_placer_->place_worker(id, spec, now);
  ++attempts_;
  const auto placement = framework_.schedule(&spec == &pods_[api_.pod(id).source] ? spec_to_place(id) : spec);
  if (placement) bind(id, *placement, now);
  return placement.has_value();
}

std::size_t Scheduler::mark_failed(const cluster::PodSpec& spec, std::uint32_t shape) {
  std::size_t newly = 0;
  if (failed_in_cycle_[shape] != cycle_) {
    failed_in_cycle_[shape] = cycle_;
    ++newly;
  }
  if (spec.gang != 0) {
    // The gang's other workers (a last worker with fewer GPUs is another shape) fail with it.
    for (const PodId member : gang_pending_[spec.gang]) {
      const std::uint32_t other = shape_of_source_[api_.pod(member).source];
      if (failed_in_cycle_[other] != cycle_) {
        failed_in_cycle_[other] = cycle_;
        ++newly;
      }
    }
  }
  return newly;
}

void Scheduler::drop_gang_bound() {
  // Workers of gangs bound in this cycle leave the queue wherever they were: a gang may have been
  // placed from a later worker after an earlier one was kept.
  if (gang_bound_ids_.empty()) return;
  std::erase_if(pending_, [&](PodId id) { return id < bound_by_gang_.size() && bound_by_gang_[id]; });
  for (const PodId id : gang_bound_ids_) bound_by_gang_[id] = 0;
  gang_bound_ids_.clear();
}

}  // namespace gpusim::k8s
