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
constexpr std::uint32_t kDemote = 2;   // Tiresias: a running job passes a threshold (payload: pod)
constexpr std::uint32_t kPromote = 3;  // Tiresias: a waiting job is due back in queue 0 (payload: pod)
constexpr std::uint32_t kCheckpointed = 4;  // a running pod passed its first checkpoint: it may be a victim now
}  // namespace

Scheduler::Scheduler(Bus& bus, const ApiServer& api, const cluster::GpuCatalog& catalog,
                     const std::vector<cluster::NodeSpec>& nodes, const std::vector<NodeSetup>& setup,
                     const std::vector<cluster::PodSpec>& pods, const sched::Profile& profile,
                     const sched::Registry& registry, const sched::PluginContext& context,
                     const std::vector<std::uint8_t>& present, bool lifecycle_events, core::Time node_status_period)
    : bus_(bus),
      api_(api),
      setup_(setup),
      pods_(pods),
      cache_(catalog, nodes),
      framework_(profile, registry, context, cache_),
      profile_name_(profile.name),
      node_status_period_(node_status_period),
      preemption_(profile.preemption) {
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
  if (profile.queue_mode == sched::QueueMode::kBackfill) {
    on_node_.resize(nodes.size());
    failed_withheld_in_cycle_.assign(shapes.size(), 0);
  }
  if (preemption_ != sched::Preemption::kNone || profile.queue_quotas != sched::QueueQuotaMode::kNone) {
    on_node_.resize(nodes.size());
  }
  if (profile.drf || profile.queue_quotas != sched::QueueQuotaMode::kNone) {
    std::size_t queues = 1;
    for (const cluster::PodSpec& pod : pods) queues = std::max<std::size_t>(queues, std::size_t{pod.queue} + 1);
    queue_held_.resize(queues);
    drf_lists_.resize(queues);
    drf_next_.resize(queues);
    smallest_ask_.resize(queues);
  }
  failed_in_cycle_.assign(shapes.size(), 0);
  pending_of_shape_.assign(shapes.size(), 0);
  mark_pods_larger_than_any_node(nodes, pods, shapes.size());
  for (cluster::NodeIndex n = 0; n < nodes.size(); ++n) {
    apply_status(n);
    if (!present[n]) cache_.set_present(n, false);
  }
  check_profile(profile, registry, nodes, pods, lifecycle_events);
}

namespace {

// Whether `node`, with nothing on it, has room for `pod`'s resources: CPU, memory, RDMA, and GPUs
// of a model and resource it may use, as many as it asks (as the scheduler counts devices).
bool room_when_empty(const cluster::PodSpec& pod, const cluster::NodeSpec& node) {
  if (pod.cpu_milli > node.cpu_milli || pod.memory_mib > node.memory_mib || pod.rdma_percent > node.rdma_percent) {
    return false;
  }
  if (!pod.wants_gpu()) return true;
  if (node.gpu_count < pod.gpu_count || !pod.allowed_models.allows(node.gpu_model)) return false;
  return pod.constraints == nullptr || cluster::serves(node.gpu_resource, pod.constraints->gpu_resource);
}

}  // namespace

void Scheduler::mark_pods_larger_than_any_node(const std::vector<cluster::NodeSpec>& nodes,
                                               const std::vector<cluster::PodSpec>& pods, std::size_t shapes) {
  never_fits_.assign(shapes, 0);
  std::vector<std::uint8_t> checked(shapes, 0);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const cluster::PodSpec& pod = pods[i];
    const std::uint32_t shape = shape_of_source_[i];
    if (checked[shape]) continue;
    checked[shape] = 1;
    // A MIG profile's instances change with re-partitioning; those pods are left to the queue.
    if (pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kMigProfile) continue;
    never_fits_[shape] = std::none_of(nodes.begin(), nodes.end(),
                                      [&](const cluster::NodeSpec& node) { return room_when_empty(pod, node); });
  }
  // A gang needs all its workers placed at once: one asking more GPUs in all than the nodes that
  // could hold its workers have is larger than the cluster, though each worker fits a node.
  std::vector<std::int64_t> asked(gang_size_.size(), 0), room(gang_size_.size(), -1);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const cluster::PodSpec& pod = pods[i];
    if (pod.gang == 0 || !pod.wants_gpu()) continue;
    asked[pod.gang] += pod.gpu_count;
    if (room[pod.gang] >= 0) continue;
    room[pod.gang] = 0;
    for (const cluster::NodeSpec& node : nodes) room[pod.gang] += room_when_empty(pod, node) ? node.gpu_count : 0;
  }
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const std::uint32_t gang = pods[i].gang;
    if (gang != 0 && asked[gang] > room[gang] && room[gang] >= 0) never_fits_[shape_of_source_[i]] = 1;
  }
}

