#pragma once
// Nodes that advertise their devices under several resources (MIG's mixed strategy): a pod fits
// and is placed on devices of its own resource only. Whole devices, as count-only plugins give.
// The cluster state keeps a bit set per node of the whole free devices and of each class's
// devices, so these are a few word operations, not a scan of the node's (up to 64) devices.
#include <cstdint>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::cluster {

inline bool has_device_classes(const NodeSpec& node) { return !node.device_class.empty(); }

// The free devices of the pod's resource on node n.
inline GpuSet free_devices_of_class(const PodSpec& pod, const ClusterState& cluster, NodeIndex n) {
  return {cluster.whole_free_devices(n).bits & cluster.devices_of_class(n, pod.device_class).bits};
}

// Whether `set` has at least `k` devices (without a population count, which is a library call on
// the baseline x86-64 target; k is small).
inline bool at_least(GpuSet set, int k) {
  std::uint64_t left = set.bits;
  for (; k > 1 && left != 0; --k) left &= left - 1;
  return k <= 0 || left != 0;
}

// The lowest-indexed free devices of the pod's resource (the device manager's order), or none.
inline GpuSet first_fit_of_class(const PodSpec& pod, const ClusterState& cluster, NodeIndex n) {
  std::uint64_t left = free_devices_of_class(pod, cluster, n).bits;
  GpuSet set;
  for (int needed = pod.gpu_count; needed > 0; --needed) {
    if (left == 0) return {};
    set.bits |= left & (~left + 1);  // the lowest
    left &= left - 1;
  }
  return set;
}

}  // namespace gpusim::cluster
