// Queue quotas in the style of Volcano's proportion and capacity plugins (queueAdmission Proportion
// and Capacity; the book itself is sim/k8s/queue_quotas.hpp): the cycle's walk serves the queue with
// the least held over deserved GPUs and leaves waiting what a queue's real capability does not
// allow; then the reclaim action lets a queue within its deserved GPUs take back what other queues
// hold beyond theirs (victims restart from their last checkpoint).
#include <algorithm>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "policies/builtin_parts.hpp"
#include "policies/queueing/progressive_filling.hpp"
#include "sim/core/check.hpp"
#include "policies/job_rank/job_priority.hpp"
#include "policies/preemption/preemptor.hpp"

namespace gpusim::policy {
namespace {

using k8s::PodId;

double gpus(std::int64_t milli) { return static_cast<double>(milli) / cluster::kMilliPerGpu; }

// Volcano's ReclaimableFn as the preemptor's rule: pods of other queues holding more than their
// deserved GPUs, while their queue keeps its guarantee.
class VolcanoReclaim final : public k8s::ReclaimRule {
 public:
  explicit VolcanoReclaim(const k8s::QuotaBook& quotas) : quotas_(quotas) {}
  bool may_take(const cluster::PodSpec& reclaimer, const cluster::PodSpec& victim, std::int64_t job_gpu_milli,
                std::span<const std::int64_t> taken) const override {
    return victim.queue != reclaimer.queue && quotas_.may_take_from(victim.queue, taken[victim.queue], job_gpu_milli);
  }

 private:
  const k8s::QuotaBook& quotas_;
};

class QueueQuotasPlugin final : public ProgressiveFilling {
 public:
  QueueQuotasPlugin(std::string name, bool proportion) : name_(std::move(name)), proportion_(proportion) {
    limits_queues_ = true;
  }
  std::string_view name() const override { return name_; }

  bool evicts() const override { return true; }
  void attach(k8s::SchedulerHandle& handle) override {
    ProgressiveFilling::attach(handle);
    const k8s::QueueingInputs& inputs = handle.inputs();
    GPUSIM_CHECK(inputs.ledger != nullptr, "queue quotas without a job ledger");
    GPUSIM_CHECK(inputs.queue_quotas != nullptr, "queue quotas without the queues' quotas");
    k8s::QueueQuotas quotas = *inputs.queue_quotas;
    GPUSIM_CHECK(quotas.queues.size() >= queues(), "quotas for fewer queues than the workload has");
    const cluster::ClusterState& cache = handle.cache();
    std::int64_t cluster_gpus = 0;
    for (cluster::NodeIndex n = 0; n < cache.node_count(); ++n) cluster_gpus += std::int64_t{cache.node(n).gpu_count} * cluster::kMilliPerGpu;
    quotas_.emplace(std::move(quotas), proportion_, cluster_gpus);
    // Victims are ranked by the work they lose, then (no priorities) the newest job first.
    sched::Profile plain = handle.profile();
    plain.preemption = sched::Preemption::kNone;
    reclaim_order_.emplace(plain, handle.workload(), *inputs.ledger);
    preemptor_.emplace(cache, handle.api(), handle.workload(), handle.node_setup(), handle.assumed(), handle.bound_on_nodes(),
                       handle.evicting(), *reclaim_order_, inputs.checkpoint_interval, false);
    rule_.emplace(*quotas_);
    preemptor_->reclaim_for(*rule_);
  }

  void pod_waiting(PodId id, int sign) override {
    const cluster::PodSpec& spec = h_->spec_of(id);
    quotas_->add_waiting(spec.queue, sign * spec.total_gpu_milli());
  }
  void pod_bound(PodId id, const cluster::Placement&, core::Time) override {
    const cluster::PodSpec& spec = h_->spec_of(id);
    quotas_->add_held(spec.queue, spec.total_gpu_milli());
  }
  void pod_released(PodId id, const k8s::Message&) override {
    const cluster::PodSpec& spec = h_->spec_of(id);
    quotas_->add_held(spec.queue, -spec.total_gpu_milli());
  }

  std::optional<sched::NeverRanReason> never_ran(PodId id, std::span<const std::string> queue_names) const override {
    const cluster::PodSpec& spec = h_->spec_of(id);
    if (quotas_->allocatable(spec.queue, ask_of(spec))) return std::nullopt;
    const std::string queue = spec.queue < queue_names.size() ? queue_names[spec.queue] : std::to_string(spec.queue);
    return sched::NeverRanReason{
        fmt::format("its queue {} was at its capability: it held {:g} GPUs of {:g}, and the pod asks {:g} more", queue,
                    gpus(quotas_->held(spec.queue)), gpus(quotas_->real_capability(spec.queue)), gpus(ask_of(spec))),
        {"queue at its capability (queue quotas)"}};
  }

