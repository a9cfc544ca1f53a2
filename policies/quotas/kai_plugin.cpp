// The KAI Scheduler (queueAdmission Kai; kai-scheduler/KAI-Scheduler at d5bc503a) over KAI's Queue
// objects (sim/k8s/kai_queues.hpp). Every cycle is one KAI session:
//   - the proportion plugin divides the cluster's GPUs, CPU and memory among the queues, level by
//     level down the tree: quota first, then the surplus by over-quota priority, then by weight
//     (sim/k8s/kai_fair_share.hpp), from what each subtree holds and asks;
//   - allocate serves the queues in KAI's queue order (plugins/proportion/queue_order: not
//     over-utilized, starved, priority, no zero-share penalty, smaller dominant share with the job,
//     without it, smaller allocatable share, creation), compared between the two queues' ancestors
//     that are siblings, each with its next job; a job whose ask passes a queue's limit on its path
//     (OverLimit), or, non-preemptible, its quota (NonPreemptibleOverQuota), waits;
//   - reclaim lets a queue's job that stays within its fair share take running jobs of other queues,
//     preemptible ones, while KAI's strategies allow (plugins/proportion/reclaimable: the victim's
//     side still above its allocatable share, or the reclaimer's side within its quota and the
//     victim's above its own; and the reclaimer's side, saturated, not more so than the victim's);
//   - preempt lets a job take running jobs of its own queue of a strictly lower priority;
//   - both try every pending job of a queue until one finds victims, skipping a job no easier to
//     schedule than one of its queue and signature whose search already failed in the action
//     (KaiFailedJobs), and count a job that made room in its queue's allocation for the rest of the
//     cycle (pipelined); a node scan per try is spared where no node could make room (RoomCeiling).
// Victims are chosen node by node by gpusim's preemptor (policies/preemption/preemptor.hpp), in KAI's
// victim order (the queue served last gives first; then the lowest priority), and restart from their
// last checkpoint. A job's priority is its PriorityClass value (trace jobs: 0); below 100 it is
// preemptible, as KAI's default. Left out: consolidation, stale-gang eviction, min-runtime
// protection, time-based fairness (usage k = 0), and the reclaim strategies on CPU and memory (they
// are checked on GPUs, what the preemptor frees).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "policies/builtin_parts.hpp"
#include "policies/job_rank/job_priority.hpp"
#include "policies/preemption/preemptor.hpp"
#include "policies/preemption/room_ceiling.hpp"
#include "policies/queueing/progressive_filling.hpp"
#include "policies/quotas/kai_failed_jobs.hpp"
#include "sim/core/check.hpp"
#include "sim/k8s/kai_fair_share.hpp"
#include "sim/k8s/kai_metrics.hpp"
#include "sim/k8s/kai_queues.hpp"

namespace gpusim::policy {
namespace {

using k8s::PodId;
namespace kai = k8s::kai;

enum Resource : std::size_t { kGpu, kCpu, kMemory, kResources };
using Amounts = std::array<double, kResources>;
constexpr const char* kResourceNames[kResources] = {"gpu", "cpu", "memory"};
constexpr double kUnlimited = kai::kUnlimited;
constexpr double kNoFairShareMultiplier = 1000;  // a resource with nothing allocatable: the maximum penalty
constexpr std::int32_t kNonPreemptiblePriority = 100;

// What a pod asks in KAI's units: GPUs in devices, CPU in millicores, memory in megabytes (10^6 bytes).
Amounts amounts_of(const cluster::PodSpec& spec) {
  return {static_cast<double>(spec.total_gpu_milli()) / cluster::kMilliPerGpu, static_cast<double>(spec.cpu_milli),
          static_cast<double>(spec.memory_mib) * 1.048576};
}

// a <= b, -1 standing for unlimited (compareQuantities).
bool at_most(double a, double b) { return b == kUnlimited || (a != kUnlimited && a <= b); }

class KaiPlugin;

// KAI's reclaim validator (plugins/proportion/reclaimable) as the preemptor's rule.
class KaiReclaim final : public k8s::ReclaimRule {
 public:
  explicit KaiReclaim(const KaiPlugin& kai) : kai_(kai) {}
  bool may_take(const cluster::PodSpec& reclaimer, const cluster::PodSpec& victim, std::int64_t job_gpu_milli,
                std::span<const std::int64_t> taken) const override;
  std::int64_t victim_rank(const cluster::PodSpec& victim) const override;

 private:
  const KaiPlugin& kai_;
};

// KAI's preempt action as the preemptor's rule: the same queue, strictly lower priority, preemptible.
class KaiPreempt final : public k8s::ReclaimRule {
 public:
  explicit KaiPreempt(const KaiPlugin& kai) : kai_(kai) {}
  bool may_take(const cluster::PodSpec& preemptor, const cluster::PodSpec& victim, std::int64_t job_gpu_milli,
                std::span<const std::int64_t> taken) const override;
  std::int64_t victim_rank(const cluster::PodSpec& victim) const override { return victim.priority; }

 private:
  const KaiPlugin& kai_;
};

class KaiPlugin final : public ProgressiveFilling {
 public:
  KaiPlugin() {
    limits_queues_ = true;
    compares_queues_ = true;
  }
  std::string_view name() const override { return "kai"; }
  bool evicts() const override { return true; }
  // KAI's pods name its scheduler as its documentation writes them (its default schedulerName).
  std::string_view scheduler_name() const override { return "kai-scheduler"; }

