#pragma once
// Kueue's admission (kubernetes-sigs/kueue v0.19.2, its default feature gates), independent of
// pods and nodes: Workloads wait in their ClusterQueue's queue, each scheduling cycle takes one
// head per ClusterQueue, assigns it flavors (pkg/scheduler/flavorassigner), finds the workloads
// it would preempt (pkg/scheduler/preemption), orders the heads (without fair sharing: non-borrowing
// first, then priority, then age) and admits or preempts in that order against a
// snapshot of the quota tree (pkg/scheduler/scheduler.go, schedule and processEntry). Heads that
// were not admitted go back to their queue or aside as inadmissible
// (pkg/cache/queue/cluster_queue.go, RequeueIfNotPresent), until quota frees in their cohort tree
// (a second later: Kueue's requeuer batches such requeues, pkg/cache/queue/inadmissible_workloads.go).
// Under BestEffortFIFO a head set aside for want of quota takes the queued workloads of the same
// shape with it, and new ones of that shape join them (SchedulingEquivalenceHashing, on by default).
// With the Configuration's fairSharing, heads are taken by fair sharing's tournament and preempt by
// its rules (kueue_admission_fair_sharing.cpp). What is left out: admission
// checks, topology-aware scheduling, partial admission, the flavor scan resuming where the last
// cycle stopped (each scan starts at the first flavor), and waitForPodsReady. The Configuration's
// excludeResourcePrefixes and quotaCheckStrategy IgnoreUndeclared apply.
// The caller (a gpusim queueing plugin) turns the decisions into pods placed and pods evicted, and
// tells the engine when a workload finished or a preempted one's pods are gone.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <map>
#include <tuple>
#include <set>

#include "sim/cluster/pod_constraints.hpp"
#include "sim/core/time.hpp"
#include "sim/k8s/kueue_fair_sharing.hpp"
#include "sim/k8s/kueue_objects.hpp"
#include "sim/k8s/kueue_quota_tree.hpp"

namespace gpusim::k8s::kueue {

using WorkloadId = std::uint32_t;

// Why Kueue preempted a workload (the Preempted condition's reasons).
enum class PreemptionReason : std::uint8_t { kInClusterQueue, kInCohortReclamation, kInCohortReclaimWhileBorrowing, kInCohortFairSharing };
const char* to_string(PreemptionReason reason);

// What a Workload asks, as Kueue sees it: one pod set (a Job's), its total requests (pods x
// per-pod requests, in Kueue's units) and what its pods' node selector and tolerations allow.
struct WorkloadSpec {
  std::string name;
  std::string namespace_name = "default";  // checked against its ClusterQueue's namespaceSelector
  NodeId cluster_queue = 0;
  std::int32_t priority = 0;
  std::int64_t queue_order = 0;  // the creation time (microseconds): older first among equals
  std::int32_t pod_count = 1;    // counts for a ClusterQueue that covers `pods`
  std::vector<std::pair<std::string, std::int64_t>> requests;  // resource -> total amount
  cluster::Labels node_selector;
  std::vector<cluster::Toleration> tolerations;
};

enum class WorkloadState : std::uint8_t {
  kPending,       // in its queue's heap
  kInadmissible,  // set aside until quota frees in its cohort tree
  kAdmitted,      // holds quota
  kEvicted,       // preempted: still holds quota until its pods are gone
  kRequeueing,    // preempted, its quota released: it rejoins its queue a moment later (requeue_evicted)
  kFinished,
};

struct Decisions {
  std::vector<WorkloadId> admitted;
  // (victim, preemptor, reason), for victims not asked before.
  struct Preemption {
    WorkloadId victim;
    WorkloadId preemptor;
    PreemptionReason reason;
  };
  std::vector<Preemption> preempted;
};

class Admission {
 public:
  // The objects' references must have been checked (check_kueue_references).
  explicit Admission(const Objects& objects);

  const QuotaTree& quotas() const { return tree_; }
  // A ClusterQueue's or Cohort's dominant resource share now (status.fairSharing.weightedShare).
  Drs share(NodeId node) const { return dominant_resource_share(tree_, node); }
  bool fair_sharing() const { return fair_sharing_; }
  // A new Workload, pending in its ClusterQueue.
  WorkloadId add(WorkloadSpec spec);
  // An admitted workload finished at `now`: its quota is released, and the workloads set aside in
  // its cohort tree are queued again a second later.
  void finished(WorkloadId id, core::Time now);
  // A preempted workload's pods are gone: its quota is released and it waits in its queue again
  // (its place kept: the queue order is its creation time); as for finished().
  void evicted_and_gone(WorkloadId id, core::Time now);
  // A preempted workload none of whose pods was bound: its quota is released now, and it rejoins its
  // queue only at requeue_evicted() (the caller's moment later).
  void evicted_requeue_later(WorkloadId id, core::Time now);
  void requeue_evicted(WorkloadId id);
  // The workload's Job ended for good however it stood (its Job failed, or its owner gave up on its
  // last pods): one holding quota releases it as finished() does, a waiting one leaves its queue.
  void job_ended(WorkloadId id, core::Time now);
  // The requeues due by `now`, then scheduling cycles until one changes nothing (admits nobody,
  // preempts nobody new and sets nobody aside): what Kueue does at one instant, its cycles
  // following one another.
  Decisions run_cycles(core::Time now);
  // When the next batched requeue is due, if any.
  std::optional<core::Time> next_requeue() const;

