#pragma once
// The kube-scheduler: a pending queue and the scheduling framework, run over the scheduler's own
// cache of the cluster. The cache takes each node's allocatable GPUs from the node status the
// kubelet last published (so it may be stale) and the pods it bound itself (assumed at once, as
// kube-scheduler assumes them); a pod's resources go back when the API server reports it ended.
// One cycle per instant, after every state change and arrival of that instant.
//
// The scheduler runs the framework (sim/sched/framework.hpp) for each pod and places a gang whole.
// Every queueing policy is a plugin (sim/k8s/queueing_plugin.hpp; the plugins are in policies/):
// the scheduler builds those the profile names, calls their hooks and offers them its handle, and
// holds no policy's state. Files: scheduler.cpp (events, queue, binding, gangs, the walk),
// scheduler_plugins.cpp (the plugins and the handle), scheduler_pod_checks.cpp,
// scheduler_node_status.cpp, scheduler_diagnosis.cpp.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/job_ledger.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/k8s/queueing_plugin.hpp"
#include "sim/k8s/workload_times.hpp"
#include "sim/sched/framework.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

class Scheduler final : public Component, private SchedulerHandle {
 public:
  // `pods`: the pods as the scheduler sees their requests (whole GPUs on count-only nodes);
  // `inputs`: what the queueing plugins get besides the cluster (kept for the run).
  Scheduler(Bus& bus, const ApiServer& api, const cluster::GpuCatalog& catalog,
            const std::vector<cluster::NodeSpec>& nodes, const std::vector<NodeSetup>& setup,
            const std::vector<cluster::PodSpec>& pods, const sched::Profile& profile,
            const sched::Registry& registry, const sched::PluginContext& context,
            const std::vector<std::uint8_t>& present, bool lifecycle_events, core::Time node_status_period,
            const QueueingInputs& inputs);
  ~Scheduler() override;
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

  // Gang starts whose workers landed on more than one node (they run at the scattered speed), and
  // on one node.
  std::uint64_t gangs_spread() const { return gangs_spread_; }
  std::uint64_t gangs_on_one_node() const { return gangs_on_one_node_; }
  // The metrics of the run's queueing plugins and of its gangs (`gangs`: the workload has gangs),
  // in summary.json's order.
  void add_metrics(const MetricSink& set, bool gangs) const;

  // Why each of `pods` (pod objects still Pending when the run ended) never ran, for pods.csv and
  // summary.json (sim/k8s/scheduler_diagnosis.cpp): what it waited for besides nodes, else
  // kube-scheduler's FitError against this cache as the run left it. `queues`: the queue names.
  std::vector<sched::NeverRanReason> explain_never_ran(std::span<const PodId> pods, std::span<const std::string> queues);

  const cluster::ClusterState& cache() const override { return cache_; }
  // Whether a queueing plugin of the profile asks for evictions (QueueingPlugin::evicts).
  bool evicts() const;
  std::uint64_t attempts() const { return attempts_; }
  // Pods this scheduler asked to evict to make room for others.
  std::int64_t preemption_requests() const { return preemption_requests_; }

 private:
  // SchedulerHandle, for the queueing plugins (sim/k8s/queueing_plugin.hpp).
  const std::vector<NodeSetup>& node_setup() const override { return setup_; }
  const sched::Profile& profile() const override { return framework_.profile(); }
  const QueueingInputs& inputs() const override { return inputs_; }
  std::vector<PodId>& pending() override { return pending_; }
  bool never_fits(std::uint32_t shape) const override { return never_fits_[shape] != 0; }
  void mark_shape_failed(std::uint32_t shape) override { failed_in_cycle_[shape] = cycle_; }
  std::size_t shape_count() const override { return failed_in_cycle_.size(); }
  std::optional<cluster::Placement> schedule(const cluster::PodSpec& spec) override;
  void count_attempt() override { ++attempts_; }
  void unreserve(const cluster::PodSpec& spec, const cluster::Placement& placement) override;
  void set_node_withheld(cluster::NodeIndex n, bool withheld) override { cache_.set_present(n, !withheld); }
  void refresh_node(cluster::NodeIndex n) override { apply_status(n); }
  std::uint32_t gang_size(std::uint32_t gang) const override { return gang_size_[gang]; }
  std::vector<PodId>& gang_pending(std::uint32_t gang) override { return gang_pending_[gang]; }
  void set_gang_started(std::uint32_t gang, bool started) override { gang_started_[gang] = started ? 1 : 0; }
  const std::vector<std::vector<PodId>>& bound_on_nodes() const override { return on_node_; }
  const std::vector<cluster::Placement>& assumed() const override { return assumed_; }
  const std::vector<core::Time>& expected_ends() const override { return expected_end_; }
  std::uint64_t released() const override { return released_; }
  void set_timer(const QueueingPlugin& plugin, std::uint32_t tag, std::uint64_t payload, core::Time at,
                 core::Phase phase) override;
  core::Time now_() const override { return bus_.now(); }


