#pragma once
// gpusim's extension points for the schedulers of deep-learning clusters, beside kube-scheduler's
// (sim/sched/plugin.hpp), which place one pod at a time. These plugins see the scheduler's queue
// over time: a job ranking that changes with attained service (jobRank: Srtf, Tiresias, and the
// priority ranking of DefaultPreemption), a periodic round that plans who runs (round: Gavel,
// Themis), the walk that admits queued pods in a cycle (queueAdmission: Strict, Backfill, Drf,
// Proportion, Capacity) and a gang's wait at Permit (Coscheduling). The scheduler component
// (sim/k8s/scheduler.hpp) only calls them at these points; the plugins live in policies/ and are
// built by the registry from the names the profile holds at each point.
//
// Contract. A plugin is attached once, before the run, and hears of every pod it may care about
// through the hooks below, in the order the scheduler sees them. It changes the cluster only
// through the handle: placing pods (the framework), asking for evictions and timers. Hooks are
// called for every attached plugin in the order of the points: round, permit, queueAdmission,
// jobRank; a hook that returns a decision (run_cycle, try_pod, post_filter, ...) is answered by
// the first plugin that takes it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/core/event.hpp"
#include "sim/core/time.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/messages.hpp"
#include "sim/k8s/node_setup.hpp"
#include "sim/k8s/queue_quotas.hpp"
#include "sim/k8s/queue_series.hpp"
#include "sim/sched/plugin.hpp"
#include "sim/sched/profile.hpp"

namespace gpusim::perf {
class JobTypeSpeeds;
}

namespace gpusim::k8s {

namespace kueue {
struct Setup;
}
namespace kai {
struct Setup;
}
class JobLedger;
class QueueingPlugin;

// What the run gives the queueing plugins besides the cluster: what each job ran (the ledger, kept
// up to date when a plugin evicts()), Gavel's throughput table, the checkpoint model of preemption, the
// queues' quotas, the root seed.
struct QueueingInputs {
  const JobLedger* ledger = nullptr;
  const perf::JobTypeSpeeds* job_speeds = nullptr;
  core::Time checkpoint_interval = core::Time::zero();
  // Preemption keeps all of a victim's work (kEvictRequest's checkpoint-first kind).
  bool free_preemption = false;
  const QueueQuotas* queue_quotas = nullptr;
  // Kueue's objects and queue mapping (policy kueue), or null.
  const kueue::Setup* kueue = nullptr;
  // KAI's Queues and the leaf queue of each workload queue (policy kai), or null.
  const kai::Setup* kai = nullptr;
  // Where a queueing policy with queues of its own records their series (queue-series.csv), or
  // null when the run keeps no series.
  QueueSeries* queue_series = nullptr;
  std::uint64_t seed = 0;
};

// What the scheduler offers its queueing plugins (kube-scheduler's framework.Handle).
class SchedulerHandle {
 public:
  virtual ~SchedulerHandle() = default;
  // The accessors a walk calls per pod are not virtual: they read the scheduler's own state through
  // the view it sets at construction (a walk over a long queue calls them millions of times).
  const ApiServer& api() const { return *view_.api; }
  // The pods as the scheduler sees their requests, per trace row.
  const std::vector<cluster::PodSpec>& workload() const { return *view_.workload; }
  const cluster::PodSpec& spec_of(PodId id) const { return (*view_.workload)[view_.api->pod(id).source]; }
  virtual const cluster::ClusterState& cache() const = 0;
  // Per node, how its GPUs are advertised (device plugin, sharing).
  virtual const std::vector<NodeSetup>& node_setup() const = 0;
  virtual const sched::Profile& profile() const = 0;
  virtual const QueueingInputs& inputs() const = 0;
  core::Time now() const { return now_(); }

