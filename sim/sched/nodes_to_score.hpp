#pragma once
// kube-scheduler's percentageOfNodesToScore: how many feasible nodes the filter stage looks for
// before it stops (kubernetes/kubernetes pkg/scheduler/schedule_one.go, numFeasibleNodesToFind).
// Below 100 nodes, all of them; else `percentage` of the nodes, and with 0 (the default) the adaptive
// 50 - nodes / 125 percent, at least 5 %; never fewer than 100 nodes.
#include <cstdint>

namespace gpusim::sched {

inline constexpr std::int64_t kMinFeasibleNodesToFind = 100;
inline constexpr std::int64_t kMinFeasibleNodesPercentageToFind = 5;

inline std::int64_t feasible_nodes_to_find(std::int32_t percentage, std::int64_t nodes) {
  if (nodes < kMinFeasibleNodesToFind) return nodes;
  std::int64_t p = percentage;
  if (p == 0) {
    p = 50 - nodes / 125;
    if (p < kMinFeasibleNodesPercentageToFind) p = kMinFeasibleNodesPercentageToFind;
  }
  const std::int64_t found = nodes * p / 100;
  return found < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : found;
}

}  // namespace gpusim::sched
