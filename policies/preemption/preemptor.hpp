#pragma once
// The scheduler's PostFilter for preempting profiles (kube-scheduler's DefaultPreemption). When a
// pod, or a gang, does not fit, it looks for running pods of a lower priority (JobPriority) whose
// eviction would let it fit, each worker on one node. On each node, as selectVictimsOnNode does, it
// removes every lower-priority pod (the node is a candidate only if the pod then fits) and puts
// them back most important first (higher priority, then the earlier start) while the pod still
// fits: the victims are the lowest-priority pods that make room. Of all candidate nodes it takes, as
// pickOneNodeForPreemption does: one that needs no victim; else the one whose most important victim
// is least important; the least sum of PriorityClass values (for SRTF's and Tiresias' ranks, which
// do not add up, the least work lost: GPUs x run time since the last checkpoint); the fewest
// victims; the one whose most important victims started last; the lowest index.
//
// With `wait_for_checkpoint` (the deep-learning policies) a pod is a victim only once it has run a
// checkpoint interval since it started, so that every run keeps some work: otherwise two jobs that
// preempt each other before either reaches a checkpoint would do so forever.
//
// Reclaim (reclaim_for, the queue-quota policies): victims are not chosen by priority but by the
// policy's ReclaimRule: Volcano's ReclaimableFn (pods of other queues that hold more than their
// deserved GPUs, taken while their queue still holds more than its deserved GPUs and keeps its
// guarantee without them), or KAI's reclaim and preempt strategies.
//
// Candidate sampling (sample_candidates, DefaultPreemption only): as kube-scheduler's
// DryRunPreemption, the victim search walks the potential nodes (those where preemption might help)
// from a random offset and stops once it has found calculateNumCandidates of them (nodes x
// minCandidateNodesPercentage / 100, at least minCandidateNodesAbsolute, at most every node); the
// best of those is taken. kube-scheduler runs the walk in parallel, so which candidates it finds
// first varies; gpusim walks in node order from the offset, which a seeded stream draws. Without
// sampling (srtf, tiresias, reclaim) every potential node is a candidate.
//
// A victim that belongs to a gang takes its whole gang with it: a distributed job cannot run with
// workers missing; gangs with a worker that is not running are not victims.
//
// Scope: whole-GPU pods and victims on nodes where a whole GPU is one exclusive device
// (scheduler-assigned, device-plugin, accelerators-1.6: not time-slicing, MPS, gpushare, HAMi or
// MIG); it checks GPUs, CPU and memory, the node's GPU model and
// taints, not node affinity, so pods with affinity rules or node selectors do not preempt.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/core/rng.hpp"
#include "sim/k8s/api_server.hpp"
#include "policies/job_rank/job_priority.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

// Whether `pod` could ever run on node n: present, a GPU model it allows, enough GPUs, and every
// NoSchedule and NoExecute taint tolerated (as the taint-toleration filter).
bool may_take_node(const cluster::PodSpec& pod, const cluster::ClusterState& cache, cluster::NodeIndex n);

// kube-scheduler's DefaultPreemptionArgs bounds on the dry run (defaults as upstream).
struct CandidateSampling {
  std::int32_t percentage = 10;  // minCandidateNodesPercentage
  std::int32_t absolute = 100;   // minCandidateNodesAbsolute
};
// DefaultPreemption's calculateNumCandidates: how many candidates the dry run looks for among
// `potential_nodes`.
std::int32_t candidates_to_find(const CandidateSampling& sampling, std::int32_t potential_nodes);

// Which running jobs a reclaim may take, for a policy that chooses victims by its queues' quotas.
class ReclaimRule {
 public:
  virtual ~ReclaimRule() = default;
  // Whether `victim`'s job, holding `job_gpu_milli` GPUs (thousandths; 0: asked before its job is
  // known, whether any pod of its kind may be taken), may be taken for `reclaimer`, with `taken[q]`
  // GPUs of each workload queue q already chosen in this search.
  virtual bool may_take(const cluster::PodSpec& reclaimer, const cluster::PodSpec& victim, std::int64_t job_gpu_milli,
                        std::span<const std::int64_t> taken) const = 0;
  // Victims are taken in this order, smaller first; then the least work lost.
  virtual std::int64_t victim_rank(const cluster::PodSpec& victim) const { (void)victim; return 0; }
};

class Preemptor {
 public:
  Preemptor(const cluster::ClusterState& cache, const ApiServer& api, const std::vector<cluster::PodSpec>& pods,
            const std::vector<NodeSetup>& setup, const std::vector<cluster::Placement>& assumed,
            const std::vector<std::vector<PodId>>& on_node, const std::vector<std::uint8_t>& evicting,
            const JobPriority& priority, core::Time checkpoint_interval, bool wait_for_checkpoint);

  // The pods to evict so that every pod of `workers` (one pod, or a gang's pending workers, all of
  // one job) fits; false, and no victims, if no choice does.
  bool choose(std::span<const PodId> workers, core::Time now, std::vector<PodId>& victims);
  // From now on victims are chosen by `rule` (see above), not by priority.
  void reclaim_for(const ReclaimRule& rule);
  // From now on each worker's search stops at `sampling`'s number of candidates, walking from an
  // offset drawn from `offsets` (see above).
  void sample_candidates(CandidateSampling sampling, core::Rng offsets);

