// Kueue in front of kube-scheduler (queueAdmission Kueue; the engine is sim/k8s/kueue_admission.hpp).
// Every job of a queue some LocalQueue takes (a gang, or a pod of its own) is a Workload of its
// ClusterQueue, created when its first pod is queued. Its pods wait, as a suspended Job's would,
// until Kueue admits the Workload; then the scheduler's own walk places them (Kueue's quota is not
// node capacity: an admitted job may still wait for nodes, holding its quota). Before each walk
// the engine runs its cycles; a Workload it preempts has its bound pods evicted (they restart from
// their last checkpoint when their Job recreates them), and it gives its quota back once they are
// gone. A Workload finishes, and gives its quota back, when all its pods have succeeded. Jobs of
// queues no LocalQueue takes run as Kueue leaves them: unmanaged.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "policies/builtin_parts.hpp"
#include "sim/core/check.hpp"
#include "sim/k8s/kueue_admission.hpp"
#include "sim/k8s/queueing_plugin.hpp"

namespace gpusim::policy {
namespace {

using k8s::PodId;
namespace kueue = k8s::kueue;

constexpr std::int32_t kUnmanaged = -1;

class KueuePlugin final : public k8s::QueueingPlugin {
 public:
  std::string_view name() const override { return "kueue"; }
  bool evicts() const override { return true; }

  void attach(k8s::SchedulerHandle& handle) override {
    h_ = &handle;
    const kueue::Setup* setup = handle.inputs().kueue;
    GPUSIM_CHECK(setup != nullptr, "policy kueue without Kueue's objects");
    engine_.emplace(setup->objects);
    for (const std::string& cq : setup->cluster_queue_of_queue) {
      cluster_queue_of_queue_.push_back(cq.empty() ? kUnmanaged : static_cast<std::int32_t>(*engine_->quotas().cluster_queue(cq)));
    }
    job_of_row_.assign(handle.workload().size(), -1);
  }

  void pod_queued(PodId id, core::Time) override { create_job(id); }
  void pod_bound(PodId id, const cluster::Placement&, core::Time) override {
    if (const std::int32_t job = job_of(id); job >= 0) ++jobs_[static_cast<std::size_t>(job)].bound;
  }
  void pod_released(PodId id, const k8s::Message& ended) override {
    const std::int32_t j = job_of(id);
    if (j < 0) return;
    Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.bound > 0) --job.bound;
    const kueue::WorkloadState state = engine_->state(job.workload);
    if (state == kueue::WorkloadState::kEvicted) {
      // Kueue gives a preempted Workload's quota back once its Job has no active pods.
      if (job.bound == 0) {
        engine_->evicted_and_gone(job.workload, h_->now());
        h_->request_cycle(h_->now());
        arm_requeue_timer();
      }
      return;
    }
    if (ended.reason == k8s::Reason::kSucceeded && state == kueue::WorkloadState::kAdmitted && ++job.succeeded == job.pods) {
      engine_->finished(job.workload, h_->now());
      h_->request_cycle(h_->now());
      arm_requeue_timer();
    }
  }

  // Pods of Workloads Kueue has not admitted wait (their Job is suspended); the rest go to the walk.
  bool tries_pods() const override { return true; }
  Tried try_pod(PodId id, const cluster::PodSpec&, bool, core::Time) override {
    const std::int32_t job = job_of(id);
    if (job < 0 || engine_->state(jobs_[static_cast<std::size_t>(job)].workload) == kueue::WorkloadState::kAdmitted) return Tried::kNotTried;
    return Tried::kKept;
  }

  // Kueue's requeuer: what waited aside for quota is queued again, and tried.
  void on_timer(std::uint32_t, std::uint64_t, core::Time now) override {
    timer_at_.reset();
    h_->request_cycle(now);
  }

  void walk_begin(core::Time now) override {
    const kueue::Decisions decisions = engine_->run_cycles(now);
    admissions_ += static_cast<std::int64_t>(decisions.admitted.size());
    for (const auto& p : decisions.preempted) {
      ++preemptions_[static_cast<std::size_t>(p.reason)];
      const Job& job = jobs_[static_cast<std::size_t>(workload_job_[p.victim])];
      if (job.bound == 0) {
        // Admitted, but none of its pods is bound yet: nothing to wait for.
        engine_->evicted_and_gone(p.victim, now);
        h_->request_cycle(now);
        continue;
      }
      for (const auto& on_node : h_->bound_on_nodes()) {
        for (const PodId pod : on_node) {
          if (job_of(pod) == workload_job_[p.victim] && !h_->is_evicting(pod)) h_->request_eviction(pod, 1, now);
        }
      }
    }
  }

  void walk_done(core::Time) override { arm_requeue_timer(); }

