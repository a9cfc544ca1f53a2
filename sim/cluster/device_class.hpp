#pragma once
// Nodes that advertise their devices under several resources (MIG's mixed strategy): a pod fits
// and is placed on devices of its own resource only. Whole devices, as count-only plugins give.
// The cluster state keeps a bit set per node of the whole free devices and of each class's
// devices, so these are a few word operations, not a scan of the node's devices.
#include <cstdint>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::cluster {

inline bool has_device_classes(const NodeSpec& node) { return !node.device_class.empty(); }

// The free devices of the pod's resource on node n.
inline GpuSet free_devices_of_class(const PodSpec& pod, const ClusterState& cluster, NodeIndex n) {
  return cluster.whole_free_devices(n) & cluster.devices_of_class(n, pod.device_class);
}

// Whether `set` has at least `k` devices (without a population count, which is a library call on
// the baseline x86-64 target; k is small).
inline bool at_least(const GpuSet& set, int k) {
  if (k <= 0) return true;
  for (const std::uint64_t word : set.words) {
    for (std::uint64_t left = word; left != 0; left &= left - 1) {
      if (--k == 0) return true;
    }
  }
  return false;
}

// The lowest-indexed free devices of the pod's resource (the device manager's order), or none.
inline GpuSet first_fit_of_class(const PodSpec& pod, const ClusterState& cluster, NodeIndex n) {
  GpuSet left = free_devices_of_class(pod, cluster, n);
  GpuSet set;
  for (int needed = pod.gpu_count; needed > 0; --needed) {
    const int lowest = left.lowest();
    if (lowest < 0) return {};
    set.add(lowest);
    left.remove(lowest);
  }
  return set;
}

}  // namespace gpusim::cluster
