// The round point for time sharing (Gavel, OSDI'20; Themis, NSDI'20): which jobs run in each round
// comes from TimeShareRounds (policies/time_sharing/time_share_rounds.hpp); this plugin turns the
// plan into evictions and bindings. Its args are the profile's time_share, heterogeneity_aware,
// themis_fairness and round_length (Gavel's and Themis' pluginConfig).
#include <algorithm>
#include <memory>
#include <optional>

#include "policies/builtin_parts.hpp"
#include "policies/time_sharing/time_share_rounds.hpp"
#include "sim/core/check.hpp"
#include "sim/k8s/job_ledger.hpp"
#include "sim/k8s/queueing_plugin.hpp"

namespace gpusim::policy {
namespace {

using k8s::PodId;
using k8s::TimeShareRounds;

// kEvictRequest's value for a job suspended at the end of its round: it checkpoints first (Gavel's
// lease ends), so it loses no work.
constexpr std::int64_t kEvictAtLeaseEnd = 2;
constexpr std::uint32_t kRound = 0;  // timer: a round starts

class RoundsPlugin final : public k8s::QueueingPlugin {
 public:
  explicit RoundsPlugin(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }

  bool evicts() const override { return true; }
  void attach(k8s::SchedulerHandle& handle) override {
    h_ = &handle;
    const sched::Profile& profile = handle.profile();
    GPUSIM_CHECK(profile.time_share != sched::TimeSharePolicy::kNone, "a round plugin in a profile that does not time-share");
    GPUSIM_CHECK(handle.inputs().ledger != nullptr, "time sharing without a job ledger");
    GPUSIM_CHECK(profile.round_length > core::Time::zero(), "a round must last");
    const cluster::ClusterState& cache = handle.cache();
    std::vector<cluster::NodeSpec> nodes;
    nodes.reserve(cache.node_count());
    for (cluster::NodeIndex n = 0; n < cache.node_count(); ++n) nodes.push_back(cache.node(n));
    rounds_.emplace(profile, nodes, handle.workload(), handle.inputs().job_speeds, *handle.inputs().ledger,
                    handle.inputs().seed);
    live_pods_.assign(handle.workload().size(), 0);
  }

  void pod_queued(PodId id, core::Time now) override {
    const std::uint32_t job = rounds_->job_of(h_->api().pod(id).source);
    if (!rounds_->plannable(job)) return;
    ++live_pods_[job];
    rounds_->arrive(job, now);
    idle_rounds_ = 0;
    // Rounds run while jobs are active; the first job after an idle spell starts one at once.
    if (!round_queued_) {
      h_->set_timer(*this, kRound, 0, now, core::Phase::kSchedule);
      round_queued_ = true;
    }
  }
  void pod_dequeued(PodId id, const k8s::Message& deleted, core::Time) override { pod_ended(id, deleted); }
  void pod_released(PodId id, const k8s::Message& ended) override { pod_ended(id, ended); }

  void pod_bound(PodId id, const cluster::Placement& placement, core::Time) override {
    const std::uint32_t job = rounds_->job_of(h_->api().pod(id).source);
    if (rounds_->plannable(job)) rounds_->started(job, rounds_->type_of_model(h_->cache().node(placement.node).gpu_model));
  }

  void on_timer(std::uint32_t, std::uint64_t, core::Time now) override {
    round_queued_ = false;
    run_round(now);
  }

  bool run_cycle(core::Time now) override;

  const cluster::PodSpec* spec_to_place(PodId id) override {
    const std::uint32_t source = h_->api().pod(id).source;
    const cluster::PodSpec& spec = h_->workload()[source];
    if (!rounds_->plannable(rounds_->job_of(source))) return nullptr;
    const std::int8_t type = rounds_->planned(rounds_->job_of(source));
    GPUSIM_CHECK(type != TimeShareRounds::kNone, "placing a pod its round did not plan");
    round_spec_ = spec;
    const std::uint64_t models = rounds_->models_of(type).bits;
    round_spec_.allowed_models.bits = spec.allowed_models.bits == 0 ? models : spec.allowed_models.bits & models;
    return &round_spec_;
  }

  void add_metrics(const k8s::MetricSink& set) const override {
    set("rounds", static_cast<double>(rounds_->rounds()));
    set("lp_solves", static_cast<double>(rounds_->lp_solves()));
  }

