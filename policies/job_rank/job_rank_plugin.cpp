#include "policies/job_rank/job_rank_plugin.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

#include "policies/builtin_parts.hpp"
#include "sim/core/check.hpp"
#include "policies/job_rank/job_priority.hpp"
#include "policies/preemption/preemptor.hpp"
#include "sim/k8s/queueing_plugin.hpp"

namespace gpusim::policy {
namespace {

using k8s::JobPriority;
using k8s::PodId;

constexpr std::uint32_t kDemote = 0;        // timer: a running job passes a threshold (payload: pod)
constexpr std::uint32_t kPromote = 1;       // timer: a waiting job is due back in queue 0 (payload: pod)
constexpr std::uint32_t kCheckpointed = 2;  // timer: a running pod passed its first checkpoint: it may be a victim now

class JobRank final : public k8s::QueueingPlugin {
 public:
  JobRank(std::string name, std::optional<k8s::CandidateSampling> sampling)
      : name_(std::move(name)), sampling_(sampling) {}
  std::string_view name() const override { return name_; }

  bool evicts() const override { return true; }
  void attach(k8s::SchedulerHandle& handle) override {
    h_ = &handle;
    const sched::Profile& profile = handle.profile();
    const k8s::QueueingInputs& inputs = handle.inputs();
    GPUSIM_CHECK(profile.preemption != sched::Preemption::kNone, "a job ranking in a profile that does not preempt");
    GPUSIM_CHECK(inputs.ledger != nullptr, "a job ranking without a job ledger");
    priority_.emplace(profile, handle.workload(), *inputs.ledger);
    // Deep-learning jobs checkpoint: they are preempted only past their first checkpoint of a run,
    // unless preemption is free (it then keeps all their work: kEvictRequest's checkpoint-first kind).
    const bool free = inputs.free_preemption;
    wait_for_checkpoint_ =
        !free && (profile.preemption == sched::Preemption::kSrtf || profile.preemption == sched::Preemption::kTiresias);
    eviction_kind_ = free ? 3 : 1;
    preemptor_.emplace(handle.cache(), handle.api(), handle.workload(), handle.node_setup(), handle.assumed(),
                       handle.bound_on_nodes(), handle.evicting(), *priority_, inputs.checkpoint_interval,
                       wait_for_checkpoint_);
    // A stream of its own: the offsets do not move any other seeded draw.
    if (sampling_) preemptor_->sample_candidates(*sampling_, core::Rng::stream(inputs.seed, "default-preemption-offsets"));
  }

  bool orders_queue() const override { return true; }
  bool ranks_before(PodId a, PodId b) const override { return std::tie(key_[a], a) < std::tie(key_[b], b); }

  void pod_queued(PodId id, core::Time now) override {
    const std::uint32_t source = h_->api().pod(id).source;
    if (key_.size() <= id) key_.resize(std::size_t{id} + 1);
    priority_->enter(source, now);
    key_[id] = priority_->key(source, now);
    const core::Time due = priority_->promotion_due(source);
    if (due != JobPriority::kNever) h_->set_timer(*this, kPromote, id, std::max(due, now));
  }

  void pod_running(PodId id, std::uint32_t source, core::Time now) override {
    // Tiresias: the job moves down a queue when its attained service passes a threshold, which
    // may let a waiting job preempt it.
    priority_->started(source, now);
    const core::Time when = priority_->next_demotion(source, now);
    if (when != JobPriority::kNever) h_->set_timer(*this, kDemote, id, when);
    // A pod that waits for a victim may find one when this pod reaches its first checkpoint.
    if (wait_for_checkpoint_) h_->set_timer(*this, kCheckpointed, id, now + h_->inputs().checkpoint_interval);
  }

  void pod_released(PodId, const k8s::Message& ended) override {
    if (ended.reason == k8s::Reason::kSucceeded || ended.reason == k8s::Reason::kTraceFailed ||
        ended.reason == k8s::Reason::kDeletedByOwner) {
      priority_->ended(ended.source);
    }
  }

  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override {
    const auto id = static_cast<PodId>(payload);
    if (tag == kDemote) {
      if (h_->api().pod(id).phase != k8s::PodPhase::kRunning) return;
      priority_->demoted(h_->api().pod(id).source, now);
      const core::Time next = priority_->next_demotion(h_->api().pod(id).source, now);
      if (next != JobPriority::kNever) h_->set_timer(*this, kDemote, id, next);
      h_->request_cycle(now);
    } else if (tag == kCheckpointed) {
      if (!h_->pending().empty() && h_->api().pod(id).phase == k8s::PodPhase::kRunning) h_->request_cycle(now);
    } else {
      promote(id, now);
    }
  }

  bool post_filter(PodId id, const cluster::PodSpec& spec, core::Time now) override;

  // Tiresias in its simulator's queue order: the end of a pass reorders the queue lists.
  void cycle_done(core::Time now) override {
    if (priority_->queue_lists()) reorder_by_queue_lists(now);
  }

