// The scheduler's rounds for time-sharing profiles (Gavel, OSDI'20): which jobs run in each round
// comes from TimeShareRounds; this file turns the plan into evictions and bindings.
#include <algorithm>

#include "sim/core/check.hpp"
#include "sim/k8s/scheduler.hpp"

namespace gpusim::k8s {
namespace {
// kEvictRequest's value for a job suspended at the end of its round: it checkpoints first (Gavel's
// lease ends), so it loses no work.
constexpr std::int64_t kEvictAtLeaseEnd = 2;
}  // namespace

void Scheduler::enable_time_sharing(const JobLedger& ledger, const perf::JobTypeSpeeds* speeds, core::Time round_length,
                                    std::uint64_t seed) {
  GPUSIM_CHECK(pending_.empty(), "time sharing enabled after pods were queued");
  GPUSIM_CHECK(round_length > core::Time::zero(), "a round must last");
  std::vector<cluster::NodeSpec> nodes;
  nodes.reserve(cache_.node_count());
  for (cluster::NodeIndex n = 0; n < cache_.node_count(); ++n) nodes.push_back(cache_.node(n));
  rounds_.emplace(framework_.profile(), nodes, pods_, speeds, ledger, seed);
  round_length_ = round_length;
  live_pods_.assign(pods_.size(), 0);
  on_node_.resize(cache_.node_count());
}

void Scheduler::round_pod_created(PodId id, core::Time now) {
  const std::uint32_t job = rounds_->job_of(api_.pod(id).source);
  if (!rounds_->plannable(job)) return;
  ++live_pods_[job];
  rounds_->arrive(job, now);
  idle_rounds_ = 0;
  // Rounds run while jobs are active; the first job after an idle spell starts one at once.
  if (!round_queued_) {
    bus_.set_timer(*this, kRound, 0, now, core::Phase::kSchedule);
    round_queued_ = true;
  }
}

void Scheduler::round_pod_ended(PodId id, const Message& message) {
  const std::uint32_t job = rounds_->job_of(api_.pod(id).source);
  if (!rounds_->plannable(job)) return;
  --live_pods_[job];
  rounds_->stopped(job);
  // A job suspended by a round comes back (its owner recreates the pod); one that ended, failed
  // for good or was deleted leaves once none of its pods is left.
  const bool comes_back = message.reason == Reason::kSuspended || message.reason == Reason::kPreempted;
  if (!comes_back && live_pods_[job] == 0) rounds_->leave(job);
}

void Scheduler::run_round(core::Time now) {
  if (!rounds_->any_active()) return;  // idle: the next arrival starts a round
  // Jobs that pass the GPU-count check but fit no node (CPU, memory, gang layouts) would make
  // rounds run forever on an empty cluster: after 3 rounds with no pod bound and no job created,
  // nothing can change, and the rounds stop (the next pod created starts them again).
  const bool busy = std::any_of(on_node_.begin(), on_node_.end(), [](const std::vector<PodId>& pods) { return !pods.empty(); });
  idle_rounds_ = busy ? 0 : idle_rounds_ + 1;
  if (idle_rounds_ > 3) return;
  rounds_->plan(now);
  // Jobs that run elsewhere than their round's type (or not at all in it) are suspended.
  for (const std::vector<PodId>& bound : on_node_) {
    for (const PodId pod : bound) {
      const std::uint32_t source = api_.pod(pod).source;
      const std::uint32_t job = rounds_->job_of(source);
      if (!rounds_->plannable(job) || rounds_->planned(job) == rounds_->running(job)) continue;
      if (pod < evicting_.size() && evicting_[pod]) continue;
      request_eviction(pod, kEvictAtLeaseEnd, now);
    }
  }
  bus_.set_timer(*this, kRound, 0, now + round_length_, core::Phase::kSchedule);
  round_queued_ = true;
  request_cycle(now);
}

const cluster::PodSpec& Scheduler::spec_to_place(PodId id) {
  const cluster::PodSpec& spec = pods_[api_.pod(id).source];
  if (!rounds_ || !rounds_->plannable(rounds_->job_of(api_.pod(id).source))) return spec;
  const std::int8_t type = rounds_->planned(rounds_->job_of(api_.pod(id).source));
  GPUSIM_CHECK(type != TimeShareRounds::kNone, "placing a pod its round did not plan");
  round_spec_ = spec;
  const std::uint64_t models = rounds_->models_of(type).bits;
  round_spec_.allowed_models.bits = spec.allowed_models.bits == 0 ? models : spec.allowed_models.bits & models;
  return round_spec_;
}

// Places the pending pods of the jobs planned in this round, jobs with more GPUs first (as Gavel
// assigns workers, to keep large jobs whole), then in queue order, and CPU-only pods. Pods of jobs
// left out wait for a round that plans them; GPUs a job frees mid-round stay idle until the next
// round.
void Scheduler::run_round_cycle(core::Time now) {
  round_order_.clear();
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    const cluster::PodSpec& spec = pods_[api_.pod(pending_[i]).source];
    const std::uint32_t job = rounds_->job_of(api_.pod(pending_[i]).source);
    // CPU-only pods are not time-shared: they are placed as they come (a GPU job no type can hold
    // is not planned either, and never starts).
    if (spec.gpu_count == 0 && spec.gang == 0) {
      round_order_.emplace_back(0, i);
      continue;
    }
    if (rounds_->planned(job) == TimeShareRounds::kNone) continue;
    if (rounds_->running(job) != TimeShareRounds::kNone && rounds_->running(job) != rounds_->planned(job)) continue;  // leaving its old type first
    if (spec.gang != 0 && !gang_ready(spec.gang)) continue;
    round_order_.emplace_back(-(spec.gang != 0 ? static_cast<std::int32_t>(gang_size_[spec.gang]) * spec.gpu_count : spec.gpu_count),
                              i);
  }
  std::sort(round_order_.begin(), round_order_.end());
  round_placed_.assign(pending_.size(), 0);
  for (const auto& [gpus, i] : round_order_) {
    const PodId id = pending_[i];
    if (id < bound_by_gang_.size() && bound_by_gang_[id]) {
      round_placed_[i] = 1;
      continue;
    }
    const cluster::PodSpec& spec = pods_[api_.pod(id).source];
    if (place(id, spec, now) && spec.gang == 0) round_placed_[i] = 1;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (!round_placed_[i]) pending_[kept++] = pending_[i];
  }
  pending_.resize(kept);
  drop_gang_bound();
}

}  // namespace gpusim::k8s