// Pods with placement rules need the filters that enforce them; a profile without them would
// place pods where Kubernetes never would.
void Scheduler::check_profile(const sched::Profile& profile, const sched::Registry& registry,
                              const std::vector<cluster::NodeSpec>& nodes, const std::vector<cluster::PodSpec>& pods,
                              bool lifecycle) {
  const auto has = [&](const char* filter) {
    return std::any_of(profile.filter.begin(), profile.filter.end(),
                       [&](const std::string& name) { return registry.canonical(name) == filter; });
  };
  const bool rules = std::any_of(pods.begin(), pods.end(), [](const cluster::PodSpec& pod) {
    return pod.constraints != nullptr && (!pod.constraints->node_selector.empty() || !pod.constraints->required_terms.empty());
  });
  // Node loss taints nodes too, so any replay with node events needs the filter as well.
  const bool taints = lifecycle || std::any_of(nodes.begin(), nodes.end(), [](const cluster::NodeSpec& node) { return !node.taints.empty(); });
  if (rules && !has("node-affinity")) {
    throw core::InputError(fmt::format("profile '{}': the workload has nodeSelector or node affinity rules; add the "
                                       "node-affinity filter", profile.name));
  }
  if (taints && !has("taint-toleration")) {
    throw core::InputError(fmt::format("profile '{}': the cluster has tainted nodes (or nodes that may be lost, which "
                                       "the node lifecycle taints); add the taint-toleration filter", profile.name));
  }
}