  std::optional<sched::NeverRanReason> never_ran(PodId id, std::span<const std::string>) const override {
    const std::int32_t job = job_of(id);
    if (job < 0) return std::nullopt;
    const kueue::WorkloadId w = jobs_[static_cast<std::size_t>(job)].workload;
    if (engine_->state(w) == kueue::WorkloadState::kAdmitted) return std::nullopt;
    const std::string& why = engine_->waiting_reason(w);
    return sched::NeverRanReason{fmt::format("Kueue did not admit its Workload{}{}", why.empty() ? "" : ": ", why),
                                 {"not admitted by Kueue"}};
  }

  void add_metrics(const k8s::MetricSink& set) const override {
    set("kueue_admissions", static_cast<double>(admissions_));
    for (const auto reason : {kueue::PreemptionReason::kInClusterQueue, kueue::PreemptionReason::kInCohortReclamation,
                              kueue::PreemptionReason::kInCohortReclaimWhileBorrowing}) {
      set(fmt::format("kueue_preemptions_{}", kueue::to_string(reason)), static_cast<double>(preemptions_[static_cast<std::size_t>(reason)]));
    }
  }

 private:
  struct Job {
    kueue::WorkloadId workload = 0;
    std::int32_t pods = 1;
    std::int32_t succeeded = 0;
    std::int32_t bound = 0;
  };

  // A timer for the engine's next batched requeue, unless one is set for then or earlier.
  void arm_requeue_timer() {
    const std::optional<core::Time> next = engine_->next_requeue();
    if (!next || (timer_at_ && *timer_at_ <= *next)) return;
    timer_at_ = next;
    h_->set_timer(*this, 0, 0, *next);
  }

  // The job the pod belongs to, or -1 for a pod Kueue does not manage or whose job it has not seen.
  std::int32_t job_of(PodId id) const {
    const cluster::PodSpec& spec = h_->spec_of(id);
    if (managed_cluster_queue(spec) == kUnmanaged) return -1;
    if (spec.gang == 0) return job_of_row_[h_->api().pod(id).source];
    const auto it = job_of_gang_.find(spec.gang);
    return it == job_of_gang_.end() ? -1 : it->second;
  }
  std::int32_t managed_cluster_queue(const cluster::PodSpec& spec) const {
    return spec.queue < cluster_queue_of_queue_.size() ? cluster_queue_of_queue_[spec.queue] : kUnmanaged;
  }
  // A job's Workload, created with its first pod.
  void create_job(PodId id) {
    const cluster::PodSpec& spec = h_->spec_of(id);
    const std::int32_t cq = managed_cluster_queue(spec);
    if (cq == kUnmanaged || job_of(id) >= 0) return;
    const std::int32_t pods = spec.gang != 0 ? static_cast<std::int32_t>(h_->gang_size(spec.gang)) : 1;
    kueue::WorkloadSpec w;
    w.name = spec.name;
    w.cluster_queue = static_cast<kueue::NodeId>(cq);
    w.priority = spec.priority;
    w.queue_order = spec.creation_time ? spec.creation_time->micros() : 0;
    w.pod_count = pods;
    // Kueue's amounts: cpu in millicores, memory in bytes, GPUs in devices; a resource not asked is
    // not listed.
    if (spec.cpu_milli > 0) w.requests.emplace_back("cpu", spec.cpu_milli * pods);
    if (spec.memory_mib > 0) w.requests.emplace_back("memory", (spec.memory_mib << 20) * pods);
    if (spec.gpu_count > 0) w.requests.emplace_back("nvidia.com/gpu", std::int64_t{spec.gpu_count} * pods);
    const kueue::WorkloadId workload = engine_->add(std::move(w));
    const auto job = static_cast<std::int32_t>(jobs_.size());
    jobs_.push_back({workload, pods, 0, 0});
    if (spec.gang != 0) job_of_gang_.emplace(spec.gang, job);
    else job_of_row_[h_->api().pod(id).source] = job;
    if (workload_job_.size() <= workload) workload_job_.resize(workload + 1, -1);
    workload_job_[workload] = job;
  }

  k8s::SchedulerHandle* h_ = nullptr;
  std::optional<kueue::Admission> engine_;
  std::vector<std::int32_t> cluster_queue_of_queue_;  // per workload queue: its ClusterQueue's node, or kUnmanaged
  std::vector<std::int32_t> job_of_row_;              // per trace row (pods outside gangs)
  std::map<std::uint32_t, std::int32_t> job_of_gang_;
  std::vector<Job> jobs_;
  std::vector<std::int32_t> workload_job_;  // per Workload, its job
  std::optional<core::Time> timer_at_;     // the requeue timer set, if any
  std::int64_t admissions_ = 0;
  std::int64_t preemptions_[4] = {0, 0, 0, 0};
};

}  // namespace

void register_kueue(sched::Registry& registry) {
  registry.add_queueing("kueue", [](const sched::PluginContext&) { return std::make_unique<KueuePlugin>(); });
}

}  // namespace gpusim::policy
