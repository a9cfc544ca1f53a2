#pragma once
// Scratch space for one pod's scheduling cycle, shared by the plugins of that cycle. Sized once
// per cluster so that the cycle itself never allocates.
#include <cstdint>
#include <vector>

#include "sim/cluster/cluster_state.hpp"

namespace gpusim::sched {

struct NodeScore {
  cluster::NodeIndex node = 0;
  std::int64_t score = 0;
};

class CycleState {
 public:
  explicit CycleState(std::size_t node_count)
      : preferred_gpus_(node_count), has_preference_(node_count, 0) {}

  // Start of a new cycle: forget every plugin's per-node preference.
  void reset() {
    for (const cluster::NodeIndex n : touched_) has_preference_[n] = 0;
    touched_.clear();
  }

  // A score plugin that also decides the GPUs (FGD) records its choice for node n here; the
  // GPU selector of the profile may then use it.
  void prefer_gpus(cluster::NodeIndex n, cluster::GpuSet gpus) {
    if (!has_preference_[n]) touched_.push_back(n);
    has_preference_[n] = 1;
    preferred_gpus_[n] = gpus;
  }
  bool has_preferred_gpus(cluster::NodeIndex n) const { return has_preference_[n] != 0; }
  cluster::GpuSet preferred_gpus(cluster::NodeIndex n) const { return preferred_gpus_[n]; }

  // The node a PreScore step singled out (the Random policy), if any.
  std::int64_t chosen_node = -1;

 private:
  std::vector<cluster::GpuSet> preferred_gpus_;
  std::vector<std::uint8_t> has_preference_;
  std::vector<cluster::NodeIndex> touched_;
};

}  // namespace gpusim::sched
