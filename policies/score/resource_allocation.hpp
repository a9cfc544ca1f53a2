#pragma once
// kube-scheduler's resource-allocation scores, integer arithmetic and order of operations as
// upstream (kubernetes/kubernetes pkg/scheduler/framework/plugins/noderesources/:
// least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go, balanced_allocation.go,
// resource_allocation.go; pkg/scheduler/framework/plugins/helper/shape_score.go):
//
// - LeastAllocated: per resource (capacity - requested) x 100 / capacity (0 when requested exceeds
//   capacity); MostAllocated: requested x 100 / capacity (requested capped at capacity). The node's
//   score is sum(score x weight) / sum(weight), integer division, over the resources the node has
//   allocatable (sim: policies/score/scoring_resources.hpp says which are left out).
// - RequestedToCapacityRatio: per resource the broken-linear shape at utilization
//   requested x 100 / capacity (the shape's last point when requested exceeds capacity), shape scores
//   scaled x 10; only resources scoring above 0 enter the weighted mean, which is rounded half away
//   from zero.
// - BalancedAllocation: fractions requested / allocatable (capped at 1) of the resources the node has;
//   std = |f1 - f2| / 2 for two, the population standard deviation for more, 0 for one; score
//   int((1 - std) x 100). A pod that asks none of the resources is not scored (every node 0: upstream
//   skips the plugin for best-effort pods, kubernetes#129138).
#include <cstdint>
#include <span>
#include <vector>

#include "policies/score/scoring_resources.hpp"

namespace gpusim::policy {

enum class ScoringStrategy : std::uint8_t { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

// A point of RequestedToCapacityRatio's shape: utilization 0..100 and the score already scaled to
// 0..100 (the configuration's 0..10 times MaxNodeScore / MaxCustomPriorityScore = 10).
struct ShapePoint {
  std::int64_t utilization = 0;
  std::int64_t score = 0;
};

std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity);
std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity);
// helper.BuildBrokenLinearFunction: the first point's score at or below its utilization, the last
// point's above the last, linear (integer division) in between. `shape` is not empty.
std::int64_t broken_linear(std::span<const ShapePoint> shape, std::int64_t utilization);

struct FitScoring {
  ScoringStrategy strategy = ScoringStrategy::kLeastAllocated;
  std::vector<ScoredResource> resources;
  std::vector<ShapePoint> shape;  // RequestedToCapacityRatio
  // gpusim's least-allocated and most-allocated as they were before issue 30 (the built-in policies
  // kube-default, binpack and topology-aware keep their results): CPU and memory as requested (no
  // non-zero defaults), every resource in the weight sum even where the node has none, and 0 where
  // requested exceeds capacity. Upstream otherwise.
  bool gpusim_legacy = false;
};

// NodeResourcesFit's score (its scoringStrategy).
class FitScorer {
 public:
  explicit FitScorer(FitScoring scoring);
  // Per cycle: the pod's own requests (PreScore).
  void prepare(const cluster::PodSpec& pod);
  std::int64_t score(const cluster::PodSpec& pod, cluster::NodeIndex n, const cluster::ClusterState& cluster);
  const FitScoring& scoring() const { return scoring_; }

 private:
  FitScoring scoring_;
  bool cpu_memory_only_;  // resources: cpu and memory, weight 1 each (the default)
  const cluster::PodSpec* prepared_ = nullptr;
  cluster::CpuMemory asked_;
};

// NodeResourcesBalancedAllocation's score.
class BalancedScorer {
 public:
  explicit BalancedScorer(std::vector<ScoredResource> resources);
  void prepare(const cluster::PodSpec& pod);
  std::int64_t score(const cluster::PodSpec& pod, cluster::NodeIndex n, const cluster::ClusterState& cluster);

 private:
  std::vector<ScoredResource> resources_;
  bool cpu_memory_only_;
  std::vector<double> fractions_;  // scratch, sized once
  const cluster::PodSpec* prepared_ = nullptr;
  bool best_effort_ = false;
};

}  // namespace gpusim::policy