  // The pending pod objects, in queue order; a plugin that runs the cycle's walk removes those it
  // placed.
  virtual std::vector<PodId>& pending() = 0;
  // Inserts a pod object into the queue at its rank.
  virtual void queue_insert(PodId id) = 0;
  // The pod joins (+1) or leaves (-1) the count of pending pods per shape.
  virtual void count_pending(PodId id, int sign) = 0;
  // The cycle's number, and per shape whether it failed in this cycle.
  std::uint64_t cycle() const { return *view_.cycle; }
  std::uint32_t shape_of(PodId id) const { return (*view_.shape_of_source)[view_.api->pod(id).source]; }
  bool shape_failed(std::uint32_t shape) const { return (*view_.failed_in_cycle)[shape] == *view_.cycle; }
  // Marks one shape failed in this cycle; the number of shapes.
  virtual void mark_shape_failed(std::uint32_t shape) = 0;
  virtual std::size_t shape_count() const = 0;
  // Marks the pod's shape failed in this cycle (and its gang's other workers' shapes); returns how
  // many shapes were newly marked.
  virtual std::size_t mark_failed(const cluster::PodSpec& spec, std::uint32_t shape) = 0;
  // Shapes that have pending pods: once that many have failed, nothing more fits in the cycle.
  std::size_t pending_shapes() const { return *view_.pending_shapes; }
  // Whether no node, empty, could ever take pods of the shape (they are never queued).
  virtual bool never_fits(std::uint32_t shape) const = 0;

  // Places the pod (or its gang, all workers or none) through the framework and binds what it
  // placed; true if it did. `spec` is the pod's own (spec_of(id)): the plugins' spec_to_place
  // narrows it; any other spec is placed as given.
  virtual bool place(PodId id, const cluster::PodSpec& spec, core::Time now) = 0;
  // Runs the framework for one pod with `spec`: its placement, taken in the cache, not bound.
  virtual std::optional<cluster::Placement> schedule(const cluster::PodSpec& spec) = 0;
  // Counts a scheduling attempt (the run's attempts metric): one per pod a plugin tries.
  virtual void count_attempt() = 0;
  // Binds a pod the framework placed; `queued`: it leaves the pending count now.
  virtual void bind(PodId id, const cluster::Placement& placement, core::Time now, bool queued) = 0;
  // Gives back what a placement took in the cache (a reservation undone).
  virtual void unreserve(const cluster::PodSpec& spec, const cluster::Placement& placement) = 0;
  // Withholds node n from (or gives it back to) the framework for the rest of the cycle.
  virtual void set_node_withheld(cluster::NodeIndex n, bool withheld) = 0;
  // The node's published status again (after a reservation changed what the cache holds there).
  virtual void refresh_node(cluster::NodeIndex n) = 0;
  // Asks for another cycle at `now`.
  virtual void request_cycle(core::Time now) = 0;

  // Gangs (PodSpec::gang): their size, pending workers, whether placed once, whether all their
  // workers exist (or a started gang has a replacement to place), and which pods gang admission
  // bound in this cycle.
  virtual std::uint32_t gang_size(std::uint32_t gang) const = 0;
  virtual std::vector<PodId>& gang_pending(std::uint32_t gang) = 0;
  bool gang_started(std::uint32_t gang) const { return (*view_.gang_started)[gang] != 0; }
  virtual void set_gang_started(std::uint32_t gang, bool started) = 0;
  virtual bool gang_ready(std::uint32_t gang) const = 0;
  bool bound_by_gang(PodId id) const { return id < view_.bound_by_gang->size() && (*view_.bound_by_gang)[id]; }
  // Workers of gangs bound in this cycle leave the queue.
  virtual void drop_gang_bound() = 0;
  // A gang's first start, on one node or spread.
  virtual void note_gang_start(std::uint32_t gang, bool spread) = 0;

