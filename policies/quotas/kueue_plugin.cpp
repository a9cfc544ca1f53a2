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
#include "sim/k8s/controller.hpp"
#include "sim/k8s/kueue_admission.hpp"
#include "sim/k8s/kueue_metrics.hpp"
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
    routes_ = setup->routes;
    manage_without_queue_ = setup->objects.configuration && setup->objects.configuration->manage_jobs_without_queue_name;
    for (const kueue::QueueRoute& route : routes_) {
      cluster_queue_of_queue_.push_back(route.cluster_queue.empty() ? kUnmanaged
                                                                   : static_cast<std::int32_t>(*engine_->quotas().cluster_queue(route.cluster_queue)));
    }
    job_of_row_.assign(handle.workload().size(), -1);
    suspended_row_.assign(handle.workload().size(), 0);
    waiting_row_.assign(handle.workload().size(), 0);
    waiting_pod_of_row_.assign(handle.workload().size(), 0);
    // A gang's Workload asks what all its workers ask (a job's last worker may have fewer GPUs).
    for (std::uint32_t row = 0; row < handle.workload().size(); ++row) {
      const cluster::PodSpec& pod = handle.workload()[row];
      if (pod.gang == 0 && pod.constraints && pod.constraints->job >= 0) manifest_rows_[pod.constraints->job].push_back(row);
      if (pod.gang == 0) continue;
      gang_rows_[pod.gang].push_back(row);
      Totals& t = gang_totals_[pod.gang];
      t.cpu_milli += pod.cpu_milli;
      t.memory_bytes += pod.memory_mib << 20;
      t.gpus += pod.gpu_count;
    }
    flavors_ = setup->objects.resource_flavors;
    if (handle.inputs().queue_series != nullptr) metrics_.emplace(*handle.inputs().queue_series, *engine_);
  }

  void pod_queued(PodId id, core::Time) override { create_job(id); }
  void pod_bound(PodId id, const cluster::Placement&, core::Time) override {
    if (const std::int32_t job = job_of(id); job >= 0) {
      ++jobs_[static_cast<std::size_t>(job)].bound;
      jobs_[static_cast<std::size_t>(job)].bound_pods.push_back(id);
    }
  }
  void pod_released(PodId id, const k8s::Message& ended) override {
    const std::int32_t j = job_of(id);
    if (j < 0) return;
    Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.bound > 0) --job.bound;
    if (const auto it = std::find(job.bound_pods.begin(), job.bound_pods.end(), id); it != job.bound_pods.end()) job.bound_pods.erase(it);
    if (job.held) return;
    const kueue::WorkloadState state = engine_->state(job.workload);
    if (state == kueue::WorkloadState::kEvicted) {
      // Kueue gives a preempted Workload's quota back once its Job has no active pods: here, as its
      // last pod ends (gpusim's kubelet ends an evicted pod at once).
      if (job.bound == 0) {
        engine_->evicted_and_gone(job.workload, h_->now());
        h_->request_cycle(h_->now());
        arm_requeue_timer();
      }
      return;
    }
    // A pod's last end (succeeded, or failed for a reason its Job does not replace it for): once every
    // pod of the job has ended so, the Job is finished and Kueue frees its quota.
    if (!k8s::replaceable(ended.reason) && state == kueue::WorkloadState::kAdmitted && ++job.succeeded == job.pods) {
      engine_->finished(job.workload, h_->now());
      h_->request_cycle(h_->now());
      arm_requeue_timer();
    }
  }

  // The Job failed (its active pods are deleted, no more come), or a row's owner gave up on its
  // failed pod: Kueue's Workload is finished with its Job, as when it succeeds.
  void owner_gave_up(const k8s::Message& message, core::Time now) override {
    std::int32_t j = -1;
    if (message.topic == k8s::Topic::kJobFailed) {
      const auto it = job_of_manifest_job_.find(static_cast<std::int32_t>(message.value));
      if (it != job_of_manifest_job_.end()) j = it->second;
    } else if (message.pod != k8s::kNoPod) {
      j = job_of(message.pod);
    }
    if (j < 0) return;
    Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.held) return;
    // A row given up on ends its Workload as a failed Job ends Kueue's: a gang missing a worker for
    // good can never be whole again, so its quota goes now (its other workers run on until they end).
    if (engine_->state(job.workload) == kueue::WorkloadState::kFinished) return;
    engine_->job_ended(job.workload, now);
    h_->request_cycle(now);
    arm_requeue_timer();
  }

  // The pods of Workloads Kueue has not admitted wait (their Job is suspended): per trace row, kept
  // as Workloads are created, admitted and preempted.
  void suspend_job(std::int32_t job, bool suspended) {
    Job& j = jobs_[static_cast<std::size_t>(job)];
    if (j.manifest >= 0 && j.suspended != suspended) h_->set_job_suspended(j.manifest, suspended, h_->now());
    j.suspended = suspended;
    for (const std::uint32_t row : rows_of_job_[static_cast<std::size_t>(job)]) {
      if (suspended_row_[row] == (suspended ? 1 : 0)) continue;
      suspended_row_[row] = suspended ? 1 : 0;
      if (waiting_row_[row]) {
        released_waiting_ += suspended ? -1 : 1;
        suspended_pod_[waiting_pod_of_row_[row]] = suspended ? 1 : 0;
      }
    }
  }
  // Pods join (+1) or leave (-1) the queue: those released to the scheduler are counted, so that a
  // cycle with none to place skips the walk.
  void pod_waiting(PodId id, int sign) override {
    const std::uint32_t row = h_->api().pod(id).source;
    waiting_row_[row] = sign > 0 ? 1 : 0;
    if (!suspended_row_[row]) released_waiting_ += sign;
    if (sign > 0) {
      waiting_pod_of_row_[row] = id;
      if (suspended_pod_.size() <= id) suspended_pod_.resize(std::max<std::size_t>(id + 1, 2 * suspended_pod_.size()), 0);
      suspended_pod_[id] = suspended_row_[row];
    }
  }

  // The cycle: Kueue's admission, then kube-scheduler's walk over the queue (FIFO) for the pods
  // Kueue released, a shape that failed once in the cycle skipped after (as the scheduler's own
  // walk does). The walk is the plugin's so that the suspended pods, most of a long queue, cost one
  // check each.
  bool run_cycle(core::Time now) override {
    admit(now);
    if (released_waiting_ == 0) {
      arm_requeue_timer();
      return true;
    }
    std::vector<PodId>& pending = h_->pending();
    const k8s::SchedulerHandle::View view = h_->view();
    const std::vector<std::uint32_t>& shape_of_source = *view.shape_of_source;
    const std::vector<std::uint64_t>& failed_in_cycle = *view.failed_in_cycle;
    const std::uint64_t cycle = *view.cycle;
    // Every pod Kueue released is visited; the queue past the last of them holds only suspended
    // pods, which stay as they are (most of a long queue: Kueue admits the older jobs first).
    std::int64_t released_left = released_waiting_;
    std::size_t kept = 0;
    std::size_t i = 0;
    for (; i < pending.size() && released_left > 0; ++i) {
      const PodId id = pending[i];
      if (suspended_pod_[id]) {
        pending[kept++] = id;
        continue;
      }
      --released_left;
      if (h_->bound_by_gang(id)) continue;  // placed with its gang's first member
      const std::uint32_t source = h_->api().pod(id).source;
      const cluster::PodSpec& spec = h_->workload()[source];
      const std::uint32_t shape = shape_of_source[source];
      const bool gang = spec.gang != 0;
      const bool partial_gang = gang && h_->gang_started(spec.gang);
      if ((gang && !h_->gang_ready(spec.gang)) || (failed_in_cycle[shape] == cycle && !partial_gang)) {
        pending[kept++] = id;
        continue;
      }
      if (h_->place(id, spec, now)) continue;
      if (!partial_gang) h_->mark_failed(spec, shape);
      pending[kept++] = id;
    }
    if (kept < i) pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(kept), pending.begin() + static_cast<std::ptrdiff_t>(i));
    h_->drop_gang_bound();
    arm_requeue_timer();
    return true;
  }

  // Kueue's requeuer: what waited aside for quota is queued again, and tried.
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override {
    if (tag == kSeriesTimer) {
      series_timer_ = false;
      record_series(now);
      return;
    }
    if (tag == kRequeueTimer) {
      engine_->requeue_evicted(static_cast<kueue::WorkloadId>(payload));  // unless its Job ended meanwhile
      h_->request_cycle(now);
      return;
    }
    timer_at_.reset();
    h_->request_cycle(now);
  }

  // Kueue's cycles at this instant: admitted Workloads' pods go to the walk with their flavors;
  // preempted ones' pods are evicted.
  void admit(core::Time now) {
    const kueue::Decisions decisions = engine_->run_cycles(now);
    admissions_ += static_cast<std::int64_t>(decisions.admitted.size());
    for (const kueue::WorkloadId w : decisions.admitted) {
      inject_flavors(w);
      suspend_job(workload_job_[w], false);
      if (metrics_) metrics_->admitted(now, w);
    }
    for (const auto& p : decisions.preempted) {
      ++preemptions_[static_cast<std::size_t>(p.reason)];
      if (metrics_) metrics_->preempted(now, p);
      suspend_job(workload_job_[p.victim], true);
      const Job& job = jobs_[static_cast<std::size_t>(workload_job_[p.victim])];
      if (job.bound == 0) {
        // Admitted, but none of its pods is bound yet: no pod to wait for.
        requeue_later(p.victim, now);
        continue;
      }
      const std::vector<PodId> bound = job.bound_pods;  // a copy: an eviction may end a pod at once
      for (const PodId pod : bound) {
        if (!h_->is_evicting(pod)) h_->request_eviction(pod, 1, now);
      }
    }
  }


  // The queue series' gauges, at most once a simulated minute (a cycle may follow every event): a
  // cycle sooner leaves a timer for the minute's end, so that the last state is recorded.
  void cycle_done(core::Time now) override {
    if (!metrics_) return;
    if (series_at_ && now < *series_at_ + kSeriesPeriod) {
      if (!series_timer_) h_->set_timer(*this, kSeriesTimer, 0, *series_at_ + kSeriesPeriod);
      series_timer_ = true;
      return;
    }
    record_series(now);
  }
  void record_series(core::Time now) {
    series_at_ = now;
    waiting_fit_.assign(engine_->quotas().node_count(), 0);
    std::size_t kept = 0;
    for (const std::int32_t j : live_) {
      const Job& job = jobs_[static_cast<std::size_t>(j)];
      const kueue::WorkloadState state = engine_->state(job.workload);
      if (state == kueue::WorkloadState::kFinished) continue;
      live_[kept++] = j;
      if (state == kueue::WorkloadState::kAdmitted && job.bound < job.pods) ++waiting_fit_[engine_->spec(job.workload).cluster_queue];
    }
    live_.resize(kept);
    metrics_->update(now, waiting_fit_);
  }

  std::optional<sched::NeverRanReason> never_ran(PodId id, std::span<const std::string> queues) const override {
    const std::int32_t j = job_of(id);
    if (j < 0) return std::nullopt;
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.held) {
      const cluster::PodSpec& spec = h_->spec_of(id);
      const kueue::QueueRoute& route = routes_[spec.queue < routes_.size() ? spec.queue : 0];
      std::string why;
      if (route.stopped) {
        why = fmt::format("its LocalQueue {}/{} is stopped (stopPolicy)", route.namespace_name, route.local_queue);
      } else if (route.cluster_queue.empty() && created_suspended(spec) && !manage_without_queue_) {
        why = fmt::format("it was created suspended (spec.suspend: true) and no LocalQueue takes it (it names {}), so nothing "
                          "resumes it",
                          spec.queue < queues.size() ? fmt::format("queue {}", queues[spec.queue]) : std::string("no queue"));
      } else {
        why = "it names no LocalQueue and the Configuration has Kueue manage such Jobs (manageJobsWithoutQueueName)";
      }
      return sched::NeverRanReason{fmt::format("its Job stayed suspended: {}", why), {"not admitted by Kueue"}};
    }
    if (engine_->state(job.workload) == kueue::WorkloadState::kAdmitted) return std::nullopt;
    return sched::NeverRanReason{fmt::format("Kueue did not admit its Workload: {}", engine_->why_waiting(job.workload)),
                                 {"not admitted by Kueue"}};
  }

  void add_metrics(const k8s::MetricSink& set) const override {
    set("kueue_admissions", static_cast<double>(admissions_));
    // As the series last recorded it (gpusim_queue_starved_seconds_total summed over the queues).
    if (metrics_ && series_at_) set("queue_starved_seconds", metrics_->starved_seconds(*series_at_));
    for (const auto reason : {kueue::PreemptionReason::kInClusterQueue, kueue::PreemptionReason::kInCohortReclamation,
                              kueue::PreemptionReason::kInCohortReclaimWhileBorrowing, kueue::PreemptionReason::kInCohortFairSharing}) {
      set(fmt::format("kueue_preemptions_{}", kueue::to_string(reason)), static_cast<double>(preemptions_[static_cast<std::size_t>(reason)]));
    }
  }

 private:
  struct Job {
    kueue::WorkloadId workload = 0;
    std::int32_t pods = 1;
    std::int32_t succeeded = 0;  // pods ended for good
    std::int32_t bound = 0;
    bool held = false;  // its Job stays suspended for ever (a stopped LocalQueue, or none at all)
    std::vector<PodId> bound_pods;
    std::int32_t manifest = -1;  // its manifest Job (Workload::jobs), if it is one
    bool suspended = false;      // as Kueue holds its Job
  };
  struct Totals {
    std::int64_t cpu_milli = 0;
    std::int64_t memory_bytes = 0;
    std::int64_t gpus = 0;
  };

  // Kueue merges the admitted flavors' nodeLabels into the pods' node selector and their
  // tolerations into the pods' (pkg/podset/podset.go, FromAssignment and Merge): the pods of the
  // Workload are placed with those.
  void inject_flavors(kueue::WorkloadId w) {
    cluster::Labels labels;
    std::vector<cluster::Toleration> tolerations;
    for (const auto& [fr, amount] : engine_->usage(w)) {
      const std::string& name = engine_->quotas().pair(fr).first;
      for (const kueue::ResourceFlavor& f : flavors_) {
        if (f.name != name) continue;
        for (const auto& label : f.node_labels) {
          if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
        }
        tolerations.insert(tolerations.end(), f.tolerations.begin(), f.tolerations.end());
      }
    }
    const std::int32_t job = workload_job_[w];
    for (std::uint32_t row : rows_of_job_[static_cast<std::size_t>(job)]) {
      if (labels.empty() && tolerations.empty()) {
        narrowed_.erase(row);
        continue;
      }
      cluster::PodSpec spec = h_->workload()[row];
      auto constraints = spec.constraints ? std::make_shared<cluster::PodConstraints>(*spec.constraints)
                                          : std::make_shared<cluster::PodConstraints>();
      for (const auto& label : labels) constraints->node_selector.push_back(label);
      constraints->tolerations.insert(constraints->tolerations.end(), tolerations.begin(), tolerations.end());
      spec.constraints = std::move(constraints);
      narrowed_[row] = std::move(spec);
    }
  }
  const cluster::PodSpec* spec_to_place(PodId id) override {
    if (narrowed_.empty()) return nullptr;
    const auto it = narrowed_.find(h_->api().pod(id).source);
    return it == narrowed_.end() ? nullptr : &it->second;
  }

  // A preempted Workload none of whose pods was bound: nothing is left to stop, and its quota goes
  // back at once; it rejoins its queue a second later (kEvictionObserved). Kueue queues an evicted
  // Workload again only once its reconcilers have seen its Job suspended (API round trips); at zero,
  // the victim could be admitted again at the preemption's instant, before its preemptor, and be
  // preempted again, for ever at one instant (Kueue issues #3779, #14543 describe that cycle; where
  // Kueue repeats it at its reconcilers' pace, gpusim's second lets the preemptor in first).
  // Where pods were bound, the quota goes as the last of them ends, and a second round waits for
  // their replacements.
  void requeue_later(kueue::WorkloadId w, core::Time now) {
    engine_->evicted_requeue_later(w, now);
    h_->request_cycle(now);
    arm_requeue_timer();
    h_->set_timer(*this, kRequeueTimer, w, now + kEvictionObserved);
  }

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
    if (!managed(spec)) return -1;
    if (const std::int32_t job = manifest_job(spec); job >= 0) {
      const auto it = job_of_manifest_job_.find(job);
      return it == job_of_manifest_job_.end() ? -1 : it->second;
    }
    if (spec.gang == 0) return job_of_row_[h_->api().pod(id).source];
    const auto it = job_of_gang_.find(spec.gang);
    return it == job_of_gang_.end() ? -1 : it->second;
  }
  const kueue::QueueRoute* route_of(const cluster::PodSpec& spec) const {
    return spec.queue < routes_.size() ? &routes_[spec.queue] : nullptr;
  }
  // Whether Kueue manages the pod's Job: it names a LocalQueue, or the Configuration has Kueue
  // manage Jobs without one (they then stay suspended); and a Job created suspended (spec.suspend)
  // is followed too: where no LocalQueue takes it, nothing resumes it.
  bool managed(const cluster::PodSpec& spec) const {
    const kueue::QueueRoute* route = route_of(spec);
    return (route != nullptr && !route->cluster_queue.empty()) || manage_without_queue_ || created_suspended(spec);
  }
  static bool created_suspended(const cluster::PodSpec& spec) { return spec.constraints && spec.constraints->suspended; }
  // A manifest's Job (not a gang): Kueue's Workload for it is the Job's, whose pod set counts
  // min(parallelism, completions) (kueue::Setup::job_pod_counts); -1 for other pods.
  static std::int32_t manifest_job(const cluster::PodSpec& spec) {
    return spec.gang == 0 && spec.constraints && spec.constraints->job >= 0 ? spec.constraints->job : -1;
  }
  // A job's Workload, created with its first pod.
  void create_job(PodId id) {
    const cluster::PodSpec& spec = h_->spec_of(id);
    if (!managed(spec) || job_of(id) >= 0) return;
    const kueue::QueueRoute* route = route_of(spec);
    const bool held = route == nullptr || route->cluster_queue.empty() || route->stopped;
    const std::int32_t manifest = manifest_job(spec);
    // The pods whose ends finish the Workload: a gang's workers, a Job's completions, or the pod.
    std::int32_t pods = spec.gang != 0 ? static_cast<std::int32_t>(h_->gang_size(spec.gang)) : 1;
    std::int32_t pod_set_count = pods;  // what the Workload asks for: its pod set's count
    if (manifest >= 0) {
      pods = static_cast<std::int32_t>(manifest_rows_.at(manifest).size());
      pod_set_count = h_->inputs().kueue->job_pod_counts.at(static_cast<std::size_t>(manifest));
    }
    const auto job = static_cast<std::int32_t>(jobs_.size());
    kueue::WorkloadId workload = 0;
    if (!held) {
      kueue::WorkloadSpec w;
      w.name = spec.name;
      w.namespace_name = route->namespace_name;
      w.cluster_queue = static_cast<kueue::NodeId>(cluster_queue_of_queue_[spec.queue]);
      // The Workload's priority: its WorkloadPriorityClass's value where it names one, else the pod's.
      w.priority = spec.priority;
      if (spec.constraints && !spec.constraints->workload_priority_class.empty()) {
        for (const kueue::WorkloadPriorityClass& c : h_->inputs().kueue->objects.priority_classes) {
          if (c.name == spec.constraints->workload_priority_class) w.priority = c.value;
        }
      }
      w.queue_order = spec.creation_time ? spec.creation_time->micros() : 0;
      w.pod_count = pod_set_count;
      if (spec.constraints) {
        w.node_selector = spec.constraints->node_selector;
        w.tolerations = spec.constraints->tolerations;
      }
      // Kueue's amounts: cpu in millicores, memory in bytes, GPUs in devices, summed over the job's
      // pods; a resource not asked is not listed.
      Totals t{spec.cpu_milli, spec.memory_mib << 20, spec.gpu_count};
      if (spec.gang != 0) t = gang_totals_.at(spec.gang);
      if (manifest >= 0) t = Totals{t.cpu_milli * pod_set_count, t.memory_bytes * pod_set_count, t.gpus * pod_set_count};
      if (t.cpu_milli > 0) w.requests.emplace_back("cpu", t.cpu_milli);
      if (t.memory_bytes > 0) w.requests.emplace_back("memory", t.memory_bytes);
      if (t.gpus > 0) w.requests.emplace_back("nvidia.com/gpu", t.gpus);
      workload = engine_->add(std::move(w));
      if (workload_job_.size() <= workload) workload_job_.resize(workload + 1, -1);
      workload_job_[workload] = job;
    }
    jobs_.push_back({workload, pods, 0, 0, held, {}, manifest, false});
    if (!held) live_.push_back(job);
    rows_of_job_.emplace_back();
    if (manifest >= 0) {
      job_of_manifest_job_.emplace(manifest, job);
      rows_of_job_.back() = manifest_rows_.at(manifest);
    } else if (spec.gang != 0) {
      job_of_gang_.emplace(spec.gang, job);
      rows_of_job_.back() = gang_rows_.at(spec.gang);
    } else {
      job_of_row_[h_->api().pod(id).source] = job;
      rows_of_job_.back().push_back(h_->api().pod(id).source);
    }
    suspend_job(job, true);
  }

  k8s::SchedulerHandle* h_ = nullptr;
  std::optional<kueue::Admission> engine_;
  std::vector<kueue::QueueRoute> routes_;             // per workload queue
  std::vector<std::int32_t> cluster_queue_of_queue_;  // per workload queue: its ClusterQueue's node, or kUnmanaged
  bool manage_without_queue_ = false;
  std::vector<kueue::ResourceFlavor> flavors_;
  std::map<std::uint32_t, Totals> gang_totals_;
  std::map<std::uint32_t, std::vector<std::uint32_t>> gang_rows_;
  std::vector<std::vector<std::uint32_t>> rows_of_job_;  // per job, its trace rows
  std::map<std::uint32_t, cluster::PodSpec> narrowed_;   // per trace row: its spec with its flavors' labels and tolerations
  std::vector<std::int32_t> job_of_row_;              // per trace row (pods outside gangs)
  std::vector<std::uint8_t> suspended_row_;           // per trace row: its Job is suspended
  std::vector<std::uint8_t> waiting_row_;             // per trace row: its pod waits in the queue
  std::vector<PodId> waiting_pod_of_row_;             // per trace row: its pod that waits, if one does
  // Per pod waiting: its Job is suspended (suspended_row_ by pod, dense for the walk over the queue).
  std::vector<std::uint8_t> suspended_pod_;
  std::int64_t released_waiting_ = 0;                 // pods waiting whose Job is not suspended
  std::map<std::uint32_t, std::int32_t> job_of_gang_;
  std::map<std::int32_t, std::vector<std::uint32_t>> manifest_rows_;  // per manifest Job (Workload::jobs): its rows
  std::map<std::int32_t, std::int32_t> job_of_manifest_job_;
  std::vector<Job> jobs_;
  std::vector<std::int32_t> workload_job_;  // per Workload, its job
  std::optional<core::Time> timer_at_;     // the requeue timer set, if any
  std::int64_t admissions_ = 0;
  std::int64_t preemptions_[4] = {0, 0, 0, 0};
  static constexpr core::Time kSeriesPeriod = core::Time::from_seconds(60);
  std::optional<kueue::KueueMetrics> metrics_;  // when the run records series
  std::optional<core::Time> series_at_;         // the gauges' last update
  static constexpr std::uint32_t kSeriesTimer = 1;
  static constexpr std::uint32_t kRequeueTimer = 2;
  static constexpr core::Time kEvictionObserved = core::Time::from_seconds(1);
  bool series_timer_ = false;                   // a timer for the next update is set
  std::vector<std::int32_t> live_;              // jobs with a Workload not finished
  std::vector<std::int64_t> waiting_fit_;       // reused: per tree node
};

}  // namespace

void register_kueue(sched::Registry& registry) {
  registry.add_queueing("kueue", [](const sched::PluginContext&) { return std::make_unique<KueuePlugin>(); });
}

}  // namespace gpusim::policy