void Scheduler::on_message(const Message& message, core::Time now) {
  switch (message.topic) {
    case Topic::kPodCreated: {
      if (assumed_.size() <= message.pod) assumed_.resize(message.pod + 1);
      // A pod that names another scheduler waits for it; gpusim runs one.
      const auto& constraints = pods_[message.source].constraints;
      if (constraints != nullptr && constraints->scheduler_name != "default-scheduler" &&
          constraints->scheduler_name != profile_name_) {
        return;
      }
      if (never_fits_[shape_of_source_[message.source]]) {
        Message unschedulable;
        unschedulable.topic = Topic::kPodUnschedulable;
        unschedulable.pod = message.pod;
        unschedulable.source = message.source;
        bus_.publish(unschedulable, now);
        return;
      }
      if (priority_) {
        if (queue_key_.size() <= message.pod) queue_key_.resize(std::size_t{message.pod} + 1);
        priority_->enter(message.source, now);
        queue_key_[message.pod] = priority_->key(message.source, now);
        const core::Time due = priority_->promotion_due(message.source);
        if (due != JobPriority::kNever) bus_.set_timer(*this, kPromote, message.pod, std::max(due, now));
      }
      queue_insert(message.pod);
      count_pending(message.pod, +1);
      if (rounds_) round_pod_created(message.pod, now);
      if (const std::uint32_t gang = pods_[message.source].gang; gang != 0) gang_pending_[gang].push_back(message.pod);
      break;
    }
    case Topic::kPodDeleted:
      if (message.pod != kNoPod) forget_deleted(message, now);
      break;
    case Topic::kPodRunning:
    case Topic::kContainerRestarted: {  // (restartPolicy OnFailure: its container runs again)
      // Tiresias: the job moves down a queue when its attained service passes a threshold, which
      // may let a waiting job preempt it.
      if (priority_) priority_->started(message.source, now);
      const core::Time when = priority_ ? priority_->next_demotion(message.source, now) : JobPriority::kNever;
      if (when != JobPriority::kNever) bus_.set_timer(*this, kDemote, message.pod, when);
      // A pod that waits for a victim may find one when this pod reaches its first checkpoint.
      if (wait_for_checkpoint_) bus_.set_timer(*this, kCheckpointed, message.pod, now + checkpoint_interval_);
      return;
    }
    case Topic::kPodTerminated:
      release_bound(message);
      break;
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
  if (tag == kDemote) {
    const auto id = static_cast<PodId>(payload);
    if (api_.pod(id).phase != PodPhase::kRunning) return;
    priority_->demoted(api_.pod(id).source, now);
    const core::Time next = priority_->next_demotion(api_.pod(id).source, now);
    if (next != JobPriority::kNever) bus_.set_timer(*this, kDemote, id, next);
    request_cycle(now);
    return;
  }
  if (tag == kCheckpointed) {
    if (!pending_.empty() && api_.pod(static_cast<PodId>(payload)).phase == PodPhase::kRunning) request_cycle(now);
    return;
  }
  if (tag == kPromote) {
    promote(static_cast<PodId>(payload), now);
    return;
  }
  if (tag == kRound) {
    round_queued_ = false;
    run_round(now);
    return;
  }
  if (tag == kGangTimeout) {
    const auto gang = static_cast<std::uint32_t>(payload >> 32);
    // Only the wait that set this timer: the gang may have been bound or rejected since.
    if (permit_[gang].generation == static_cast<std::uint32_t>(payload) && !permit_[gang].waiting.empty()) {
      reject_gang(gang, true, now);
      flush_requeue();
      request_cycle(now);  // what it held may let others start now
    }
    return;
  }
  if (tag == kGangRetry) {
    // Only if something was freed since the gang was sent back: else it would be placed and sent
    // back again for ever (a gang that cannot be whole), and the run would never end.
    if (released_ != permit_[payload].released_at_reject) request_cycle(now);
    return;
  }
  if (tag == kLapsed) {
    apply_status(static_cast<cluster::NodeIndex>(payload));
    request_cycle(now);
    return;
  }
  cycle_queued_ = false;
  run_cycle(now);
  if (priority_ && priority_->queue_lists()) reorder_by_queue_lists(now);
  Message done;
  done.topic = Topic::kCycleDone;
  bus_.publish(done, now, core::Phase::kMetrics);
}

void Scheduler::request_cycle(core::Time now) {
  if (cycle_queued_) return;
  bus_.set_timer(*this, kCycle, 0, now, core::Phase::kSchedule);
  cycle_queued_ = true;
}

void Scheduler::enable_preemption(const JobLedger& ledger, core::Time checkpoint_interval, bool free) {
  GPUSIM_CHECK(pending_.empty(), "preemption enabled after pods were queued");
  priority_.emplace(framework_.profile(), pods_, ledger);
  // Deep-learning jobs checkpoint: they are preempted only past their first checkpoint of a run,
  // unless preemption is free (it then keeps all their work: kEvictRequest's checkpoint-first kind).
  wait_for_checkpoint_ = !free && (preemption_ == sched::Preemption::kSrtf || preemption_ == sched::Preemption::kTiresias);
  eviction_kind_ = free ? 3 : 1;
  checkpoint_interval_ = checkpoint_interval;
  preemptor_.emplace(cache_, api_, pods_, setup_, assumed_, on_node_, evicting_, *priority_, checkpoint_interval,
                     wait_for_checkpoint_);
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
    if (rounds_) round_pod_ended(deleted.pod, deleted);
    if (const std::uint32_t gang = pods_[api_.pod(deleted.pod).source].gang; gang != 0) {
      std::erase(gang_pending_[gang], deleted.pod);
      if (!permit_.empty()) break_gang(gang, now);
    }
  } else if (deleted.pod < bound_.size() && bound_[deleted.pod]) {
    // Its owner deleted it while the binding was on its way: the API server refuses the binding
    // (the pod is gone), so nothing will report it ended; what it was assumed to hold is free.
    release_bound(deleted);
  } else if (!permit_.empty()) {
    drop_waiting(deleted.pod, now);
  }
}