  // The pods bound on each node (not yet ended), where each was bound, and its expected end (bind
  // time + trace run time).
  virtual const std::vector<std::vector<PodId>>& bound_on_nodes() const = 0;
  virtual const std::vector<cluster::Placement>& assumed() const = 0;
  virtual const std::vector<core::Time>& expected_ends() const = 0;
  // Pods whose eviction was asked for and that have not ended yet.
  const std::vector<std::uint8_t>& evicting() const { return *view_.evicting; }
  bool is_evicting(PodId id) const { return id < view_.evicting->size() && (*view_.evicting)[id]; }
  // Asks the kubelet to evict a bound pod (kEvictRequest `kind`); a gang's workers are all asked.
  virtual void request_eviction(PodId pod, std::int64_t kind, core::Time now) = 0;
  // Tells the Job controller that the plugin suspended (or resumed) manifest Job `job` (an index
  // of Workload::jobs), as Kueue sets spec.suspend: its activeDeadlineSeconds stops (or restarts).
  virtual void set_job_suspended(std::int32_t job, bool suspended, core::Time now) = 0;
  // Counts what may free room in the cache (pods ended, node status, nodes joining).
  virtual std::uint64_t released() const = 0;

  // A timer for `plugin` (tag below 16): its on_timer hears it.
  virtual void set_timer(const QueueingPlugin& plugin, std::uint32_t tag, std::uint64_t payload, core::Time at,
                         core::Phase phase = core::Phase::kStateChange) = 0;

  // The scheduler's state the non-virtual accessors read; set once by the scheduler. A walk may
  // copy it into locals to spare a load per access in its hottest loop.
  struct View {
    const ApiServer* api = nullptr;
    const std::vector<cluster::PodSpec>* workload = nullptr;
    const std::uint64_t* cycle = nullptr;
    const std::vector<std::uint32_t>* shape_of_source = nullptr;
    const std::vector<std::uint64_t>* failed_in_cycle = nullptr;
    const std::size_t* pending_shapes = nullptr;
    const std::vector<std::uint8_t>* gang_started = nullptr;
    const std::vector<std::uint8_t>* bound_by_gang = nullptr;
    const std::vector<std::uint8_t>* evicting = nullptr;
  };
  const View& view() const { return view_; }

 protected:
  virtual core::Time now_() const = 0;
  View view_;
};

// Writes one named metric of the run (summary.json).
using MetricSink = std::function<void(std::string_view name, double value)>;

class QueueingPlugin : public virtual sched::Plugin {
 public:
  // Before the run, once: the plugin keeps the handle.
  virtual void attach(SchedulerHandle& handle) = 0;
  // The schedulerName the system's own pods name, which this scheduler then takes as its own (the
  // KAI Scheduler's "kai-scheduler"), or empty.
  virtual std::string_view scheduler_name() const { return {}; }
  // Whether it asks for evictions (preemption, a round's suspensions, reclaim): the run then has the
  // kubelets act on them, keeps the job ledger (QueueingInputs::ledger) up to date, tells the
  // scheduler when pods start running (pod_running), and reports the preemptions.
  virtual bool evicts() const { return false; }

  // The queue's order (replaces QueueSort): true when `a` ranks before `b`. Only one plugin may
  // order the queue.
  virtual bool orders_queue() const { return false; }
  virtual bool ranks_before(PodId a, PodId b) const { (void)a, (void)b; return false; }

  // A pod object was queued (it exists, its scheduler is this one and some node could take it).
  virtual void pod_queued(PodId id, core::Time now) { (void)id, (void)now; }
  // A pod object joins (+1) or leaves (-1) the pods waiting to be placed (queued, or back from Permit).
  virtual void pod_waiting(PodId id, int sign) { (void)id, (void)sign; }
  // A queued pod object was deleted.
  virtual void pod_dequeued(PodId id, const Message& deleted, core::Time now) { (void)id, (void)deleted, (void)now; }
  // A deleted pod object that is neither queued nor bound (a gang's worker waiting at Permit).
  virtual void pod_deleted_elsewhere(PodId id, core::Time now) { (void)id, (void)now; }
  virtual void pod_bound(PodId id, const cluster::Placement& placement, core::Time now) {
    (void)id, (void)placement, (void)now;
  }
  // Its containers run (again, after a restart).
  virtual void pod_running(PodId id, std::uint32_t source, core::Time now) { (void)id, (void)source, (void)now; }
  // A pod this scheduler bound ended (or was deleted before its binding arrived).
  virtual void pod_released(PodId id, const Message& ended) { (void)id, (void)ended; }
  virtual void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) { (void)tag, (void)payload, (void)now; }
  // The owner of some pods gave up: a manifest Job failed (kJobFailed: no more of its pods come,
  // its active ones are deleted), or a trace row's implicit owner replaces its failed pod no more
  // (kOwnerGaveUp).
  virtual void owner_gave_up(const Message& message, core::Time now) { (void)message, (void)now; }