  void attach(k8s::SchedulerHandle& handle) override {
    ProgressiveFilling::attach(handle);
    const k8s::QueueingInputs& inputs = handle.inputs();
    GPUSIM_CHECK(inputs.kai != nullptr, "policy kai without KAI's Queues");
    GPUSIM_CHECK(inputs.ledger != nullptr, "policy kai without a job ledger");
    setup_ = inputs.kai;
    const std::vector<kai::Queue>& queues = setup_->queues.queues;
    const std::size_t n = queues.size();
    parent_.assign(n, -1);
    for (std::size_t q = 0; q < n; ++q) {
      for (std::size_t p = 0; p < n; ++p) {
        if (queues[p].name == queues[q].parent) parent_[q] = static_cast<std::int32_t>(p);
      }
    }
    // Parents before children, for the division (each level divides its parent's fair share).
    for (std::size_t q = 0; q < n; ++q) {
      if (parent_[q] < 0) add_subtree(q);
    }
    depth_.assign(n, 0);
    for (const std::uint32_t q : order_) depth_[q] = parent_[q] < 0 ? 0 : depth_[static_cast<std::size_t>(parent_[q])] + 1;
    lowest_priority_ = INT32_MAX;
    highest_priority_ = INT32_MIN;
    for (const cluster::PodSpec& pod : handle.workload()) {
      lowest_priority_ = std::min(lowest_priority_, pod.priority);
      highest_priority_ = std::max(highest_priority_, pod.priority);
    }
    allocated_.assign(n, Amounts{});
    allocated_np_.assign(n, Amounts{});
    pending_.assign(n, Amounts{});
    fair_.assign(n, Amounts{});
    for (std::size_t q = 0; q < n; ++q) {
      for (std::size_t r = 0; r < kResources; ++r) {
        const kai::QueueResource& res = resource(queues[q], r);
        deserved_[r].push_back(res.quota);
        limit_[r].push_back(res.limit);
      }
    }
    leaf_of_queue_ = setup_->leaf_of_trace_queue;
    sched::Profile plain = handle.profile();
    plain.preemption = sched::Preemption::kNone;
    victim_order_.emplace(plain, handle.workload(), *inputs.ledger);
    // The room ceiling's groups: the Queues, and one counted always, for the workers of gangs whose
    // pods are in several leaf queues (a victim gang goes whole, whichever queue its pods are in).
    ceiling_ = RoomCeiling(handle.cache().node_count(), n + 1);
    mixed_gang_.clear();
    std::vector<std::uint32_t> gang_leaf;
    for (const cluster::PodSpec& pod : handle.workload()) {
      if (pod.gang == 0) continue;
      if (gang_leaf.size() <= pod.gang) {
        gang_leaf.resize(std::size_t{pod.gang} + 1, UINT32_MAX);
        mixed_gang_.resize(std::size_t{pod.gang} + 1, 0);
      }
      if (gang_leaf[pod.gang] == UINT32_MAX) gang_leaf[pod.gang] = leaf(pod);
      if (gang_leaf[pod.gang] != leaf(pod)) mixed_gang_[pod.gang] = 1;
    }
    reclaim_rule_.emplace(*this);
    preempt_rule_.emplace(*this);
    reclaimer_.emplace(handle.cache(), handle.api(), handle.workload(), handle.node_setup(), handle.assumed(), handle.bound_on_nodes(),
                       handle.evicting(), *victim_order_, inputs.checkpoint_interval, false);
    reclaimer_->reclaim_for(*reclaim_rule_);
    preemptor_.emplace(handle.cache(), handle.api(), handle.workload(), handle.node_setup(), handle.assumed(), handle.bound_on_nodes(),
                       handle.evicting(), *victim_order_, inputs.checkpoint_interval, false);
    preemptor_->reclaim_for(*preempt_rule_);
    if (inputs.queue_series != nullptr) {
      std::vector<std::uint32_t> leaves;
      for (std::uint32_t q = 0; q < n; ++q) {
        if (std::find(parent_.begin(), parent_.end(), static_cast<std::int32_t>(q)) == parent_.end()) leaves.push_back(q);
      }
      metrics_.emplace(*inputs.queue_series, queues, std::move(leaves));
    }
  }

  // The queue series, at most once a simulated minute (a cycle may follow every event): a cycle
  // sooner leaves a timer for the minute's end, so that the last state is recorded.
  void cycle_done(core::Time now) override {
    if (!metrics_) return;
    if (series_at_ && now < *series_at_ + kSeriesPeriod) {
      if (!series_timer_) h_->set_timer(*this, kSeriesTimer, 0, *series_at_ + kSeriesPeriod);
      series_timer_ = true;
      return;
    }
    record_series(now);
  }
  void on_timer(std::uint32_t, std::uint64_t, core::Time now) override {
    series_timer_ = false;
    record_series(now);
  }
  void record_series(core::Time now) {
    series_at_ = now;
    now_.assign(queues().size(), kai::QueueNow{});
    for (std::size_t q = 0; q < now_.size(); ++q) {
      now_[q].fair_share = fair_[q];
      now_[q].allocated = allocated_[q];
    }
    // The waiting jobs (a gang once): held back by a limit or quota, else waiting for a node.
    std::vector<std::uint32_t> gangs_seen;
    for (const PodId id : h_->pending()) {
      const cluster::PodSpec& spec = h_->spec_of(id);
      if (spec.gang != 0) {
        if (std::find(gangs_seen.begin(), gangs_seen.end(), spec.gang) != gangs_seen.end()) continue;
        gangs_seen.push_back(spec.gang);
      }
      kai::QueueNow& q = now_[leaf(spec)];
      ++(over_capacity(spec, job_ask(spec)) ? q.waiting_quota : q.waiting_fit);
    }
    metrics_->update(now, now_);
  }

  void pod_waiting(PodId id, int sign) override { add_path(pending_, leaf(h_->spec_of(id)), amounts_of(h_->spec_of(id)), sign); }
  void pod_bound(PodId id, const cluster::Placement& placement, core::Time) override {
    const cluster::PodSpec& spec = h_->spec_of(id);
    add_path(allocated_, leaf(spec), amounts_of(spec), 1);
    if (!preemptible(spec)) add_path(allocated_np_, leaf(spec), amounts_of(spec), 1);
    // The room ceiling counts what a victim search could free: a pod the preemptor may take (whole
    // GPUs, preemptible in KAI), and every worker of a gang, whatever it asks, as a gang taken goes
    // whole.
    if (spec.gang != 0 || (spec.gpu_count > 0 && spec.gpu_milli >= cluster::kMilliPerGpu && preemptible(spec))) {
      if (in_ceiling_.size() <= id) in_ceiling_.resize(std::size_t{id} + 1, kNotInCeiling);
      in_ceiling_[id] = {placement.node, static_cast<std::int32_t>(placement.gpus.size())};
      ceiling_.add_victim(placement.node, ceiling_group(spec), in_ceiling_[id].gpus, spec, 1);
    }
  }
  void pod_released(PodId id, const k8s::Message&) override {
    leave_ceiling(id);
    if (id < releasing_.size() && releasing_[id]) {
      releasing_[id] = 0;  // counted out when its eviction was asked for
      return;
    }
    release(id);
  }

