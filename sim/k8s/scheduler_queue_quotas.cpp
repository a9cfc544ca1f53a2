// Queue quotas in the style of Volcano's proportion and capacity plugins (sim/k8s/queue_quotas.hpp):
// the cycle's walk (run_drf_cycle) serves the queue with the least held over deserved GPUs and
// leaves waiting what a queue's real capability does not allow; then the reclaim action below lets
// a queue within its deserved GPUs take back what other queues hold beyond theirs.
#include <algorithm>

#include "sim/core/check.hpp"
#include "sim/k8s/scheduler.hpp"

namespace gpusim::k8s {

void Scheduler::enable_queue_quotas(QueueQuotas quotas, const JobLedger& ledger, core::Time checkpoint_interval) {
  GPUSIM_CHECK(pending_.empty(), "queue quotas enabled after pods were queued");
  GPUSIM_CHECK(!drf_lists_.empty() && quotas.queues.size() >= drf_lists_.size(), "quotas for fewer queues than the workload has");
  std::int64_t gpus = 0;
  for (cluster::NodeIndex n = 0; n < cache_.node_count(); ++n) gpus += std::int64_t{cache_.node(n).gpu_count} * cluster::kMilliPerGpu;
  const bool proportion = framework_.profile().queue_quotas == sched::QueueQuotaMode::kProportion;
  quotas_.emplace(std::move(quotas), proportion, gpus);
  checkpoint_interval_ = checkpoint_interval;
  // Victims are ranked by the work they lose, then (no priorities) the newest job first.
  sched::Profile plain = framework_.profile();
  plain.preemption = sched::Preemption::kNone;
  reclaim_order_.emplace(plain, pods_, ledger);
  preemptor_.emplace(cache_, api_, pods_, setup_, assumed_, on_node_, evicting_, *reclaim_order_, checkpoint_interval, false);
  preemptor_->reclaim_for(*quotas_);
}

std::int64_t Scheduler::ask_of(const cluster::PodSpec& spec) const {
  if (spec.gang == 0) return spec.total_gpu_milli();
  std::int64_t milli = 0;
  for (const PodId member : gang_pending_[spec.gang]) milli += pods_[api_.pod(member).source].total_gpu_milli();
  return milli;
}

bool Scheduler::reclaim_for_queues(core::Time now) {
  // Victims come only from reclaimable queues above their deserved GPUs: with none (or one, which
  // may not reclaim from itself) there is nothing to look for.
  int lenders = 0;
  std::uint32_t lender = 0;
  for (std::uint32_t q = 0; q < drf_lists_.size(); ++q) {
    if (quotas_->may_take_from(q, 0, 0)) {
      ++lenders;
      lender = q;
    }
  }
  if (lenders == 0) return false;
  queue_order_.clear();
  for (std::uint32_t q = 0; q < drf_lists_.size(); ++q) {
    if (!drf_lists_[q].empty() && !(lenders == 1 && q == lender)) queue_order_.push_back(q);
  }
  std::stable_sort(queue_order_.begin(), queue_order_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return quotas_->share(a) < quotas_->share(b); });
  for (const std::uint32_t q : queue_order_) {
    // Nothing in a queue may reclaim if its smallest ask would take it past its deserved GPUs; a
    // queue whose nominated job has not been placed yet waits for it.
    if (!quotas_->may_reclaim(q, smallest_ask_[q])) continue;
    if (std::any_of(nominated_.begin(), nominated_.end(), [&](const Nomination& n) { return n.queue == q; })) continue;
    for (const std::uint32_t index : drf_lists_[q]) {
      const PodId id = pending_[index];
      if (drf_placed_[index] || (id < bound_by_gang_.size() && bound_by_gang_[id])) continue;
      const cluster::PodSpec& spec = pods_[api_.pod(id).source];
      if (spec.gang != 0 && (!gang_ready(spec.gang) || gang_started_[spec.gang])) continue;
      if (!quotas_->may_reclaim(q, ask_of(spec))) continue;
      // The queue's first job that may reclaim: it finds victims or the queue waits this cycle.
      one_worker_.assign(1, id);
      const std::vector<PodId>& workers = spec.gang != 0 ? gang_pending_[spec.gang] : one_worker_;
      if (!preemptor_->choose(workers, now, victims_) || victims_.empty()) break;
      for (const PodId victim : victims_) request_eviction(victim, 1, now);
      reclaim_evictions_ += static_cast<std::int64_t>(victims_.size());
      nominated_.push_back({id, q, victims_});
      return true;
    }
  }
  return false;
}

void Scheduler::place_nominated(core::Time now) {
  std::size_t kept = 0;
  for (std::size_t k = 0; k < nominated_.size(); ++k) {
    Nomination& nomination = nominated_[k];
    const auto it = std::find(pending_.begin(), pending_.end(), nomination.pod);
    if (it == pending_.end()) continue;  // placed with its gang, or deleted
    const auto index = static_cast<std::size_t>(it - pending_.begin());
    const cluster::PodSpec& spec = pods_[api_.pod(nomination.pod).source];
    const bool victims_gone = std::none_of(nomination.victims.begin(), nomination.victims.end(), [&](PodId v) {
      return v < evicting_.size() && evicting_[v];
    });
    const bool ready = spec.gang == 0 || gang_ready(spec.gang);
    if (ready && quotas_->allocatable(spec.queue, ask_of(spec)) && place(nomination.pod, spec, now)) {
      drf_placed_[index] = 1;
      continue;
    }
    if (victims_gone) continue;
    if (kept != k) nominated_[kept] = std::move(nomination);
    ++kept;
  }
  nominated_.resize(kept);
}

}  // namespace gpusim::k8s
