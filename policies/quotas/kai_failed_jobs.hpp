#pragma once
// KAI's smallest failed jobs (actions/common/minimal_job_comparison.go, MinimalJobRepresentatives at
// 72de64fc): reclaim and preempt try every pending job of a queue in a session, but once a job's
// search for victims failed, a later job of the same queue and the same scheduling constraints is
// tried only if it is easier to schedule than the smallest such failure. A job no smaller (equal, or
// larger in some resource though smaller in another) is skipped: KAI reasons that it would fail
// too. This is what bounds the cost of trying every job (KAI's --use-scheduling-signatures, on by
// default).
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster/pod.hpp"

namespace gpusim::policy {

// One pod's ask as KAI compares asks (ResourceRequirements.LessEqual): CPU, memory, GPUs (count and
// share of each), the RDMA share as a scalar resource; a MIG instance (device_class) compares only
// with the same instance.
struct KaiPodAsk {
  std::uint8_t device_class = 0;
  std::int32_t gpu_count = 0;
  std::int32_t gpu_milli = 0;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int32_t rdma_percent = 0;

  static KaiPodAsk of(const cluster::PodSpec& spec);
  // Every resource at most the other's (KAI's LessEqual).
  bool less_equal(const KaiPodAsk& other) const;
  // The order a job's asks are sorted in (KAI sorts by LessEqual; this order agrees with it
  // wherever LessEqual decides, and breaks its undecided cases by these fields in turn).
  friend auto operator<=>(const KaiPodAsk&, const KaiPodAsk&) = default;
};

// Whether two pods have the same scheduling constraints signature (SchedulingConstraintsSignature:
// node selector, affinity, tolerations, priority class and value, anti-affinity; their resources are
// not in it). Pods without Kubernetes detail (trace rows) have none beyond their priority.
bool same_scheduling_constraints(const cluster::PodSpec& a, const cluster::PodSpec& b);
// Whether two jobs have the same signature: KAI hashes the sorted signatures of a job's pending
// pods, so the same number of pods, alike pod for pod (as multisets).
bool same_job_signature(std::span<const cluster::PodSpec* const> a, std::span<const cluster::PodSpec* const> b);

class KaiFailedJobs {
 public:
  // A new action: no job has failed yet.
  void clear() { used_ = 0; }
  // Whether the job of `workers` (its pending pods) in leaf queue `queue` is to be tried: no job of
  // its queue and signature failed yet, or it is easier to schedule than the smallest that did.
  bool worth_trying(std::uint32_t queue, std::span<const cluster::PodSpec* const> workers);
  // The job's search failed: it stands for its queue and signature if its footprint is smaller than
  // the one standing now (or none stands).
  void failed(std::uint32_t queue, std::span<const cluster::PodSpec* const> workers);

 private:
  struct Representative {
    std::uint32_t queue = 0;
    std::vector<const cluster::PodSpec*> pods;  // the pending pods of the first failure: the signature
    std::vector<KaiPodAsk> asks;                // of the smallest failure, sorted
  };
  // The representative of the job's queue and signature, or null.
  Representative* find(std::uint32_t queue, std::span<const cluster::PodSpec* const> workers);
  void sorted_asks(std::span<const cluster::PodSpec* const> workers, std::vector<KaiPodAsk>& out) const;

  std::vector<Representative> representatives_;  // the first used_ are this action's (storage reused)
  std::size_t used_ = 0;
  std::vector<KaiPodAsk> asks_;  // reused
};

// jobEasierToScheduleComparison over two jobs' sorted asks: fewer pods than the representative is
// easier; with at least as many, the first pod (in sorted order) strictly smaller than the
// representative's at its place decides, and one that is neither smaller nor equal is passed over;
// a job with more pods that gets past the representative's is not easier. Equal jobs are not
// easier. (Jobs of one signature have as many pods; the other cases are KAI's code, kept whole.)
bool kai_easier_to_schedule(std::span<const KaiPodAsk> job, std::span<const KaiPodAsk> representative);
// isPodGroupFootprintSmaller: at most as many pods, each (sorted) at most the representative's.
bool kai_footprint_smaller(std::span<const KaiPodAsk> job, std::span<const KaiPodAsk> representative);

}  // namespace gpusim::policy