  std::optional<sched::NeverRanReason> never_ran(PodId id, std::span<const std::string>) const override {
    const cluster::PodSpec& spec = h_->spec_of(id);
    if (const auto why = over_capacity(spec, amounts_of(spec))) return sched::NeverRanReason{*why, {"over its KAI queue's capacity"}};
    return std::nullopt;
  }

  void add_metrics(const k8s::MetricSink& set) const override {
    set("kai_reclaim_evictions", static_cast<double>(reclaim_evictions_));
    set("kai_preempt_evictions", static_cast<double>(preempt_evictions_));
    // As the series last recorded it (gpusim_queue_starved_seconds_total summed over the leaf queues).
    if (metrics_ && series_at_) set("queue_starved_seconds", metrics_->starved_seconds(*series_at_));
  }

  // What the rules read.
  const std::vector<kai::Queue>& queues() const { return setup_->queues.queues; }
  std::uint32_t leaf(const cluster::PodSpec& spec) const { return leaf_of_queue_[spec.queue < leaf_of_queue_.size() ? spec.queue : 0]; }
  static bool preemptible(const cluster::PodSpec& spec) { return spec.priority < kNonPreemptiblePriority; }
  double allocated(std::uint32_t q, std::size_t r) const { return allocated_[q][r]; }
  double fair(std::uint32_t q, std::size_t r) const { return fair_[q][r]; }
  double deserved(std::uint32_t q, std::size_t r) const { return deserved_[r][q]; }
  // min(limit, max(deserved, fair share)); deserved -1: the limit; -1: unlimited (GetAllocatableShare).
  double allocatable(std::uint32_t q, std::size_t r) const {
    if (deserved_[r][q] == kUnlimited) return limit_[r][q];
    const double a = std::max(deserved_[r][q], fair_[q][r]);
    return limit_[r][q] == kUnlimited ? a : std::min(limit_[r][q], a);
  }
  // The two ancestors of a and b (themselves included) that are siblings under their lowest common
  // ancestor, or the two top-level queues of different trees (getLeveledQueues).
  std::pair<std::uint32_t, std::uint32_t> leveled(std::uint32_t a, std::uint32_t b) const {
    // Up to the same depth, then up together until the parents meet (or both are top-level).
    while (depth_[a] > depth_[b]) a = static_cast<std::uint32_t>(parent_[a]);
    while (depth_[b] > depth_[a]) b = static_cast<std::uint32_t>(parent_[b]);
    if (a == b) return {a, b};
    while (parent_[a] >= 0 && parent_[a] != parent_[b]) {
      a = static_cast<std::uint32_t>(parent_[a]);
      b = static_cast<std::uint32_t>(parent_[b]);
    }
    return {a, b};
  }
  bool under(std::uint32_t q, std::uint32_t ancestor) const {
    for (std::int32_t a = static_cast<std::int32_t>(q); a >= 0; a = parent_[static_cast<std::size_t>(a)]) {
      if (static_cast<std::uint32_t>(a) == ancestor) return true;
    }
    return false;
  }
  // GPUs already chosen as victims under a queue (taken per workload queue, thousandths).
  double taken_under(std::uint32_t q, std::span<const std::int64_t> taken) const {
    double gpus = 0;
    for (std::size_t w = 0; w < taken.size() && w < leaf_of_queue_.size(); ++w) {
      if (taken[w] != 0 && under(leaf_of_queue_[w], q)) gpus += static_cast<double>(taken[w]) / cluster::kMilliPerGpu;
    }
    return gpus;
  }
  const Amounts& reclaimer_ask() const { return reclaimer_ask_; }
  std::size_t victim_position(std::uint32_t q) const { return victim_position_[q]; }

 private:
  static const kai::QueueResource& resource(const kai::Queue& q, std::size_t r) { return r == kGpu ? q.gpu : r == kCpu ? q.cpu : q.memory; }

  void add_subtree(std::size_t q) {
    order_.push_back(static_cast<std::uint32_t>(q));
    for (std::size_t c = 0; c < parent_.size(); ++c) {
      if (parent_[c] == static_cast<std::int32_t>(q)) add_subtree(c);
    }
  }

  void add_path(std::vector<Amounts>& to, std::uint32_t q, const Amounts& a, int sign) {
    for (std::int32_t n = static_cast<std::int32_t>(q); n >= 0; n = parent_[static_cast<std::size_t>(n)]) {
      for (std::size_t r = 0; r < kResources; ++r) to[static_cast<std::size_t>(n)][r] += sign * a[r];
    }
  }

  void release(PodId id) {
    const cluster::PodSpec& spec = h_->spec_of(id);
    add_path(allocated_, leaf(spec), amounts_of(spec), -1);
    if (!preemptible(spec)) add_path(allocated_np_, leaf(spec), amounts_of(spec), -1);
  }

  // What a job asks when it is tried: its pod, or its gang's pending workers.
  Amounts job_ask(const cluster::PodSpec& spec) const {
    if (spec.gang == 0) return amounts_of(spec);
    Amounts sum{};
    for (const PodId member : h_->gang_pending(spec.gang)) {
      const Amounts a = amounts_of(h_->spec_of(member));
      for (std::size_t r = 0; r < kResources; ++r) sum[r] += a[r];
    }
    return sum;
  }