  // The cycle's walk over the queue: true if this plugin ran it (the scheduler's own walk then does
  // not run). Walk hooks of the scheduler's own walk follow.
  virtual bool run_cycle(core::Time now) { (void)now; return false; }
  // The scheduler's walk begins (after any run_cycle declined it).
  virtual void walk_begin(core::Time now) { (void)now; }
  // Tries a pod the walk reached in the plugin's own way (EASY backfilling behind a reservation),
  // or kNotTried to leave it to the walk.
  enum class Tried : std::uint8_t { kNotTried, kPlaced, kKept, kKeptShapeFailed };
  // Whether try_pod may take pods (the walk calls it per pod only for plugins that say so).
  virtual bool tries_pods() const { return false; }
  virtual Tried try_pod(PodId id, const cluster::PodSpec& spec, bool partial_gang, core::Time now) {
    (void)id, (void)spec, (void)partial_gang, (void)now;
    return Tried::kNotTried;
  }
  // A pod the walk tried did not fit and no PostFilter made room: true stops the walk (nothing
  // behind it may start before it).
  virtual bool stops_walk(const cluster::PodSpec& spec, core::Time now) { (void)spec, (void)now; return false; }
  // Whether a gang waits before it is tried (Permit's backoff): not a failure of its shape.
  virtual bool holds_back(const cluster::PodSpec& spec, core::Time now) const { (void)spec, (void)now; return false; }
  // Whether this plugin places gangs' workers one at a time (place_worker) instead of the scheduler's
  // gang admission, which places a gang whole once all its workers exist. Only one plugin may.
  virtual bool places_gang_workers() const { return false; }
  // Places (or reserves) one worker of a gang; true when it was bound or now waits.
  virtual bool place_worker(PodId id, const cluster::PodSpec& spec, core::Time now) {
    (void)id, (void)spec, (void)now;
    return false;
  }
  // The pod did not fit: true if the plugin asked for room (evictions); the walk then stops and
  // another cycle follows.
  virtual bool post_filter(PodId id, const cluster::PodSpec& spec, core::Time now) { (void)id, (void)spec, (void)now; return false; }
  // After the cycle's walk (pods the walk took out may go back to the queue here).
  virtual void walk_done(core::Time now) { (void)now; }
  // After the cycle, before kCycleDone is published.
  virtual void cycle_done(core::Time now) { (void)now; }
  // The spec a pod is placed with (a round narrows its GPU models), or null: the trace's.
  virtual const cluster::PodSpec* spec_to_place(PodId id) { (void)id; return nullptr; }

  // Why a pod that never ran waited, if this plugin held it (e.g. its queue's quota), else nullopt.
  virtual std::optional<sched::NeverRanReason> never_ran(PodId id, std::span<const std::string> queues) const {
    (void)id, (void)queues;
    return std::nullopt;
  }
  // Why a pod that some node could take when the run ended still waited, if this plugin held it
  // (a strict queue's head), else nullopt.
  virtual std::optional<sched::NeverRanReason> waited_while_feasible(PodId id) const { (void)id; return std::nullopt; }
  // Its metrics for summary.json.
  virtual void add_metrics(const MetricSink& set) const { (void)set; }
};

}  // namespace gpusim::k8s