  // Timer tags from kPluginTimers on are the queueing plugins': 16 per plugin.
  static constexpr std::uint32_t kPluginTimers = 16;
  // QueueSort's order, ties by pod id (the queue is kept in it).
  bool queued_before(PodId a, PodId b) const;
  void request_cycle(core::Time now) override;
  void run_cycle(core::Time now);
  // Makes node n's cache show the published status: on count-only nodes, as many GPUs
  // unavailable as the status lacks, taken from free GPUs first (a count has no identity).
  void apply_status(cluster::NodeIndex n);
  cluster::GpuSet being_repartitioned(cluster::NodeIndex n);
  void mark_pods_larger_than_any_node(const std::vector<cluster::NodeSpec>& nodes,
                                      const std::vector<cluster::PodSpec>& pods, std::size_t shapes);
  static void check_profile(const sched::Profile& profile, const sched::Registry& registry,
                            const std::vector<cluster::NodeSpec>& nodes, const std::vector<cluster::PodSpec>& pods,
                            bool lifecycle);

  Bus& bus_;
  const ApiServer& api_;
  const std::vector<NodeSetup>& setup_;
  const std::vector<cluster::PodSpec>& pods_;
  cluster::ClusterState cache_;
  sched::Framework framework_;
  std::string profile_name_;  // pods naming it (or default-scheduler) are this scheduler's
  std::string system_name_;   // and those naming its queueing system's scheduler (QueueingPlugin::scheduler_name)
  // Whether pods with this schedulerName are this scheduler's.
  bool takes(const std::string& scheduler_name) const {
    return scheduler_name == "default-scheduler" || scheduler_name == profile_name_ || (!system_name_.empty() && scheduler_name == system_name_);
  }
  std::vector<PodId> pending_;
  std::vector<cluster::Placement> assumed_;  // per pod object: where the scheduler bound it
  // Pods of one shape (requests, allowed GPU models, MIG profile and placement rules: pods with
  // other rules may fit where this one did not) fit the same nodes: within a cycle free resources
  // only shrink, so once a shape failed its later pods are skipped. Shapes are numbered once per
  // trace row.
  std::vector<std::uint32_t> shape_of_source_;  // per trace row, its shape's number
  // Per shape: no node, empty, could ever take it (larger than any node), or, for a gang's worker,
  // its gang asks more GPUs than all the nodes that could hold its workers have. Such a pod is
  // marked unschedulable at its creation and never queued, so that it blocks no queue (strict FIFO).
  std::vector<std::uint8_t> never_fits_;
  std::vector<std::uint64_t> failed_in_cycle_;  // per shape, the cycle it last failed in
  std::vector<std::uint32_t> pending_of_shape_;  // per shape, pending pods
  std::size_t pending_shapes_ = 0;               // shapes with pending pods
  std::uint64_t cycle_ = 0;
  void count_pending(PodId id, int sign) override;
  // Binds the pod the framework placed: the cache assumes it and the bus hears of it. `queued`:
  // it leaves the pending count now (false: it left it when it began to wait at Permit).
  void bind(PodId id, const cluster::Placement& placement, core::Time now, bool queued) override;
  void bind(PodId id, const cluster::Placement& placement, core::Time now) { bind(id, placement, now, true); }
  // Gang admission: places every pending member of gang `gang` or none (a rollback through the
  // framework's release). All members must have been created.
  bool schedule_gang(std::uint32_t gang, core::Time now);
  // Per gang (PodSpec::gang): its pods in the workload, its pending pod objects, and per pod object
  // whether gang admission bound it in this cycle (so the queue walk drops it).
  std::vector<std::uint32_t> gang_size_;
  std::vector<std::vector<PodId>> gang_pending_;
  std::vector<std::uint8_t> gang_started_;  // per gang: its workers were placed once
  bool gang_ready(std::uint32_t gang) const override;
  std::vector<std::uint8_t> bound_by_gang_;
  std::vector<cluster::Placement> gang_placed_;  // reused by schedule_gang
  std::vector<PodId> gang_bound_ids_;             // bound by gang admission in this cycle
  // Per gang, whether its workers started on more than one node (told to the kubelets with each
  // worker's binding: the run time depends on it; a replacement worker runs as its gang did).
  std::vector<std::uint8_t> gang_spread_;
  std::uint64_t gangs_spread_ = 0, gangs_on_one_node_ = 0;
  void note_gang_start(std::uint32_t gang, bool spread) override;
  std::vector<core::Time> expected_end_;  // per pod object: bind time + trace run time
  std::vector<std::vector<PodId>> on_node_;  // per node: the pods bound there
  bool cycle_queued_ = false;
  std::uint64_t attempts_ = 0;  // scheduling attempts (framework cycles run)
  struct PendingLayout {
    std::uint32_t node;
    int gpu;
    int layout;
    core::Time until;
  };
  std::vector<PendingLayout> mig_pending_;  // dynamic MIG re-partitions asked for, not yet shown
  core::Time node_status_period_;
  // Pods whose eviction was asked for and has not ended them yet, and how many were asked for.
  std::vector<std::uint8_t> evicting_;
  std::int64_t preemption_requests_ = 0;
  void queue_insert(PodId id) override;
  // Asks the kubelet to evict a bound pod (kEvictRequest `value` `kind`); a gang's workers are all
  // asked, so the gang starts again whole.
  void request_eviction(PodId pod, std::int64_t kind, core::Time now) override;
  void set_job_suspended(std::int32_t job, bool suspended, core::Time now) override;
  // A deleted pod leaves the queue (or its gang's Permit wait).
  void forget_deleted(const Message& deleted, core::Time now);
  // A pod it bound ended (or was deleted before its binding arrived): what it held is free.
  void release_bound(const Message& ended);
  // Runs the framework for `id` (or its gang's admission) and binds what it places.
  bool place(PodId id, const cluster::PodSpec& spec, core::Time now) override;
  // Marks the shape (and, for a gang, its workers' shapes) failed in this cycle; returns how many
  // were not marked yet.
  std::size_t mark_failed(const cluster::PodSpec& spec, std::uint32_t shape) override;
  void drop_gang_bound() override;
  // The spec to place the pod with: as the trace has it, or as a queueing plugin narrows it.
  const cluster::PodSpec& spec_to_place(PodId id);
  // Counts what may free room in the cache (pods ended, node status, nodes joining).
  std::uint64_t released_ = 0;
  std::vector<std::uint8_t> bound_;  // per pod: bound here and not yet ended
  // The queueing plugins, in the order their hooks run: round, permit, queueAdmission, jobRank.
  struct Attached {
    std::string point;
    std::unique_ptr<sched::Plugin> owner;
    QueueingPlugin* plugin = nullptr;
  };
  std::vector<Attached> plugins_;
  QueueingInputs inputs_;
  const QueueingPlugin* queue_order_plugin_ = nullptr;  // the plugin that orders the queue, if any
  QueueingPlugin* gang_placer_ = nullptr;               // the plugin that places gangs' workers, if any
  std::vector<QueueingPlugin*> pod_triers_;  // plugins whose try_pod the walk calls
  // Whether a gang waits before it is tried (a plugin holds it back): not a failure of its shape.
  bool held_back(const cluster::PodSpec& spec, core::Time now) const;
  // PostFilter: a plugin asks for room (evictions) for a pod that did not fit; true if one did.
  bool post_filter(PodId id, const cluster::PodSpec& spec, core::Time now);
  // Why a pod some node could take at the end still waited, if a plugin held it.
  std::optional<sched::NeverRanReason> waited_while_feasible(PodId id) const;
  void attach_plugins(const sched::Profile& profile, const sched::Registry& registry, const sched::PluginContext& context);
};

}  // namespace gpusim::k8s