  // IsJobOverQueueCapacity, on every queue from the leaf to the root: why the job may not start.
  std::optional<std::string> over_capacity(const cluster::PodSpec& spec, const Amounts& ask) const {
    const std::vector<kai::Queue>& qs = queues();
    for (std::int32_t n = static_cast<std::int32_t>(leaf(spec)); n >= 0; n = parent_[static_cast<std::size_t>(n)]) {
      const auto q = static_cast<std::size_t>(n);
      for (std::size_t r = 0; r < kResources; ++r) {
        if (ask[r] <= 0) continue;
        if (limit_[r][q] != kUnlimited && allocated_[q][r] + ask[r] > limit_[r][q]) {
          return fmt::format("OverLimit: queue {} holds {:g} {} of its limit {:g}, and the job asks {:g} more", qs[q].name, allocated_[q][r],
                             kResourceNames[r], limit_[r][q], ask[r]);
        }
        if (!preemptible(spec) && deserved_[r][q] != kUnlimited && allocated_np_[q][r] + ask[r] > deserved_[r][q]) {
          return fmt::format("NonPreemptibleOverQuota: queue {} holds {:g} {} in non-preemptible jobs of its quota {:g}, and the job asks "
                             "{:g} more",
                             qs[q].name, allocated_np_[q][r], kResourceNames[r], deserved_[r][q], ask[r]);
        }
      }
    }
    return std::nullopt;
  }

  void begin_cycle() override {
    // The proportion plugin's division, per resource, from the Ready nodes' capacity.
    const cluster::ClusterState& cache = h_->cache();
    Amounts total{};
    for (cluster::NodeIndex n = 0; n < cache.node_count(); ++n) {
      if (!cache.present(n)) continue;
      total[kGpu] += cache.node(n).gpu_count;
      total[kCpu] += static_cast<double>(cache.node(n).cpu_milli);
      total[kMemory] += static_cast<double>(cache.node(n).memory_mib) * 1.048576;
    }
    total_ = total;
    const std::vector<kai::Queue>& qs = queues();
    std::vector<std::size_t> position(qs.size());
    for (std::size_t i = 0; i < order_.size(); ++i) position[order_[i]] = i;
    for (std::size_t r = 0; r < kResources; ++r) {
      inputs_.clear();
      for (const std::uint32_t q : order_) {
        const kai::QueueResource& res = resource(qs[q], r);
        kai::QueueShareInput in;
        in.name = qs[q].name;
        in.parent = parent_[q] < 0 ? -1 : static_cast<std::int32_t>(position[static_cast<std::size_t>(parent_[q])]);
        in.quota = res.quota;
        in.limit = res.limit;
        in.over_quota_weight = res.over_quota_weight;
        in.priority = qs[q].priority;
        // Only leaf queues hold jobs; the division adds each subtree's request into its parent.
        const bool leaf_queue = std::find(parent_.begin(), parent_.end(), static_cast<std::int32_t>(q)) == parent_.end();
        in.request = leaf_queue ? allocated_[q][r] + pending_[q][r] : 0.0;
        inputs_.push_back(std::move(in));
      }
      const std::vector<double> shares = kai::fair_shares(total[r], 0.0, inputs_);
      for (std::size_t i = 0; i < order_.size(); ++i) fair_[order_[i]][r] = shares[i];
    }
  }

  // GetQueueOrderResult between two sibling queues, each with the job it would run next: < 0 when
  // a goes first.
  int queue_order(std::uint32_t a, std::uint32_t b, const Amounts& ja, const Amounts& jb) const {
    const auto over_utilized = [&](std::uint32_t q) {
      for (std::size_t r = 0; r < kResources; ++r) {
        if (fair_[q][r] >= allocated_[q][r]) return false;
      }
      return true;
    };
    if (over_utilized(a) != over_utilized(b)) return over_utilized(a) ? 1 : -1;
    const auto starved = [&](std::uint32_t q, const Amounts& job) {
      for (std::size_t r = 0; r < kResources; ++r) {
        if (!at_most(allocated_[q][r] + job[r], deserved_[r][q])) return false;
      }
      return true;
    };
    if (starved(a, ja) != starved(b, jb)) return starved(a, ja) ? -1 : 1;
    const std::int32_t pa = queues()[a].priority, pb = queues()[b].priority;
    if (pa != pb) return pa > pb ? -1 : 1;
    const auto zero_share = [&](std::uint32_t q, const Amounts& job) {
      for (std::size_t r = 0; r < kResources; ++r) {
        if (allocatable(q, r) == 0 && allocated_[q][r] + job[r] > 0) return true;
      }
      return false;
    };
    if (zero_share(a, ja) != zero_share(b, jb)) return zero_share(a, ja) ? 1 : -1;
    const auto share = [&](std::uint32_t q, const Amounts& job) {
      double dominant = 0;
      for (std::size_t r = 0; r < kResources; ++r) {
        double allocatable_r = allocatable(q, r);
        if (allocatable_r == kUnlimited) allocatable_r = total_[r];
        const double held = allocated_[q][r] + job[r];
        dominant = std::max(dominant, allocatable_r == 0 ? held * kNoFairShareMultiplier : held / allocatable_r);
      }
      return dominant;
    };
    if (const double sa = share(a, ja), sb = share(b, jb); sa != sb) return sa < sb ? -1 : 1;
    if (const double sa = share(a, {}), sb = share(b, {}); sa != sb) return sa < sb ? -1 : 1;
    bool a_le = true, b_le = true, a_lt = false, b_lt = false;
    for (std::size_t r = 0; r < kResources; ++r) {
      const double x = allocatable(a, r), y = allocatable(b, r);
      a_le = a_le && at_most(x, y);
      b_le = b_le && at_most(y, x);
      a_lt = a_lt || !at_most(y, x);
      b_lt = b_lt || !at_most(x, y);
    }
    if (a_le && a_lt) return -1;
    if (b_le && b_lt) return 1;
    return a < b ? -1 : (a > b ? 1 : 0);  // creation order: the order the Queues were read
  }