void Scheduler::release_bound(const Message& ended) {
  ++released_;
  bound_[ended.pod] = 0;
  const PodObject& pod = api_.pod(ended.pod);
  if (ended.pod < evicting_.size()) evicting_[ended.pod] = 0;
  if (priority_ && (ended.reason == Reason::kSucceeded || ended.reason == Reason::kTraceFailed ||
                    ended.reason == Reason::kDeletedByOwner)) {
    priority_->ended(ended.source);
  }
  if (!queue_held_.empty()) hold(ended.pod, -1);
  framework_.release(pods_[pod.source], assumed_[ended.pod]);
  apply_status(assumed_[ended.pod].node);
  if (!on_node_.empty()) std::erase(on_node_[assumed_[ended.pod].node], ended.pod);
  if (rounds_) round_pod_ended(ended.pod, ended);
}

void Scheduler::reorder_by_queue_lists(core::Time now) {
  const bool keys_changed = priority_->end_of_pass([&](std::uint32_t row) {
    const PodId pod = api_.latest(row);
    if (pod == kNoPod || (pod < evicting_.size() && evicting_[pod])) return false;
    const PodPhase phase = api_.pod(pod).phase;
    return phase == PodPhase::kBound || phase == PodPhase::kAdmitted || phase == PodPhase::kRunning;
  });
  if (!keys_changed) return;
  for (const PodId id : pending_) queue_key_[id] = priority_->key(api_.pod(id).source, now);
  std::sort(pending_.begin(), pending_.end(), [&](PodId a, PodId b) { return queued_before(a, b); });
}

void Scheduler::promote(PodId id, core::Time now) {
  const PodObject& pod = api_.pod(id);
  if (pod.phase != PodPhase::kPending || priority_->promotion_due(pod.source) > now) return;
  priority_->promote(pod.source, now);
  // Every waiting pod of the job moves: the pod, or its gang's workers.
  const std::uint32_t gang = pods_[pod.source].gang;
  one_worker_.assign(1, id);
  const std::vector<PodId>& moved = gang != 0 ? gang_pending_[gang] : one_worker_;
  for (const PodId member : moved) {
    const auto it = std::find(pending_.begin(), pending_.end(), member);
    if (it == pending_.end()) continue;
    pending_.erase(it);
    queue_key_[member] = priority_->key(api_.pod(member).source, now);
    queue_insert(member);
  }
  request_cycle(now);
}