  void add_metrics(const k8s::MetricSink& set) const override {
    set("reclaim_evictions", static_cast<double>(reclaim_evictions_));
  }

 private:
  void begin_cycle() override { quotas_->refresh(); }
  double share(std::size_t queue) const override { return quotas_->share(static_cast<std::uint32_t>(queue)); }
  bool admits(const cluster::PodSpec& spec) const override { return quotas_->allocatable(spec.queue, ask_of(spec)); }
  bool admits_smallest(std::uint32_t queue) const override { return quotas_->allocatable(queue, smallest_ask(queue)); }
  void before_walk(core::Time now) override { place_nominated(now); }
  bool after_walk(core::Time now) override { return h_->profile().reclaim && reclaim_for_queues(now); }
  // Volcano's reclaim action, after the cycle's walk: the queues least served first, each tries
  // its first waiting job that stays within its deserved GPUs; true if it asked for evictions.
  bool reclaim_for_queues(core::Time now);

  std::string name_;
  bool proportion_;
  std::optional<k8s::QuotaBook> quotas_;
  std::optional<k8s::JobPriority> reclaim_order_;
  std::optional<VolcanoReclaim> rule_;
  std::optional<k8s::Preemptor> preemptor_;
  std::vector<std::uint32_t> queue_order_;  // reused by reclaim_for_queues
  std::vector<PodId> victims_;              // reused
  std::vector<PodId> one_worker_;           // reused
  std::int64_t reclaim_evictions_ = 0;
};

bool QueueQuotasPlugin::reclaim_for_queues(core::Time now) {
  // Victims come only from reclaimable queues above their deserved GPUs: with none (or one, which
  // may not reclaim from itself) there is nothing to look for.
  int lenders = 0;
  std::uint32_t lender = 0;
  for (std::uint32_t q = 0; q < queues(); ++q) {
    if (quotas_->may_take_from(q, 0, 0)) {
      ++lenders;
      lender = q;
    }
  }
  if (lenders == 0) return false;
  queue_order_.clear();
  for (std::uint32_t q = 0; q < queues(); ++q) {
    if (!lists()[q].empty() && !(lenders == 1 && q == lender)) queue_order_.push_back(q);
  }
  std::stable_sort(queue_order_.begin(), queue_order_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return quotas_->share(a) < quotas_->share(b); });
  const std::vector<PodId>& pending = h_->pending();
  for (const std::uint32_t q : queue_order_) {
    // Nothing in a queue may reclaim if its smallest ask would take it past its deserved GPUs; a
    // queue whose nominated job has not been placed yet waits for it.
    if (!quotas_->may_reclaim(q, smallest_ask(q))) continue;
    if (has_nomination(q)) continue;
    for (const std::uint32_t index : lists()[q]) {
      const PodId id = pending[index];
      if (placed()[index] || h_->bound_by_gang(id)) continue;
      const cluster::PodSpec& spec = h_->spec_of(id);
      if (spec.gang != 0 && (!h_->gang_ready(spec.gang) || h_->gang_started(spec.gang))) continue;
      if (!quotas_->may_reclaim(q, ask_of(spec))) continue;
      // The queue's first job that may reclaim: it finds victims or the queue waits this cycle.
      one_worker_.assign(1, id);
      const std::vector<PodId>& workers = spec.gang != 0 ? h_->gang_pending(spec.gang) : one_worker_;
      if (!preemptor_->choose(workers, now, victims_) || victims_.empty()) break;
      for (const PodId victim : victims_) h_->request_eviction(victim, 1, now);
      reclaim_evictions_ += static_cast<std::int64_t>(victims_.size());
      nominate(id, q, victims_);
      return true;
    }
  }
  return false;
}

}  // namespace

void register_queue_quotas(sched::Registry& registry) {
  registry.add_queueing("proportion", [](const sched::PluginContext&) { return std::make_unique<QueueQuotasPlugin>("proportion", true); });
  registry.add_queueing("capacity", [](const sched::PluginContext&) { return std::make_unique<QueueQuotasPlugin>("capacity", false); });
}

}  // namespace gpusim::policy