  double share(std::size_t) const override { return 0; }  // not called: the walk compares queues
  bool serves_before(std::size_t a, std::size_t b) const override { return serves_before_at(a, b, head(a), head(b)); }
  // Queue a before queue b, each with the job at the given index of pending() next (none: no job).
  bool serves_before_at(std::size_t a, std::size_t b, std::optional<std::uint32_t> head_a, std::optional<std::uint32_t> head_b) const {
    const std::vector<PodId>& pending = h_->pending();
    const Amounts ja = head_a ? job_ask(h_->spec_of(pending[*head_a])) : Amounts{};
    const Amounts jb = head_b ? job_ask(h_->spec_of(pending[*head_b])) : Amounts{};
    const std::uint32_t la = leaf_of_queue_[a], lb = leaf_of_queue_[b];
    if (la == lb) {
      // One leaf: KAI's job order (higher priority, then the older).
      const auto pa = head_a ? h_->spec_of(pending[*head_a]).priority : 0, pb = head_b ? h_->spec_of(pending[*head_b]).priority : 0;
      if (pa != pb) return pa > pb;
      return head_a.value_or(UINT32_MAX) < head_b.value_or(UINT32_MAX);
    }
    const auto [sa, sb] = leveled(la, lb);
    const int order = queue_order(sa, sb, ja, jb);
    return order != 0 ? order < 0 : a < b;
  }

  bool admits(const cluster::PodSpec& spec) const override { return !over_capacity(spec, job_ask(spec)); }
  bool admits_smallest(std::uint32_t queue) const override {
    cluster::PodSpec smallest;
    smallest.queue = static_cast<std::uint16_t>(queue);
    smallest.gpu_count = 1;
    smallest.gpu_milli = static_cast<std::int32_t>(std::min<std::int64_t>(smallest_ask(queue), cluster::kMilliPerGpu));
    return !over_capacity(smallest, amounts_of(smallest));
  }

  void before_walk(core::Time now) override { place_nominated(now); }

  bool after_walk(core::Time now) override {
    // A queue whose job waits for its victims from an earlier cycle acts no more until it is placed.
    waiting_.assign(queues_in_walk(), 0);
    for (std::uint32_t q = 0; q < queues_in_walk(); ++q) waiting_[q] = has_nomination(q) ? 1 : 0;
    // Both act every cycle, reclaim first (KAI's actions run in order).
    const bool reclaimed = reclaim(now);
    const bool preempted = preempt(now);
    const bool asked = reclaimed || preempted;
    // The jobs that made room were counted in their queues' allocation for the rest of the session
    // (KAI's pipelined tasks); from the next cycle on they count when they are bound.
    for (const Pipelined& p : pipelined_) {
      add_path(allocated_, p.leaf, p.ask, -1);
      if (p.non_preemptible) add_path(allocated_np_, p.leaf, p.ask, -1);
    }
    pipelined_.clear();
    return asked;
  }

  enum class Tried : std::uint8_t { kSkipped, kFailed, kEvicted };
  // The pending jobs an action looks at, as KAI's JobsOrderByQueues pops them: queue by queue in
  // KAI's order, every job of a queue in its order (ready, not placed), until one finds victims. A
  // job is tried only if it is easier to schedule than the smallest job of its queue and signature
  // whose search failed in this action (KaiFailedJobs). After a job found victims the other queues
  // are ordered again (KAI orders the queues again after every job; gpusim only when an eviction
  // changed what the order reads).
  template <typename MayAct, typename Visit>
  void each_pending_job(MayAct&& may_act, Visit&& visit) {
    failed_jobs_.clear();
    ceiling_for_.reset();
    ++action_serial_;
    const std::uint32_t n = queues_in_walk();
    cursor_.assign(n, 0);
    const std::vector<PodId>& pending = h_->pending();
    const auto head_at = [&](std::uint32_t q) {
      return cursor_[q] < lists()[q].size() ? std::optional<std::uint32_t>(lists()[q][cursor_[q]]) : std::nullopt;
    };
    for (bool evicted = true; evicted;) {
      evicted = false;
      action_order_.clear();
      for (std::uint32_t q = 0; q < n; ++q) {
        if (cursor_[q] < lists()[q].size() && !waiting_[q] && may_act(q)) action_order_.push_back(q);
      }
      std::stable_sort(action_order_.begin(), action_order_.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return serves_before_at(a, b, head_at(a), head_at(b)); });
      for (std::size_t k = 0; k < action_order_.size() && !evicted; ++k) {
        const std::uint32_t q = action_order_[k];
        const std::vector<std::uint32_t>& list = lists()[q];
        while (!evicted && cursor_[q] < list.size()) {
          const std::uint32_t index = list[cursor_[q]++];
          const PodId id = pending[index];
          if (placed()[index] || h_->bound_by_gang(id)) continue;
          const cluster::PodSpec& spec = h_->spec_of(id);
          if (spec.gang != 0) {
            if (!h_->gang_ready(spec.gang) || h_->gang_started(spec.gang)) continue;
            // A gang is one job: its other workers come later in the list.
            if (gang_tried_.size() <= spec.gang) gang_tried_.resize(std::size_t{spec.gang} + 1, 0);
            if (gang_tried_[spec.gang] == action_serial_) continue;
            gang_tried_[spec.gang] = action_serial_;
          }
          workers_.clear();
          if (spec.gang == 0) {
            workers_.push_back(&spec);
          } else {
            for (const PodId member : h_->gang_pending(spec.gang)) workers_.push_back(&h_->spec_of(member));
          }
          const std::uint32_t l = leaf(spec);
          if (!failed_jobs_.worth_trying(l, workers_)) continue;
          const Tried tried = visit(q, id, spec);
          if (tried == Tried::kFailed) failed_jobs_.failed(l, workers_);
          evicted = tried == Tried::kEvicted;
          if (evicted) {
            ceiling_for_.reset();  // its victims are taken now
            // The queue's later jobs wait for the next cycle. KAI goes on, and pipelines a job that
            // fits the room still releasing without evicting more; gpusim's victim search does not
            // count releasing room, so going on would take more victims than KAI does.
            waiting_[q] = 1;
          }
        }
      }
    }
  }
  // Whether every pending worker of the job (workers_) would fit some node with all the pods there
  // that the action could take for a job of leaf queue l gone: if not, the victim search would fail
  // (RoomCeiling). Reclaim takes from the other leaves whose side is above its allocatable share or
  // its quota (what KaiReclaim::may_take asks first, with nothing taken yet, and without the
  // reclaimer's own side); preempt from l only.
  bool may_find_room(bool reclaiming, std::uint32_t l) {
    // A job whose pods are in several leaf queues: each is judged by its own leaf, so one leaf's
    // ceiling does not bound it (KAI's PodGroup has one queue; gpusim's native traces may mix them).
    if (std::any_of(workers_.begin(), workers_.end(), [&](const cluster::PodSpec* w) { return leaf(*w) != l; })) return true;
    const std::uint32_t key = l * 2 + (reclaiming ? 1 : 0);
    if (ceiling_for_ != key) {
      ceiling_takes_.assign(queues().size() + 1, 0);
      ceiling_takes_.back() = 1;  // the workers of mixed gangs, always
      for (std::uint32_t v = 0; v < queues().size(); ++v) {
        if (!reclaiming) {
          ceiling_takes_[v] = v == l ? 1 : 0;
          continue;
        }
        if (v == l) continue;
        const std::uint32_t vl = leveled(l, v).second;
        const double a = allocated_[vl][kGpu];
        ceiling_takes_[v] = !at_most(a, allocatable(vl, kGpu)) || !at_most(a, deserved_[kGpu][vl]) ? 1 : 0;
      }
      ceiling_.measure(h_->cache(), ceiling_takes_);
      ceiling_for_ = key;
    }
    return std::all_of(workers_.begin(), workers_.end(), [&](const cluster::PodSpec* w) { return ceiling_.fits_somewhere(*w); });
  }
  // The ceiling's group of a pod: its leaf queue, or for a worker of a gang of several leaves the
  // group counted always.
  std::size_t ceiling_group(const cluster::PodSpec& spec) const {
    return spec.gang != 0 && spec.gang < mixed_gang_.size() && mixed_gang_[spec.gang] ? queues().size() : leaf(spec);
  }
  // The pod is no longer one the ceiling counts (it ended, or its eviction was asked for).
  void leave_ceiling(PodId id) {
    if (id >= in_ceiling_.size() || in_ceiling_[id].gpus < 0) return;
    ceiling_.add_victim(in_ceiling_[id].node, ceiling_group(h_->spec_of(id)), in_ceiling_[id].gpus, h_->spec_of(id), -1);
    in_ceiling_[id] = kNotInCeiling;
  }