bool Scheduler::try_preempt(PodId id, const cluster::PodSpec& spec, core::Time now) {
  // The shortcut holds for whole-GPU pods without placement rules, the only ones that look for
  // victims at all (others are refused whatever runs, so their refusal says nothing).
  const bool plain = spec.gang == 0 && spec.constraints == nullptr && spec.gpu_count > 0 && spec.gpu_milli == cluster::kMilliPerGpu;
  const FailedAsk& failed = preemption_failed_;
  if (plain && failed.cycle == cycle_ && spec.gpu_count >= failed.gpus && spec.cpu_milli >= failed.cpu_milli &&
      spec.memory_mib >= failed.memory_mib &&
      (failed.models == 0 || (spec.allowed_models.bits != 0 && (spec.allowed_models.bits & ~failed.models) == 0))) {
    return false;
  }
  one_worker_.assign(1, id);
  const std::vector<PodId>& workers = spec.gang != 0 ? gang_pending_[spec.gang] : one_worker_;
  if (!preemptor_->choose(workers, now, victims_) || victims_.empty()) {
    if (plain) preemption_failed_ = {cycle_, spec.gpu_count, spec.cpu_milli, spec.memory_mib, spec.allowed_models.bits};
    return false;
  }
  for (const PodId victim : victims_) request_eviction(victim, eviction_kind_, now);
  return true;
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

bool Scheduler::queued_before(PodId a, PodId b) const {
  if (priority_) return std::tie(queue_key_[a], a) < std::tie(queue_key_[b], b);
  const auto& sort = framework_.queue_sort();
  const cluster::PodSpec& pa = pods_[api_.pod(a).source];
  const cluster::PodSpec& pb = pods_[api_.pod(b).source];
  return sort.less(pa, pb) || (!sort.less(pb, pa) && a < b);
}

void Scheduler::count_pending(PodId id, int sign) {
  if (quotas_) {
    const cluster::PodSpec& spec = pods_[api_.pod(id).source];
    quotas_->add_waiting(spec.queue, sign * spec.total_gpu_milli());
  }
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
  if (!queue_held_.empty()) hold(id, +1);
  if (!on_node_.empty()) {
    if (expected_end_.size() <= id) expected_end_.resize(assumed_.size());
    const auto& run = pods_[api_.pod(id).source].duration;
    expected_end_[id] = run ? now + *run : core::Time::from_micros(static_cast<std::int64_t>(kMaxSimulatedMicros));
    on_node_[placement.node].push_back(id);
  }
  if (rounds_) {
    const std::uint32_t job = rounds_->job_of(api_.pod(id).source);
    if (rounds_->plannable(job)) rounds_->started(job, rounds_->type_of_model(cache_.node(placement.node).gpu_model));
  }

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
  if (!permit_.empty() && !gang_started_[gang]) return true;
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
  GPUSIM_CHECK(preemption_ == sched::Preemption::kNone || priority_, "a preempting profile without enable_preemption");
  const auto source_of = [&](PodId id) { return api_.pod(id).source; };
  const bool strict = framework_.profile().queue_mode == sched::QueueMode::kStrict;
  bool reservation_tried = false;
  ++cycle_;
  if (!drf_lists_.empty()) {
    run_drf_cycle(now);
    return;
  }
  if (rounds_) {
    run_round_cycle(now);
    return;
  }
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
    if (gang && (!gang_ready(spec.gang) || permit_held_back(spec.gang, now))) {
      pending_[kept++] = id;
      continue;
    }
    const bool partial_gang = gang && gang_started_[spec.gang];
    if (failed_in_cycle_[shape] == cycle_ && !partial_gang) {
      pending_[kept++] = id;
      continue;
    }
    if (reservation_.active) {
      // Behind the reserved pod: only what does not delay it.
      if (failed_withheld_in_cycle_[shape] == cycle_ && !partial_gang &&
          !(spec.duration && now + *spec.duration <= reservation_.shadow)) {
        pending_[kept++] = id;
        continue;
      }
      const bool failed_before = failed_in_cycle_[shape] == cycle_;
      if (try_backfill(id, spec, now)) continue;
      if (!failed_before && failed_in_cycle_[shape] == cycle_) ++failed_shapes;
      pending_[kept++] = id;
      continue;
    }
    if (place(id, spec, now)) continue;
    // A started gang places only replacement workers: its failure says nothing of its shapes.
    if (!partial_gang) failed_shapes += mark_failed(spec, shape);
    // PostFilter: pods of lower priority make room. They end at once, and the cycle stops here so
    // that no pod queued behind this one (none ranks higher) takes the room first: the next cycle,
    // at the same instant once they have gone, places it (kube-scheduler nominates the node).
    if (preemptor_ && !partial_gang && try_preempt(id, spec, now)) {
      pending_[kept++] = id;
      ++i;
      request_cycle(now);
      break;
    }
    pending_[kept++] = id;
    // Strict order: nothing queued behind a pod that does not fit may start before it.
    if (strict) {
      ++i;
      break;
    }
    // EASY: the first pod that does not fit gets the reservation (if none can be made, nobody does).
    if (framework_.profile().queue_mode == sched::QueueMode::kBackfill && !reservation_tried) {
      reservation_tried = true;
      reserve_for(spec, now);
    }
  }
  reservation_.active = false;
  if (kept < i) {
    std::move(pending_.begin() + static_cast<std::ptrdiff_t>(i), pending_.end(), pending_.begin() + static_cast<std::ptrdiff_t>(kept));
    pending_.resize(pending_.size() - (i - kept));
  }
  drop_gang_bound();
  flush_requeue();
}