  WorkloadState state(WorkloadId id) const { return workloads_[id].state; }
  const WorkloadSpec& spec(WorkloadId id) const { return workloads_[id].spec; }
  // The (flavor, resource) pairs and amounts an admitted (or evicted) workload holds.
  const std::vector<std::pair<std::uint32_t, std::int64_t>>& usage(WorkloadId id) const { return workloads_[id].usage; }
  // Per ClusterQueue: pending in the heap (Kueue's "active") and set aside ("inadmissible").
  std::pair<std::size_t, std::size_t> pending(NodeId cluster_queue) const;
  // Why the last cycle left a waiting workload out, in Kueue's words ("insufficient unused quota ...").
  const std::string& waiting_reason(WorkloadId id) const { return workloads_[id].reason; }
  // The same, or why it was not tried (its ClusterQueue stopped, or behind its queue's head).
  std::string why_waiting(WorkloadId id) const;
  // Whether the last cycle left it out because none of its ClusterQueue's flavors matches its pods
  // (their node selector, their tolerations), not for want of quota.
  bool waits_for_flavor(WorkloadId id) const { return workloads_[id].no_flavor; }
  // A ClusterQueue's workloads holding quota (admitted, or preempted and not gone yet).
  std::size_t reserving(NodeId cluster_queue) const { return queues_[queue_index_[cluster_queue]].admitted.size(); }
  // A ClusterQueue's pending workloads: in its heap, and set aside.
  std::pair<std::span<const WorkloadId>, std::span<const WorkloadId>> pending_workloads(NodeId cluster_queue) const {
    const Queue& q = queues_[queue_index_[cluster_queue]];
    return {q.heap, q.inadmissible};
  }

  // One flavor's outcome for a request, and a whole assignment (internal to the engine's parts,
  // public for its tests).
  enum class Mode : std::uint8_t { kNoFit, kNoCandidates, kPreempt, kReclaim, kFit };
  struct Assignment {
    Mode mode = Mode::kNoFit;  // the worst over the resources
    std::int32_t borrowing = 0;
    std::vector<std::pair<std::uint32_t, std::int64_t>> usage;  // per (flavor, resource)
    std::vector<std::uint32_t> needs_preemption;               // pairs assigned in a preempt mode
    std::string reason;                                         // why it does not fit, if not
    bool no_flavor_matches = false;  // NoFit because no flavor of a group matches its pods at all
  };
  // `snapshot` is changed while the preemption oracle tries victims, and left as it was.
  Assignment assign_flavors(WorkloadId id, QuotaTree& snapshot) const;
  struct Target {
    WorkloadId victim;
    PreemptionReason reason;
  };
  // The workloads to preempt so that `requests` fit (Kueue's classical or fair-sharing preemption), or none.
  std::vector<Target> preemption_targets(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption,
                                         const std::vector<std::pair<std::uint32_t, std::int64_t>>& requests,
                                         QuotaTree& snapshot) const;

 private:
  struct Workload {
    WorkloadSpec spec;
    std::uint64_t uid = 0;  // arrival order: the last tie-break
    std::vector<std::pair<std::uint32_t, std::int64_t>> usage;
    std::int64_t reserved_at = 0;  // the cycle count when it reserved quota (newest first as victims)
    // What setting a queue's workloads aside writes, kept together (a shape may hold thousands).
    WorkloadState state = WorkloadState::kPending;
    std::string reason;            // as a head: why the last cycle left it out
    bool no_flavor = false;        // see waits_for_flavor
    // Set aside with the workloads of a head's shape: that head's reason explains it (formatted
    // only when asked: a shape may hold thousands); or it joined a shape already set aside.
    std::optional<WorkloadId> aside_with;
    bool joined_shape = false;
  };
  struct Queue {
    ClusterQueue object;
    NodeId node = 0;
    std::vector<WorkloadId> heap;          // kept sorted: the head first
    std::vector<WorkloadId> inadmissible;  // in the order they were set aside
    std::vector<WorkloadId> admitted;      // holding quota (admitted or evicted)
    std::optional<WorkloadId> sticky;      // a preemptor waiting for its victims (BestEffortFIFO)
    std::set<std::uint32_t> set_aside;     // shapes set aside since the last requeue (BestEffortFIFO)
    std::vector<std::uint32_t> shape_count;  // per shape: its workloads in the heap
  };

  // Why a head was not admitted, as the queue manager reads it (RequeueReason).
  enum class Requeue : std::uint8_t { kNone, kNoFit, kNoCandidates, kFailedAfterNomination, kPendingPreemption, kNamespaceMismatch };
  // A head taken in a cycle, with its flavor assignment and what it would preempt.
  struct Entry {
    WorkloadId id;
    Assignment assignment;
    std::vector<Target> targets;
    Requeue requeue = Requeue::kNone;
    bool admitted = false;
  };