  std::uint32_t queues_in_walk() const { return static_cast<std::uint32_t>(lists().size()); }

  // Evicts the victims a rule's preemptor chose for `id`; they leave the allocation at once, as KAI
  // counts Releasing pods out of it.
  void evict(PodId id, std::uint32_t q, std::int64_t& counter, const char* action, core::Time now) {
    std::vector<std::uint32_t> gangs_seen;
    for (const PodId victim : victims_) {
      const cluster::PodSpec& v = h_->spec_of(victim);
      const bool counted = v.gang != 0 && std::find(gangs_seen.begin(), gangs_seen.end(), v.gang) != gangs_seen.end();
      if (v.gang != 0) gangs_seen.push_back(v.gang);
      if (metrics_ && !counted) metrics_->evicted(now, leaf(v), action);
      h_->request_eviction(victim, 1, now);
      leave_ceiling(victim);
      if (releasing_.size() <= victim) releasing_.resize(std::size_t{victim} + 1, 0);
      if (!releasing_[victim]) {
        release(victim);
        releasing_[victim] = 1;
      }
    }
    counter += static_cast<std::int64_t>(victims_.size());
    nominate(id, q, victims_);
    // KAI pipelines the job onto the room: its queue holds it for the rest of the session.
    const cluster::PodSpec& spec = h_->spec_of(id);
    const Pipelined p{leaf(spec), job_ask(spec), !preemptible(spec)};
    add_path(allocated_, p.leaf, p.ask, 1);
    if (p.non_preemptible) add_path(allocated_np_, p.leaf, p.ask, 1);
    pipelined_.push_back(p);
  }

  // Whether any job of workload queue q could pass reclaim's gate: its smallest GPU ask within its
  // leaf's fair share (checked before the queue's jobs are visited one by one).
  bool reclaim_gate_open(std::uint32_t q) const {
    const std::uint32_t l = leaf_of_queue_[q];
    return allocated_[l][kGpu] + static_cast<double>(smallest_ask(q)) / cluster::kMilliPerGpu <= fair_[l][kGpu];
  }

  bool reclaim(core::Time now) {
    // The victim order: queues in the reverse of the order they are served in (with no job).
    victim_position_.assign(queues().size(), 0);
    std::vector<std::uint32_t> leaves;
    for (std::uint32_t q = 0; q < queues().size(); ++q) leaves.push_back(q);
    std::stable_sort(leaves.begin(), leaves.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (a == b) return false;
      const auto [sa, sb] = leveled(a, b);
      return queue_order(sa, sb, {}, {}) > 0;
    });
    for (std::size_t i = 0; i < leaves.size(); ++i) victim_position_[leaves[i]] = i;
    // Victims exist only in queues above their quota or their allocatable share.
    bool any_above = false;
    for (std::uint32_t v = 0; v < queues().size() && !any_above; ++v) {
      const double a = allocated_[v][kGpu];
      any_above = a > 0 && (!at_most(a, deserved_[kGpu][v]) || !at_most(a, allocatable(v, kGpu)));
    }
    if (!any_above) return false;
    bool asked = false;
    each_pending_job([&](std::uint32_t q) { return reclaim_gate_open(q); }, [&](std::uint32_t q, PodId id, const cluster::PodSpec& spec) {
      // CanReclaimResources: the queue stays within its fair share with the job; a non-preemptible
      // job within its quota too.
      reclaimer_ask_ = job_ask(spec);
      const std::uint32_t l = leaf(spec);
      for (std::size_t r = 0; r < kResources; ++r) {
        if (allocated_[l][r] + reclaimer_ask_[r] > fair_[l][r]) return Tried::kSkipped;
        if (!preemptible(spec) && !at_most(allocated_np_[l][r] + reclaimer_ask_[r], deserved_[r][l])) return Tried::kSkipped;
      }
      // Over its queue's capacity the job goes to the solver and fails there (KAI's allocate checks
      // IsJobOverQueueCapacity), so it stands for the jobs no easier than it.
      if (over_capacity(spec, reclaimer_ask_)) return Tried::kFailed;
      if (!may_find_room(true, l)) return Tried::kFailed;
      one_worker_.assign(1, id);
      const std::vector<PodId>& workers = spec.gang != 0 ? h_->gang_pending(spec.gang) : one_worker_;
      if (!reclaimer_->choose(workers, now, victims_) || victims_.empty()) return Tried::kFailed;
      evict(id, q, reclaim_evictions_, "reclaim", now);
      asked = true;
      return Tried::kEvicted;
    });
    return asked;
  }