bool Scheduler::place(PodId id, const cluster::PodSpec& spec, core::Time now) {
  if (spec.gang != 0) return permit_.empty() ? schedule_gang(spec.gang, now) : permit_worker(id, spec, now);
  ++attempts_;
  const auto placement = framework_.schedule(rounds_ ? spec_to_place(id) : spec);
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

double Scheduler::dominant_share(std::size_t queue) const {
  const Held& held = queue_held_[queue];
  double share = 0;
  const auto add = [&](std::int64_t used, std::int64_t total) {
    if (total > 0) share = std::max(share, static_cast<double>(used) / static_cast<double>(total));
  };
  add(held.gpu_milli, cache_.total_gpu_milli());
  add(held.cpu_milli, cache_.total_cpu_milli());
  add(held.memory_mib, cache_.total_memory_mib());
  return share;
}

void Scheduler::hold(PodId id, std::int64_t sign) {
  const cluster::PodSpec& spec = pods_[api_.pod(id).source];
  Held& held = queue_held_[spec.queue];
  held.gpu_milli += sign * spec.total_gpu_milli();
  held.cpu_milli += sign * spec.cpu_milli;
  held.memory_mib += sign * spec.memory_mib;
  if (quotas_) quotas_->add_held(spec.queue, sign * spec.total_gpu_milli());
}

void Scheduler::run_drf_cycle(core::Time now) {
  // Progressive filling: each step takes the next pending pod (in queue-sort order) of the queue
  // that holds the smallest share now (DRF: its dominant share; quotas: held over deserved GPUs),
  // so a queue's share grows only as it is served.
  if (quotas_) quotas_->refresh();
  for (auto& list : drf_lists_) list.clear();
  std::fill(smallest_ask_.begin(), smallest_ask_.end(), INT64_MAX);
  for (std::uint32_t i = 0; i < pending_.size(); ++i) {
    const cluster::PodSpec& spec = pods_[api_.pod(pending_[i]).source];
    drf_lists_[spec.queue].push_back(i);
    if (quotas_) smallest_ask_[spec.queue] = std::min(smallest_ask_[spec.queue], spec.total_gpu_milli());
  }
  std::fill(drf_next_.begin(), drf_next_.end(), 0);
  drf_placed_.assign(pending_.size(), 0);
  if (!nominated_.empty()) place_nominated(now);
  std::size_t failed_shapes = 0;
  while (failed_shapes < pending_shapes_) {
    std::size_t best = drf_lists_.size();
    double best_share = 0;
    for (std::size_t q = 0; q < drf_lists_.size(); ++q) {
      if (drf_next_[q] >= drf_lists_[q].size()) continue;
      const double share = quotas_ ? quotas_->share(static_cast<std::uint32_t>(q)) : dominant_share(q);
      if (best == drf_lists_.size() || share < best_share) {
        best = q;
        best_share = share;
      }
    }
    if (best == drf_lists_.size()) break;
    // Shares change only when a pod is placed: until then the same queue would be chosen again, so
    // its pods are tried in a row (a long queue of failed shapes costs one pass, not one choice of
    // queue per pod).
    bool placed = false;
    while (!placed && drf_next_[best] < drf_lists_[best].size() && failed_shapes < pending_shapes_) {
      const std::uint32_t index = drf_lists_[best][drf_next_[best]++];
      const PodId id = pending_[index];
      if (drf_placed_[index] || (id < bound_by_gang_.size() && bound_by_gang_[id])) continue;  // placed already
      const cluster::PodSpec& spec = pods_[api_.pod(id).source];
      const std::uint32_t shape = shape_of_source_[api_.pod(id).source];
      if (spec.gang != 0 && !gang_ready(spec.gang)) continue;
      const bool partial_gang = spec.gang != 0 && gang_started_[spec.gang];
      if (failed_in_cycle_[shape] == cycle_ && !partial_gang) continue;
      // Quotas: a pod its queue may not take waits (not a failure of its shape); once the queue may
      // not take even its smallest ask, the rest of it waits too (it only takes more in a cycle).
      if (quotas_ && !quotas_->allocatable(spec.queue, ask_of(spec))) {
        if (!quotas_->allocatable(spec.queue, smallest_ask_[spec.queue])) drf_next_[best] = drf_lists_[best].size();
        continue;
      }
      if (place(id, spec, now)) {
        drf_placed_[index] = 1;
        placed = true;
      } else if (!partial_gang) {
        failed_shapes += mark_failed(spec, shape);
      }
    }
  }
  if (quotas_ && framework_.profile().reclaim && reclaim_for_queues(now)) request_cycle(now);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (!drf_placed_[i]) pending_[kept++] = pending_[i];
  }
  pending_.resize(kept);
  drop_gang_bound();
}