 private:
  void pod_ended(PodId id, const k8s::Message& message) {
    const std::uint32_t job = rounds_->job_of(h_->api().pod(id).source);
    if (!rounds_->plannable(job)) return;
    --live_pods_[job];
    rounds_->stopped(job);
    // A job suspended by a round comes back (its owner recreates the pod); one that ended, failed
    // for good or was deleted leaves once none of its pods is left.
    const bool comes_back = message.reason == k8s::Reason::kSuspended || message.reason == k8s::Reason::kPreempted;
    if (!comes_back && live_pods_[job] == 0) rounds_->leave(job);
  }
  void run_round(core::Time now);

  std::string name_;
  k8s::SchedulerHandle* h_ = nullptr;
  std::optional<TimeShareRounds> rounds_;
  bool round_queued_ = false;
  int idle_rounds_ = 0;  // rounds in a row that began with no pod bound
  std::vector<std::int32_t> live_pods_;  // per job, its pod objects that are pending or bound
  cluster::PodSpec round_spec_;          // the spec a planned pod is placed with
  std::vector<std::pair<std::int32_t, std::size_t>> round_order_;  // reused: (-GPUs, queue index)
  std::vector<std::uint8_t> round_placed_;
};

void RoundsPlugin::run_round(core::Time now) {
  if (!rounds_->any_active()) return;  // idle: the next arrival starts a round
  // Jobs that pass the GPU-count check but fit no node (CPU, memory, gang layouts) would make
  // rounds run forever on an empty cluster: after 3 rounds with no pod bound and no job created,
  // nothing can change, and the rounds stop (the next pod created starts them again).
  const auto& on_node = h_->bound_on_nodes();
  const bool busy = std::any_of(on_node.begin(), on_node.end(), [](const std::vector<PodId>& pods) { return !pods.empty(); });
  idle_rounds_ = busy ? 0 : idle_rounds_ + 1;
  if (idle_rounds_ > 3) return;
  rounds_->plan(now);
  // Jobs that run elsewhere than their round's type (or not at all in it) are suspended.
  for (const std::vector<PodId>& bound : on_node) {
    for (const PodId pod : bound) {
      const std::uint32_t job = rounds_->job_of(h_->api().pod(pod).source);
      if (!rounds_->plannable(job) || rounds_->planned(job) == rounds_->running(job)) continue;
      if (h_->is_evicting(pod)) continue;
      h_->request_eviction(pod, kEvictAtLeaseEnd, now);
    }
  }
  h_->set_timer(*this, kRound, 0, now + h_->profile().round_length, core::Phase::kSchedule);
  round_queued_ = true;
  h_->request_cycle(now);
}

// Places the pending pods of the jobs planned in this round, jobs with more GPUs first (as Gavel
// assigns workers, to keep large jobs whole), then in queue order, and CPU-only pods. Pods of jobs
// left out wait for a round that plans them; GPUs a job frees mid-round stay idle until the next
// round.
bool RoundsPlugin::run_cycle(core::Time now) {
  std::vector<PodId>& pending = h_->pending();
  round_order_.clear();
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const cluster::PodSpec& spec = h_->spec_of(pending[i]);
    const std::uint32_t job = rounds_->job_of(h_->api().pod(pending[i]).source);
    // CPU-only pods are not time-shared: they are placed as they come (a GPU job no type can hold
    // is not planned either, and never starts).
    if (spec.gpu_count == 0 && spec.gang == 0) {
      round_order_.emplace_back(0, i);
      continue;
    }
    if (rounds_->planned(job) == TimeShareRounds::kNone) continue;
    if (rounds_->running(job) != TimeShareRounds::kNone && rounds_->running(job) != rounds_->planned(job)) continue;  // leaving its old type first
    if (spec.gang != 0 && !h_->gang_ready(spec.gang)) continue;
    round_order_.emplace_back(-(spec.gang != 0 ? static_cast<std::int32_t>(h_->gang_size(spec.gang)) * spec.gpu_count : spec.gpu_count),
                              i);
  }
  std::sort(round_order_.begin(), round_order_.end());
  round_placed_.assign(pending.size(), 0);
  for (const auto& [gpus, i] : round_order_) {
    const PodId id = pending[i];
    if (h_->bound_by_gang(id)) {
      round_placed_[i] = 1;
      continue;
    }
    const cluster::PodSpec& spec = h_->spec_of(id);
    if (h_->place(id, spec, now) && spec.gang == 0) round_placed_[i] = 1;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (!round_placed_[i]) pending[kept++] = pending[i];
  }
  pending.resize(kept);
  h_->drop_gang_bound();
  return true;
}

}  // namespace

void register_rounds(sched::Registry& registry) {
  for (const char* name : {"gavel", "themis"}) {
    registry.add_queueing(name, [name](const sched::PluginContext&) { return std::make_unique<RoundsPlugin>(name); });
  }
}

}  // namespace gpusim::policy