 private:
  // Tiresias: a waiting job due back in queue 0 moves up the queue.
  void promote(PodId id, core::Time now);
  void reorder_by_queue_lists(core::Time now);

  std::string name_;
  std::optional<k8s::CandidateSampling> sampling_;
  k8s::SchedulerHandle* h_ = nullptr;
  std::optional<JobPriority> priority_;
  std::optional<k8s::Preemptor> preemptor_;
  // Each pending pod object's queue key (fixed while it waits, but for Tiresias' promotions).
  std::vector<k8s::PriorityKey> key_;
  bool wait_for_checkpoint_ = false;  // victims must have passed their first checkpoint (srtf, tiresias)
  std::int64_t eviction_kind_ = 1;    // kEvictRequest's value for a preemption: 1, or 3 (keeps all work)
  std::vector<PodId> victims_;        // reused by post_filter
  std::vector<PodId> one_worker_;     // reused
  // The smallest ask that found no victims in this cycle: pods queued after it rank no higher, so
  // they have no more victims to choose from, and one that asks at least as much (with no
  // placement rules and no more GPU models allowed) fails too.
  struct FailedAsk {
    std::uint64_t cycle = 0;
    std::int32_t gpus = 0;
    std::int64_t cpu_milli = 0, memory_mib = 0;
    std::uint64_t models = 0;  // allowed GPU models (0: any)
  };
  FailedAsk failed_;
};

bool JobRank::post_filter(PodId id, const cluster::PodSpec& spec, core::Time now) {
  // The shortcut holds for whole-GPU pods without placement rules, the only ones that look for
  // victims at all (others are refused whatever runs, so their refusal says nothing).
  const bool plain = spec.gang == 0 && spec.constraints == nullptr && spec.gpu_count > 0 && spec.gpu_milli == cluster::kMilliPerGpu;
  if (plain && failed_.cycle == h_->cycle() && spec.gpu_count >= failed_.gpus && spec.cpu_milli >= failed_.cpu_milli &&
      spec.memory_mib >= failed_.memory_mib &&
      (failed_.models == 0 || (spec.allowed_models.bits != 0 && (spec.allowed_models.bits & ~failed_.models) == 0))) {
    return false;
  }
  one_worker_.assign(1, id);
  const std::vector<PodId>& workers = spec.gang != 0 ? h_->gang_pending(spec.gang) : one_worker_;
  if (!preemptor_->choose(workers, now, victims_) || victims_.empty()) {
    if (plain) failed_ = {h_->cycle(), spec.gpu_count, spec.cpu_milli, spec.memory_mib, spec.allowed_models.bits};
    return false;
  }
  for (const PodId victim : victims_) h_->request_eviction(victim, eviction_kind_, now);
  return true;
}

void JobRank::promote(PodId id, core::Time now) {
  const k8s::PodObject& pod = h_->api().pod(id);
  if (pod.phase != k8s::PodPhase::kPending || priority_->promotion_due(pod.source) > now) return;
  priority_->promote(pod.source, now);
  // Every waiting pod of the job moves: the pod, or its gang's workers.
  const std::uint32_t gang = h_->workload()[pod.source].gang;
  one_worker_.assign(1, id);
  const std::vector<PodId>& moved = gang != 0 ? h_->gang_pending(gang) : one_worker_;
  std::vector<PodId>& pending = h_->pending();
  for (const PodId member : moved) {
    const auto it = std::find(pending.begin(), pending.end(), member);
    if (it == pending.end()) continue;
    pending.erase(it);
    key_[member] = priority_->key(h_->api().pod(member).source, now);
    h_->queue_insert(member);
  }
  h_->request_cycle(now);
}

void JobRank::reorder_by_queue_lists(core::Time now) {
  const bool keys_changed = priority_->end_of_pass([&](std::uint32_t row) {
    const PodId pod = h_->api().latest(row);
    if (pod == k8s::kNoPod || h_->is_evicting(pod)) return false;
    const k8s::PodPhase phase = h_->api().pod(pod).phase;
    return phase == k8s::PodPhase::kBound || phase == k8s::PodPhase::kAdmitted || phase == k8s::PodPhase::kRunning;
  });
  if (!keys_changed) return;
  std::vector<PodId>& pending = h_->pending();
  for (const PodId id : pending) key_[id] = priority_->key(h_->api().pod(id).source, now);
  std::sort(pending.begin(), pending.end(), [&](PodId a, PodId b) { return ranks_before(a, b); });
}

}  // namespace

std::unique_ptr<sched::Plugin> make_job_rank_plugin(std::string name, std::optional<k8s::CandidateSampling> sampling) {
  return std::make_unique<JobRank>(std::move(name), sampling);
}

void register_job_rank(sched::Registry& registry) {
  for (const char* name : {"srtf", "tiresias"}) {
    registry.add_queueing(name, [name](const sched::PluginContext&) { return make_job_rank_plugin(name); });
  }
}

}  // namespace gpusim::policy