// The earliest time by which enough nodes have the GPUs `head` (or each worker of its gang) asks,
// from the healthy GPUs free now and the healthy GPUs the pods bound there release at their expected
// ends. Only nodes the head could use are candidates: present, of an allowed GPU model, with every
// NoSchedule and NoExecute taint tolerated (as the taint-toleration filter). Counts whole GPUs only:
// a GPU shared by fractional pods frees when its last pod ends, which this estimate ignores; CPU and
// memory are not looked at.
void Scheduler::reserve_for(const cluster::PodSpec& head, core::Time now) {
  const int workers = head.gang != 0 ? std::max<int>(1, static_cast<int>(gang_pending_[head.gang].size())) : 1;
  const int needed = std::max(1, head.gpu_count);
  ready_.clear();
  for (cluster::NodeIndex n = 0; n < cache_.node_count(); ++n) {
    if (!may_take_node(head, cache_, n)) continue;
    const cluster::NodeSpec& node = cache_.node(n);
    cluster::GpuSet healthy;
    for (int g = 0; g < node.gpu_count; ++g) {
      if (cache_.gpu_healthy(n, g)) healthy.add(g);
    }
    int free = cache_.whole_free_devices(n).size();  // unhealthy GPUs never read free
    core::Time when = now;
    if (free < needed) {
      releases_.clear();
      for (const PodId pod : on_node_[n]) {
        const int gpus = pods_[api_.pod(pod).source].gpu_milli >= cluster::kMilliPerGpu
                             ? (assumed_[pod].gpus & healthy).size()
                             : 0;
        if (gpus > 0) releases_.emplace_back(std::max(expected_end_[pod], now), gpus);
      }
      std::sort(releases_.begin(), releases_.end());
      for (const auto& [end, gpus] : releases_) {
        free += gpus;
        if (free >= needed) {
          when = end;
          break;
        }
      }
      if (free < needed) continue;  // unhealthy or unavailable GPUs: never, as far as known
    }
    ready_.emplace_back(when, n);
  }
  if (static_cast<int>(ready_.size()) < workers) return;  // no reservation possible: no backfill limit
  std::nth_element(ready_.begin(), ready_.begin() + (workers - 1), ready_.end());
  std::sort(ready_.begin(), ready_.begin() + workers);
  reservation_.active = true;
  reservation_.shadow = ready_[static_cast<std::size_t>(workers - 1)].first;
  reservation_.nodes.clear();
  for (int w = 0; w < workers; ++w) reservation_.nodes.push_back(ready_[static_cast<std::size_t>(w)].second);
}

bool Scheduler::try_backfill(PodId id, const cluster::PodSpec& spec, core::Time now) {
  const std::uint32_t shape = shape_of_source_[api_.pod(id).source];
  const bool ends_in_time = spec.duration && now + *spec.duration <= reservation_.shadow;
  // It still runs when the reserved pod is due: the reserved nodes are withheld from it.
  withheld_.clear();
  if (!ends_in_time) {
    for (const cluster::NodeIndex n : reservation_.nodes) {
      if (cache_.present(n)) {
        cache_.set_present(n, false);
        withheld_.push_back(n);
      }
    }
  }
  const bool placed = place(id, spec, now);
  for (const cluster::NodeIndex n : withheld_) cache_.set_present(n, true);
  // A gang that has started places only replacement workers: its failure says nothing of the
  // layout's other gangs.
  if (!placed && !(spec.gang != 0 && gang_started_[spec.gang])) {
    if (ends_in_time) failed_in_cycle_[shape] = cycle_;  // it failed with every node: so will all of its shape
    failed_withheld_in_cycle_[shape] = cycle_;
  }
  return placed;
}

// Dynamic MIG: the devices of node n's GPUs this scheduler asked to re-partition, while the
// status does not show the new layout yet.
cluster::GpuSet Scheduler::being_repartitioned(cluster::NodeIndex n) {
  const NodeStatus& status = api_.node_status(n);
  const core::Time now = bus_.now();
  std::erase_if(mig_pending_, [&](const PendingLayout& p) {
    if (p.node != n) return false;
    const int slots = setup_[n].replicas();
    const bool shown = status.mig_layouts != 0 && static_cast<int>((status.mig_layouts >> (4 * p.gpu)) & 0xFU) == p.layout &&
                       !status.unadvertised.contains(p.gpu * slots);
    return shown || p.until <= now;
  });
  cluster::GpuSet slots_hidden;
  for (const PendingLayout& p : mig_pending_) {
    if (p.node != n) continue;
    const int slots = setup_[n].replicas();
    for (int i = 0; i < slots; ++i) slots_hidden.add(p.gpu * slots + i);
  }
  return slots_hidden;
}