  bool preempt(core::Time now) {
    if (highest_priority_ == lowest_priority_) return false;  // every job at one priority: none preempts
    bool asked = false;
    each_pending_job([](std::uint32_t) { return true; }, [&](std::uint32_t q, PodId id, const cluster::PodSpec& spec) {
      if (spec.priority <= lowest_priority_) return Tried::kSkipped;  // nothing runs at a lower priority
      const Amounts ask = job_ask(spec);
      if (over_capacity(spec, ask)) {
        // The virtual allocation re-runs the capacity checks with the victims gone: the job's queue
        // gives up its lower-priority jobs until the job is within its limits and quota.
        if (!quota_victims(spec, ask)) return Tried::kFailed;
      } else {
        if (!may_find_room(false, leaf(spec))) return Tried::kFailed;
        one_worker_.assign(1, id);
        const std::vector<PodId>& workers = spec.gang != 0 ? h_->gang_pending(spec.gang) : one_worker_;
        if (!preemptor_->choose(workers, now, victims_) || victims_.empty()) return Tried::kFailed;
      }
      evict(id, q, preempt_evictions_, "preempt", now);
      asked = true;
      return Tried::kEvicted;
    });
    return asked;
  }

  // Whether the job's pending workers fit the nodes once victims_ are gone (whole GPUs, first fit
  // decreasing), as KAI's preempt places the preemptor in its simulation before it evicts.
  bool fits_nodes_without(const cluster::PodSpec& spec) const {
    const cluster::ClusterState& cache = h_->cache();
    std::vector<std::int64_t> room(cache.node_count(), 0);
    for (cluster::NodeIndex n = 0; n < cache.node_count(); ++n) room[n] = cache.present(n) ? cache.whole_free_devices(n).size() : 0;
    for (const PodId v : victims_) {
      const cluster::Placement& p = h_->assumed()[v];
      room[p.node] += p.gpus.size();
    }
    std::vector<const cluster::PodSpec*> workers;
    if (spec.gang == 0) {
      workers.push_back(&spec);
    } else {
      for (const PodId member : h_->gang_pending(spec.gang)) workers.push_back(&h_->spec_of(member));
    }
    std::sort(workers.begin(), workers.end(), [](const cluster::PodSpec* a, const cluster::PodSpec* b) { return a->gpu_count > b->gpu_count; });
    for (const cluster::PodSpec* w : workers) {
      bool placed = false;
      for (cluster::NodeIndex n = 0; n < cache.node_count() && !placed; ++n) {
        if (room[n] >= w->gpu_count && k8s::may_take_node(*w, cache, n)) {
          room[n] -= w->gpu_count;
          placed = true;
        }
      }
      if (!placed) return false;
    }
    return true;
  }

