#pragma once
// The kube-scheduler: a pending queue and the scheduling framework, run over the scheduler's own
// cache of the cluster. The cache takes each node's allocatable GPUs from the node status the
// kubelet last published (so it may be stale) and the pods it bound itself (assumed at once, as
// kube-scheduler assumes them); a pod's resources go back when the API server reports it ended.
// One cycle per instant, after every state change and arrival of that instant.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/job_ledger.hpp"
#include "sim/k8s/job_priority.hpp"
#include "sim/k8s/preemptor.hpp"
#include "sim/k8s/queue_quotas.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/k8s/time_share_rounds.hpp"
#include "sim/k8s/workload_times.hpp"
#include "sim/sched/framework.hpp"
#include "traces/workload.hpp"

namespace gpusim::k8s {

class Scheduler final : public Component {
 public:
  // `pods`: the pods as the scheduler sees their requests (whole GPUs on count-only nodes).
  Scheduler(Bus& bus, const ApiServer& api, const cluster::GpuCatalog& catalog,
            const std::vector<cluster::NodeSpec>& nodes, const std::vector<NodeSetup>& setup,
            const std::vector<cluster::PodSpec>& pods, const sched::Profile& profile,
            const sched::Registry& registry, const sched::PluginContext& context,
            const std::vector<std::uint8_t>& present, bool lifecycle_events, core::Time node_status_period);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

  // Preempting profiles (Profile::preemption): the queue follows the jobs' priorities, which the
  // job ledger's record of what they ran decides; victims lose their work since their last
  // checkpoint (every checkpoint_interval of run time), or nothing when `free`. Must be called
  // before the run.
  void enable_preemption(const JobLedger& ledger, core::Time checkpoint_interval, bool free = false);

  // Time-sharing profiles (Profile::time_share): Gavel's rounds of `round_length` (sim/k8s/
  // time_share_rounds.hpp); `speeds`: the jobs' speeds per GPU type, or null. Must be called
  // before the run.
  void enable_time_sharing(const JobLedger& ledger, const perf::JobTypeSpeeds* speeds, core::Time round_length,
                           std::uint64_t seed);
  // Gangs through Permit (Profile::gang_permit, sim/k8s/scheduler_gang_permit.cpp): how long
  // reserved workers wait for the rest, and how long a rejected gang stays out. Before the run.
  void enable_gang_permit(core::Time timeout, core::Time denied_backoff);
  // Queue quotas (Profile::queue_quotas, sim/k8s/scheduler_queue_quotas.cpp): the queues' quotas;
  // victims of reclaim lose their work since their last checkpoint. Before the run.
  void enable_queue_quotas(QueueQuotas quotas, const JobLedger& ledger, core::Time checkpoint_interval);
  // Pods evicted so that a queue within its deserved GPUs could take back what others borrowed.
  std::int64_t reclaim_evictions() const { return reclaim_evictions_; }
  // Gangs whose waiting workers were rejected when their Permit timed out, or earlier by the
  // PostFilter (more than 10 % of the workers could not be placed); GPU-hours reserved by workers
  // while they waited at Permit.
  std::uint64_t gang_timeouts() const { return gang_timeouts_; }
  std::uint64_t gang_rejections() const { return gang_rejections_; }
  double permit_wait_gpu_hours() const { return permit_wait_gpu_us_ / 3.6e9; }
  // Gang starts whose workers landed on more than one node (they run at the scattered speed), and
  // on one node.
  std::uint64_t gangs_spread() const { return gangs_spread_; }
  std::uint64_t gangs_on_one_node() const { return gangs_on_one_node_; }
  // Rounds run and linear programs solved (time-sharing profiles).
  std::uint64_t rounds() const { return rounds_ ? rounds_->rounds() : 0; }
  std::uint64_t lp_solves() const { return rounds_ ? rounds_->lp_solves() : 0; }