 private:
  struct Candidate {
    std::int64_t rank;  // reclaim: the rule's order
    std::int64_t lost_gpu_us;
    PriorityKey key;
    PodId pod;
    int gpus;  // healthy GPUs it (and its gang's workers on the node) frees on the node
    std::int64_t cpu_milli, memory_mib;
    std::uint32_t queue;       // reclaim: its queue, and the GPUs its job holds (all workers)
    std::int64_t job_gpu_milli;
    std::int64_t started_us;   // when the pod started running
    std::int64_t pods;         // its pods (its gang's workers) on the node
  };
  // What a node has for the pod being placed: free (or freed) GPUs, CPU, memory and pod slots.
  struct Room {
    std::int64_t gpus, cpu, memory, pods;
    bool fits(const cluster::PodSpec& spec) const {
      return gpus >= spec.gpu_count && cpu >= spec.cpu_milli && memory >= spec.memory_mib && pods >= 1;
    }
    // Adds (sign 1) or takes back (-1) what candidate c frees.
    void add(const Candidate& c, int sign) {
      gpus += sign * c.gpus;
      cpu += sign * c.cpu_milli;
      memory += sign * c.memory_mib;
      pods += sign * c.pods;
    }
  };
  // How good a node is to preempt on; smaller is better (fields compared in order).
  struct NodeChoice {
    std::uint8_t needs_eviction = 0;
    std::int64_t neg_top_rank = 0;        // minus the rank of its most important victim
    std::int64_t priority_sum = 0;        // PriorityClass values + 2^31 summed, or the work lost
    std::int64_t lost_gpu_us = 0;         // reclaim only
    std::size_t victims = 0;
    std::int64_t neg_earliest_start = 0;  // minus the earliest start of its most important victims
    cluster::NodeIndex node = 0;
    friend auto operator<=>(const NodeChoice&, const NodeChoice&) = default;
  };
  // The victims among candidates_ (left there) that make room for `spec` given what the node has
  // free; false if none do.
  bool priority_victims(Room room, const cluster::PodSpec& spec);
  // Whether node n is a candidate for `spec` (its victims left in candidates_; none if it fits as it is).
  bool node_candidate(cluster::NodeIndex n, const cluster::PodSpec& spec, const PriorityKey& key, core::Time now);
  bool reclaim_victims(Room room, const cluster::PodSpec& spec);
  NodeChoice node_choice(cluster::NodeIndex n, core::Time now) const;
  // Reclaim: whether candidate c may still be taken, given what this call took from its queue.
  bool quota_allows(const cluster::PodSpec& reclaimer, const Candidate& c);
  bool preemptible_node(cluster::NodeIndex n) const;
  // The work `pod` loses if evicted now: its run since its last checkpoint, in GPU-microseconds.
  std::int64_t lost_gpu_us(PodId pod, core::Time now) const;
  // The pod objects running for `pod`'s job: the pod, or every worker of its gang; false if one of
  // them may not be evicted now.
  bool job_pods(PodId pod, core::Time now, std::vector<PodId>& out) const;
  bool taken(PodId pod) const { return (pod < taken_.size() && taken_[pod]) || (pod < evicting_.size() && evicting_[pod]); }
  void take(PodId pod);
  int healthy_gpus(PodId pod) const;

  const cluster::ClusterState& cache_;
  const ApiServer& api_;
  const std::vector<cluster::PodSpec>& pods_;
  const std::vector<NodeSetup>& setup_;
  const std::vector<cluster::Placement>& assumed_;
  const std::vector<std::vector<PodId>>& on_node_;
  const std::vector<std::uint8_t>& evicting_;
  const JobPriority& priority_;
  std::int64_t checkpoint_us_;
  bool wait_for_checkpoint_;
  // Whether `pod` may be evicted now (running, not taken, past its first checkpoint if asked).
  bool evictable(PodId pod, core::Time now) const;
  // Scratch, reset after each call: what earlier workers of this call freed (+) or took (-) per
  // node, the pods chosen so far, and the candidates of the node being looked at.
  std::vector<std::int64_t> spare_gpus_, spare_cpu_, spare_memory_, spare_pods_;
  std::vector<cluster::NodeIndex> touched_;
  std::vector<std::uint8_t> taken_;
  std::vector<PodId> taken_list_;
  std::vector<Candidate> candidates_, best_;
  std::vector<PodId> job_;
  std::vector<std::uint64_t> gang_seen_;  // per gang: the node scan that last listed it
  std::uint64_t scan_ = 0;
  // Reclaim: the queues' quotas, and per queue the GPUs taken by earlier workers of this call and
  // on the node being looked at.
  const ReclaimRule* rule_ = nullptr;
  std::vector<std::int64_t> queue_taken_, queue_tentative_, queue_sum_;
  // Candidate sampling, if on: the bounds and the offsets' stream; the potential nodes (scratch).
  std::optional<CandidateSampling> sampling_;
  std::optional<core::Rng> offsets_;
  std::vector<cluster::NodeIndex> potential_;
};

}  // namespace gpusim::k8s