  // The running jobs of `spec`'s leaf queue that preempt may take for it (preemptible, strictly lower
  // priority), lowest priority first, then the newest, until the job passes the capacity checks and
  // fits a node with them gone;
  // false (victims_ empty) if all of them do not make it pass.
  bool quota_victims(const cluster::PodSpec& spec, const Amounts& ask) {
    struct Running {
      std::int32_t priority;
      core::Time started;
      PodId pod;
    };
    std::vector<Running> candidates;
    const std::uint32_t l = leaf(spec);
    for (const auto& on_node : h_->bound_on_nodes()) {
      for (const PodId pod : on_node) {
        const cluster::PodSpec& victim = h_->spec_of(pod);
        if (h_->is_evicting(pod) || leaf(victim) != l || victim.priority >= spec.priority || !preemptible(victim)) continue;
        candidates.push_back({victim.priority, h_->api().pod(pod).running, pod});
      }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Running& a, const Running& b) {
      return std::tie(a.priority, b.started, a.pod) < std::tie(b.priority, a.started, b.pod);
    });
    victims_.clear();
    std::vector<PodId> gone;
    bool fits = false;
    for (const Running& c : candidates) {
      if (std::find(gone.begin(), gone.end(), c.pod) != gone.end()) continue;
      // A gang goes whole.
      const cluster::PodSpec& victim = h_->spec_of(c.pod);
      for (const Running& member : candidates) {
        if (member.pod == c.pod || (victim.gang != 0 && h_->spec_of(member.pod).gang == victim.gang)) gone.push_back(member.pod);
      }
      for (const PodId pod : gone) {
        if (std::find(victims_.begin(), victims_.end(), pod) != victims_.end()) continue;
        victims_.push_back(pod);
        release(pod);
      }
      if (!over_capacity(spec, ask) && fits_nodes_without(spec)) {
        fits = true;
        break;
      }
    }
    for (const PodId pod : victims_) {
      const cluster::PodSpec& v = h_->spec_of(pod);
      add_path(allocated_, leaf(v), amounts_of(v), 1);
      if (!preemptible(v)) add_path(allocated_np_, leaf(v), amounts_of(v), 1);
    }
    if (!fits) victims_.clear();
    return fits;
  }

  const kai::Setup* setup_ = nullptr;
  std::vector<std::int32_t> parent_;
  std::vector<std::uint32_t> order_;  // parents before children
  std::vector<std::uint32_t> depth_;  // per Queue: 0 for a top-level queue
  std::int32_t lowest_priority_ = 0;  // the workload's: a job at it can preempt nothing
  std::int32_t highest_priority_ = 0;
  std::vector<std::uint32_t> leaf_of_queue_;
  std::vector<Amounts> allocated_, allocated_np_, pending_, fair_;  // per Queue
  std::array<std::vector<double>, kResources> deserved_, limit_;     // per resource, per Queue
  Amounts total_{};
  std::vector<kai::QueueShareInput> inputs_;  // reused by the division
  std::vector<std::uint8_t> releasing_;       // per pod: its eviction was asked, its resources counted out
  std::vector<std::size_t> victim_position_;  // per Queue, in the victim order
  Amounts reclaimer_ask_{};
  std::optional<k8s::JobPriority> victim_order_;
  std::optional<KaiReclaim> reclaim_rule_;
  std::optional<KaiPreempt> preempt_rule_;
  std::optional<k8s::Preemptor> reclaimer_, preemptor_;
  std::vector<PodId> victims_, one_worker_;
  // The actions' walk: per workload queue, whether it waits for an earlier cycle's victims and its
  // next job's position in lists(); the queues in order; the smallest failed jobs.
  std::vector<std::uint8_t> waiting_;
  std::vector<std::size_t> cursor_;
  std::vector<std::uint32_t> action_order_;
  KaiFailedJobs failed_jobs_;
  std::vector<const cluster::PodSpec*> workers_;  // the job being tried: its pending pods
  RoomCeiling ceiling_;
  std::optional<std::uint32_t> ceiling_for_;  // the ceiling's action and leaf (2 leaf + reclaiming), if measured since the last eviction
  std::vector<std::uint8_t> ceiling_takes_;    // per Queue: whether the ceiling counts its victims
  struct InCeiling {
    cluster::NodeIndex node;
    std::int32_t gpus;  // -1: not counted
  };
  static constexpr InCeiling kNotInCeiling{0, -1};
  std::vector<InCeiling> in_ceiling_;  // per pod: where the ceiling counts it
  std::vector<std::uint8_t> mixed_gang_;  // per gang: its pods are in several leaf queues
  std::vector<std::uint64_t> gang_tried_;  // per gang: the action (action_serial_) that last tried it
  std::uint64_t action_serial_ = 0;
  struct Pipelined {
    std::uint32_t leaf;
    Amounts ask;
    bool non_preemptible;
  };
  std::vector<Pipelined> pipelined_;  // this cycle's jobs that made room
  std::int64_t reclaim_evictions_ = 0, preempt_evictions_ = 0;
  static constexpr core::Time kSeriesPeriod = core::Time::from_seconds(60);
  std::optional<kai::KaiMetrics> metrics_;  // when the run records series
  std::optional<core::Time> series_at_;     // the series' last update
  static constexpr std::uint32_t kSeriesTimer = 0;
  bool series_timer_ = false;               // a timer for the next update is set
  std::vector<kai::QueueNow> now_;          // reused
};

bool KaiReclaim::may_take(const cluster::PodSpec& reclaimer, const cluster::PodSpec& victim, std::int64_t job_gpu_milli,
                          std::span<const std::int64_t> taken) const {
  const std::uint32_t r = kai_.leaf(reclaimer), v = kai_.leaf(victim);
  if (r == v || !KaiPlugin::preemptible(victim)) return false;
  const auto [rl, vl] = kai_.leveled(r, v);
  const double ask = kai_.reclaimer_ask()[kGpu];
  // Before this victim: at least one strategy must hold (strategies.go).
  const double remaining = kai_.allocated(vl, kGpu) - kai_.taken_under(vl, taken);
  const bool maintain_fair_share = !at_most(remaining, kai_.allocatable(vl, kGpu));  // -1: unlimited, never above
  const bool guarantee_deserved = at_most(kai_.allocated(rl, kGpu) + ask, kai_.deserved(rl, kGpu)) && !at_most(remaining, kai_.deserved(vl, kGpu));
  if (!maintain_fair_share && !guarantee_deserved) return false;
  if (job_gpu_milli == 0) return true;
  // After it: the reclaimer's side, above its fair share, must stay less saturated than the
  // victim's (relcaimerSaturationMultiplier 1).
  const auto ratio = [](double held, double fair) {
    if (fair == kUnlimited) return 0.0;
    if (fair == 0) return held > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    return held / fair;
  };
  const double reclaimer_ratio = ratio(kai_.allocated(rl, kGpu) + ask, kai_.fair(rl, kGpu));
  const double victim_ratio = ratio(remaining - static_cast<double>(job_gpu_milli) / cluster::kMilliPerGpu, kai_.fair(vl, kGpu));
  return !(reclaimer_ratio > 1 && kai_.fair(vl, kGpu) > 0 && reclaimer_ratio >= victim_ratio);
}

std::int64_t KaiReclaim::victim_rank(const cluster::PodSpec& victim) const {
  // The queue served last gives first; then the lowest priority.
  return static_cast<std::int64_t>(kai_.victim_position(kai_.leaf(victim))) * (std::int64_t{1} << 33) + victim.priority;
}

bool KaiPreempt::may_take(const cluster::PodSpec& preemptor, const cluster::PodSpec& victim, std::int64_t,
                          std::span<const std::int64_t>) const {
  return kai_.leaf(preemptor) == kai_.leaf(victim) && victim.priority < preemptor.priority && KaiPlugin::preemptible(victim);
}

}  // namespace

void register_kai(sched::Registry& registry) {
  registry.add_queueing("kai", [](const sched::PluginContext&) { return std::make_unique<KaiPlugin>(); });
}

}  // namespace gpusim::policy