void Scheduler::apply_status(cluster::NodeIndex n) {
  const cluster::NodeSpec& node = cache_.node(n);
  if (node.gpu_count == 0) return;
  const NodeStatus& status = api_.node_status(n);
  const NodeSetup& setup = setup_[n];
  if (setup.mig_dynamic) {
    // Re-partitioned GPUs advertise other profiles: each slot's resource as the status lists it.
    const int slots = setup.replicas();
    for (int d = 0; d < node.gpu_count; ++d) {
      const int gpu = d / slots;
      // Before the kubelet's first status: the layout the node starts with.
      const int layout = status.mig_layouts == 0 ? NodeSetup::kInitialLayout
                                                 : static_cast<int>((status.mig_layouts >> (4 * gpu)) & 0xFU);
      const std::vector<int>& shapes = setup.mig_layout(layout);
      const auto i = static_cast<std::size_t>(d % slots);
      const std::uint8_t device_class = i < shapes.size() ? static_cast<std::uint8_t>(1 + shapes[i]) : 0;
      if (node.device_class[static_cast<std::size_t>(d)] != device_class) cache_.set_device_class(n, d, device_class);
    }
  }
  if (scheduler_picks_gpus(setup_[n].model) || setup.mig_dynamic) {
    // The extender knows device ids: exactly the published unhealthy devices are unavailable
    // (dynamic MIG: HAMi's scheduler names the instances, and hides GPUs it re-partitions).
    cluster::GpuSet hidden = status.unadvertised;
    if (setup.mig_dynamic) hidden |= being_repartitioned(n);
    for (int g = 0; g < node.gpu_count; ++g) {
      const bool available = !hidden.contains(g);
      if (cache_.gpu_healthy(n, g) != available) cache_.set_gpu_healthy(n, g, available);
    }
    return;
  }
  // A count: mark (capacity - allocatable) GPUs unavailable, free ones first from the highest
  // index, then used ones. Free GPUs then number max(0, allocatable - used), as in kube-scheduler.
  // MIG (static): a count per instance resource, so as many of each profile as the status lacks
  // (the kubelet, not the scheduler, picked which instance each pod holds).
  const auto unallocated = cache_.gpu_milli_unallocated(n);
  cluster::GpuSet hidden;
  const auto hide = [&](int to_hide, std::uint8_t device_class) {
    for (int pass = 0; pass < 2 && to_hide > 0; ++pass) {
      for (int g = node.gpu_count - 1; g >= 0 && to_hide > 0; --g) {
        const bool used = unallocated[static_cast<std::size_t>(g)] < cluster::kMilliPerGpu;
        if (hidden.contains(g) || (pass == 0 && used)) continue;
        if (cluster::has_device_classes(node) && node.device_class[static_cast<std::size_t>(g)] != device_class) continue;
        hidden.add(g);
        --to_hide;
      }
    }
  };
  if (cluster::has_device_classes(node)) {
    std::array<int, 1 + cluster::kMigShapes> missing{};
    for (int g = 0; g < node.gpu_count; ++g) {
      if (status.unadvertised.contains(g)) ++missing[node.device_class[static_cast<std::size_t>(g)]];
    }
    for (std::size_t c = 0; c < missing.size(); ++c) hide(missing[c], static_cast<std::uint8_t>(c));
  } else {
    hide(node.gpu_count - std::clamp(status.allocatable_gpus, 0, node.gpu_count), 0);
  }
  for (int g = 0; g < node.gpu_count; ++g) {
    const bool available = !hidden.contains(g);
    if (cache_.gpu_healthy(n, g) != available) cache_.set_gpu_healthy(n, g, available);
  }
}

}  // namespace gpusim::k8s