  // Why each of `pods` (pod objects still Pending when the run ended) never ran, for pods.csv and
  // summary.json (sim/k8s/scheduler_diagnosis.cpp): what it waited for besides nodes, else
  // kube-scheduler's FitError against this cache as the run left it. `queues`: the queue names.
  std::vector<sched::NeverRanReason> explain_never_ran(std::span<const PodId> pods, std::span<const std::string> queues);

  const cluster::ClusterState& cache() const { return cache_; }
  std::size_t pending() const { return pending_.size(); }
  std::uint64_t attempts() const { return attempts_; }
  // Pods this scheduler asked to evict to make room for others.
  std::int64_t preemption_requests() const { return preemption_requests_; }

 private:
  static constexpr std::uint32_t kRound = 5;  // timer tag: a time-sharing round starts
  static constexpr std::uint32_t kGangTimeout = 6;  // a gang's Permit wait is over (payload: gang, generation)
  static constexpr std::uint32_t kGangRetry = 7;    // a rejected gang's backoff is over
  // QueueSort's order, ties by pod id (the queue is kept in it).
  bool queued_before(PodId a, PodId b) const;
  void request_cycle(core::Time now);
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
  void count_pending(PodId id, int sign);
  // Binds the pod the framework placed: the cache assumes it and the bus hears of it. `queued`:
  // it leaves the pending count now (false: it left it when it began to wait at Permit).
  void bind(PodId id, const cluster::Placement& placement, core::Time now, bool queued = true);
  // Gang admission: places every pending member of gang `gang` or none (a rollback through the
  // framework's release). All members must have been created.
  bool schedule_gang(std::uint32_t gang, core::Time now);
  // Per gang (PodSpec::gang): its pods in the workload, its pending pod objects, and per pod object
  // whether gang admission bound it in this cycle (so the queue walk drops it).
  std::vector<std::uint32_t> gang_size_;
  std::vector<std::vector<PodId>> gang_pending_;
  std::vector<std::uint8_t> gang_started_;  // per gang: its workers were placed once
  bool gang_ready(std::uint32_t gang) const;
  std::vector<std::uint8_t> bound_by_gang_;
  std::vector<cluster::Placement> gang_placed_;  // reused by schedule_gang
  std::vector<PodId> gang_bound_ids_;             // bound by gang admission in this cycle
  // Per gang, whether its workers started on more than one node (told to the kubelets with each
  // worker's binding: the run time depends on it; a replacement worker runs as its gang did).
  std::vector<std::uint8_t> gang_spread_;
  std::uint64_t gangs_spread_ = 0, gangs_on_one_node_ = 0;
  void note_gang_start(std::uint32_t gang, bool spread);
  // EASY backfilling (sched::QueueMode::kBackfill): per pod object its expected end (bind time +
  // trace run time), the pods bound on each node, and this cycle's reservation for the first pod
  // (or gang) that did not fit.
  struct Reservation {
    bool active = false;
    core::Time shadow;                     // when the reserved nodes will have room for it
    std::vector<cluster::NodeIndex> nodes;  // the nodes it will take then
  };
  void reserve_for(const cluster::PodSpec& head, core::Time now);
  // Schedules `id` (or its gang) with the reserved nodes withheld when it would still run at the
  // shadow time.
  bool try_backfill(PodId id, const cluster::PodSpec& spec, core::Time now);
  std::vector<core::Time> expected_end_;
  std::vector<std::vector<PodId>> on_node_;
  Reservation reservation_;
  std::vector<std::uint64_t> failed_withheld_in_cycle_;  // per shape: failed with the reserved nodes withheld
  std::vector<std::pair<core::Time, int>> releases_;     // reused by reserve_for
  std::vector<std::pair<core::Time, cluster::NodeIndex>> ready_;  // reused by reserve_for
  std::vector<cluster::NodeIndex> withheld_;                      // reused by try_backfill
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
  // Preemption: the jobs' priorities, the PostFilter that picks victims, each pending pod
  // object's queue key (fixed while it waits, but for Tiresias' promotions), and the pods whose
  // eviction was asked for and has not ended them yet.
  sched::Preemption preemption_ = sched::Preemption::kNone;
  std::optional<JobPriority> priority_;
  std::optional<Preemptor> preemptor_;
  std::vector<PriorityKey> queue_key_;
  std::vector<std::uint8_t> evicting_;
  std::vector<PodId> victims_;        // reused by try_preempt
  std::vector<PodId> one_worker_;     // reused by try_preempt
  std::int64_t preemption_requests_ = 0;
  bool wait_for_checkpoint_ = false;  // victims must have passed their first checkpoint (srtf, tiresias)
  std::int64_t eviction_kind_ = 1;  // kEvictRequest's value for a preemption: 1, or 3 (keeps all work)
  core::Time checkpoint_interval_ = core::Time::zero();
  // The smallest ask that found no victims in this cycle: pods queued after it rank no higher, so
  // they have no more victims to choose from, and one that asks at least as much (with no
  // placement rules and no more GPU models allowed) fails too.
  struct FailedAsk {
    std::uint64_t cycle = 0;
    std::int32_t gpus = 0;
    std::int64_t cpu_milli = 0, memory_mib = 0;
    std::uint64_t models = 0;  // allowed GPU models (0: any)
  };
  FailedAsk preemption_failed_;
  void queue_insert(PodId id);
  // Asks the kubelet to evict a bound pod (kEvictRequest `value` `kind`); a gang's workers are all
  // asked, so the gang starts again whole.
  void request_eviction(PodId pod, std::int64_t kind, core::Time now);
  // Asks to evict the pods that let `id` (or its gang) fit, if there are any of lower priority;
  // true if it asked.
  bool try_preempt(PodId id, const cluster::PodSpec& spec, core::Time now);
  // Tiresias: a waiting job due back in queue 0 moves up the queue.
  // A deleted pod leaves the queue (or its gang's Permit wait).
  void forget_deleted(const Message& deleted, core::Time now);
  // A pod it bound ended (or was deleted before its binding arrived): what it held is free.
  void release_bound(const Message& ended);
  // Tiresias in its simulator's queue order: the end of a pass reorders the queue lists.
  void reorder_by_queue_lists(core::Time now);
  void promote(PodId id, core::Time now);
  // Runs the framework for `id` (or its gang's admission) and binds what it places.
  bool place(PodId id, const cluster::PodSpec& spec, core::Time now);
  // Marks the shape (and, for a gang, its workers' shapes) failed in this cycle; returns how many
  // were not marked yet.
  std::size_t mark_failed(const cluster::PodSpec& spec, std::uint32_t shape);
  void drop_gang_bound();
  // DRF (Profile::drf): what each queue (PodSpec::queue) holds of the cluster, and per cycle each
  // queue's pending pods (indices into pending_, in queue order), the next one to try and which
  // were placed.
  struct Held {
    std::int64_t gpu_milli = 0, cpu_milli = 0, memory_mib = 0;
  };
  std::vector<Held> queue_held_;
  std::vector<std::vector<std::uint32_t>> drf_lists_;
  std::vector<std::size_t> drf_next_;
  std::vector<std::uint8_t> drf_placed_;
  double dominant_share(std::size_t queue) const;
  void hold(PodId id, std::int64_t sign);
  void run_drf_cycle(core::Time now);
  // Queue quotas: what each queue holds and may hold, the order reclaim victims are ranked in
  // within a lost-work tie (creation order: no priorities), and per cycle each queue's smallest
  // pending ask (a queue that may not take it takes nothing more in the cycle).
  std::optional<QuotaBook> quotas_;
  std::optional<JobPriority> reclaim_order_;
  std::vector<std::int64_t> smallest_ask_;
  std::vector<std::uint32_t> queue_order_;  // reused by reclaim_for_queues
  std::int64_t reclaim_evictions_ = 0;
  // The GPUs (thousandths) placing a pod takes: its own, or its gang's pending workers'.
  std::int64_t ask_of(const cluster::PodSpec& spec) const;
  // A job that reclaimed GPUs is nominated for them (as kube-scheduler nominates a preemptor's
  // node): the next cycles try it before their walk, else the victims' own queue, now below its
  // deserved GPUs, could take them back and be reclaimed from again. A nomination lasts until the
  // pod is placed, or is tried once its victims are gone.
  struct Nomination {
    PodId pod;
    std::uint32_t queue;
    std::vector<PodId> victims;
  };
  std::vector<Nomination> nominated_;
  void place_nominated(core::Time now);
  // Volcano's reclaim action, after the cycle's walk: the queues least served first, each tries
  // its first waiting job that stays within its deserved GPUs; true if it asked for evictions.
  bool reclaim_for_queues(core::Time now);
  // Time sharing (sim/k8s/scheduler_rounds.cpp): the round planner, each job's pod objects that
  // are pending or bound, and the spec a planned pod is placed with (its models narrowed to the
  // GPU type of its round).
  std::optional<TimeShareRounds> rounds_;
  core::Time round_length_ = core::Time::zero();
  bool round_queued_ = false;
  int idle_rounds_ = 0;  // rounds in a row that began with no pod bound
  std::vector<std::int32_t> live_pods_;
  cluster::PodSpec round_spec_;
  std::vector<std::pair<std::int32_t, std::size_t>> round_order_;  // reused: (-GPUs, queue index)
  std::vector<std::uint8_t> round_placed_;
  void round_pod_created(PodId id, core::Time now);
  void round_pod_ended(PodId id, const Message& message);
  void run_round(core::Time now);
  void run_round_cycle(core::Time now);
  // The spec to place the pod with: as the trace has it, or within its round's GPU type.
  const cluster::PodSpec& spec_to_place(PodId id);
  // Gangs through Permit: per gang, the workers waiting at Permit (each with where it is reserved
  // and since when), a generation that names the current wait (a stale timeout finds another),
  // and until when a rejected gang is kept out of the queue.
  struct PermitWait {
    PodId pod;
    cluster::Placement placement;
    core::Time since;
  };
  struct GangPermit {
    std::vector<PermitWait> waiting;
    std::uint32_t generation = 0;
    core::Time denied_until = core::Time::zero();
    std::uint64_t released_at_reject = 0;  // released_ when it was last sent back
    bool broken = false;  // a worker was deleted before the gang started: it can never be whole
  };
  // Counts what may free room in the cache (pods ended, node status, nodes joining).
  std::uint64_t released_ = 0;
  std::vector<std::uint8_t> bound_;  // per pod: bound here and not yet ended
  // Whether a gang waits out its backoff, or can never be whole: not a failure of its shape.
  bool permit_held_back(std::uint32_t gang, core::Time now) const {
    return !permit_.empty() && !gang_started_[gang] && (permit_[gang].broken || now < permit_[gang].denied_until);
  }
  // A worker of a gang that has not started was deleted: the others' reservations go, and the
  // gang is never tried again.
  void break_gang(std::uint32_t gang, core::Time now);
  std::vector<GangPermit> permit_;  // empty unless gang_permit
  core::Time gang_timeout_ = core::Time::zero();
  core::Time gang_denied_backoff_ = core::Time::zero();
  std::vector<PodId> requeue_;  // rejected workers, back in the queue once the cycle's walk is over
  std::uint64_t gang_timeouts_ = 0;
  std::uint64_t gang_rejections_ = 0;
  double permit_wait_gpu_us_ = 0;
  // Runs the framework for a gang's worker; true when it was bound or now waits at Permit.
  bool permit_worker(PodId id, const cluster::PodSpec& spec, core::Time now);
  // Every waiting worker of the gang goes back: reservations released, queued again (at the end of
  // the cycle's walk), the gang kept out until its backoff ends.
  void reject_gang(std::uint32_t gang, bool timed_out, core::Time now);
  void flush_requeue();
  // A waiting worker deleted (its owner gave up): its reservation goes.
  void drop_waiting(PodId id, core::Time now);
};

}  // namespace gpusim::k8s