  bool ranks_before(const Queue& q, WorkloadId a, WorkloadId b) const;
  // SatisfiesPreemptionPolicy: whether `preemptor` may preempt `candidate` (same_queue: by its
  // ClusterQueue's withinClusterQueue, else by reclaimWithinCohort).
  bool policy_allows(const Workload& preemptor, const ClusterQueue& cq, WorkloadId candidate, bool same_queue) const;
  // Whether the workload holds quota on any of the pairs (WorkloadUsesResources).
  bool uses_any(WorkloadId id, const std::vector<std::uint32_t>& pairs) const;
  // CandidatesOrdering: whether `a` is preempted before `b` by a preemptor of `preemptor_cq`.
  bool candidate_before(WorkloadId a, WorkloadId b, NodeId preemptor_cq) const;
  // preemption_targets, or while nominating its result kept from an earlier cycle (searches_).
  std::vector<Target> searched_targets(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption,
                                       const std::vector<std::pair<std::uint32_t, std::int64_t>>& requests, QuotaTree& snapshot) const;
  // The workloads to preempt by Kueue's fair-sharing rules (fairPreemptions), or none.
  std::vector<Target> fair_preemption_targets(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption,
                                              const std::vector<std::pair<std::uint32_t, std::int64_t>>& requests,
                                              QuotaTree& snapshot) const;
  // Whether fair-sharing preemption could take any victim at all for `requests` (false: it takes none).
  bool fair_sharing_may_preempt(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption,
                                const std::vector<std::pair<std::uint32_t, std::int64_t>>& requests, QuotaTree& snapshot) const;
  // The next entry fair sharing's iterator gives (fair_sharing_iterator.go), from those not yet
  // given (`left`, emptied as it goes), on the cycle's snapshot as earlier entries changed it.
  // Per entry of a cycle, the shares its tournament compares, computed once and kept until the usage
  // they read changes.
  struct FairShares {
    std::vector<std::optional<std::vector<std::pair<NodeId, Drs>>>> per_entry;
    // The entry `processed` went through processEntry: the shares it may have changed are dropped.
    void changed(const QuotaTree& snapshot, const std::vector<Entry>& entries, const std::vector<Workload>& workloads, std::size_t processed);
  };
  std::size_t next_by_fair_sharing(const std::vector<Entry>& entries, std::vector<std::size_t>& left, QuotaTree& snapshot,
                                   FairShares& shares) const;
  void push(Queue& q, WorkloadId id);
  // A workload of `shape` joins (+1) or leaves (-1) the queue's heap.
  void count_in_heap(Queue& q, std::uint32_t shape, int sign);
  // A workload (re)joins its queue: the heap, or aside with its shape.
  void enqueue(WorkloadId id);
  void set_aside(Queue& q, WorkloadId id);
  void release(WorkloadId id, core::Time now);
  void requeue_cohort_tree(NodeId root);
  Queue& queue_of(WorkloadId id) { return queues_[queue_index_[workloads_[id].spec.cluster_queue]]; }
  const Queue& queue_of(WorkloadId id) const { return queues_[queue_index_[workloads_[id].spec.cluster_queue]]; }
  bool flavor_allows(const ResourceFlavor& flavor, const WorkloadSpec& spec) const;
  const ResourceFlavor* flavor(const std::string& name) const;
  // One cycle; true if it changed anything.
  bool cycle(Decisions& out);

  QuotaTree tree_;
  QuotaTree snapshot_;  // each cycle's, reused
  std::vector<ResourceFlavor> flavors_;  // by name, sorted
  std::vector<Queue> queues_;            // one per ClusterQueue, in the objects' order
  std::vector<std::size_t> queue_index_;  // per tree node: its queue (ClusterQueues only)
  std::vector<Workload> workloads_;
  // Per workload, its place in its queue (baseCompareFunc: higher priority, older, uid), packed so
  // that sorting a long queue reads one array.
  std::vector<std::tuple<std::int64_t, std::int64_t, std::uint64_t>> rank_key_;
  // Per workload, its scheduling equivalence class (its shape), packed for the scans of a long queue.
  std::vector<std::uint32_t> shape_of_;
  Configuration configuration_;
  bool fair_sharing_ = false;  // the Configuration's fairSharing
  std::map<std::string, std::uint32_t> shapes_;
  std::map<NodeId, core::Time> requeues_;  // per cohort-tree root, when its batched requeue is due
  std::int64_t cycles_ = 0;
  // Preemption searches made while nominating (on a snapshot equal to the tree) depend only on the
  // quota used and on who holds it: their results are kept per preemptor and request until one of
  // those changes (version_), as heads are nominated again in every cycle.
  struct CachedSearch {
    std::uint64_t version;
    std::vector<std::uint32_t> needs;
    std::vector<std::pair<std::uint32_t, std::int64_t>> requests;
    std::vector<Target> targets;
  };
  std::uint64_t version_ = 0;
  bool nominating_ = false;
  mutable std::map<WorkloadId, std::vector<CachedSearch>> searches_;
};

}  // namespace gpusim::k8s::kueue
