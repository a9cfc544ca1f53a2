#pragma once
// Nodes that advertise their devices under several resources (MIG's mixed strategy): a pod fits
// and is placed on devices of its own resource only. Whole devices, as count-only plugins give.
#include <cstdint>
#include <span>

#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::cluster {

inline bool has_device_classes(const NodeSpec& node) { return !node.device_class.empty(); }

// Free devices of the pod's resource, counted up to `enough`.
inline int free_devices_of_class(const PodSpec& pod, const NodeSpec& node, std::span<const std::int32_t> free,
                                 int enough = kMaxGpusPerNode) {
  int count = 0;
  for (std::size_t d = 0; d < free.size() && d < node.device_class.size() && count < enough; ++d) {
    count += node.device_class[d] == pod.device_class && free[d] >= kMilliPerGpu ? 1 : 0;
  }
  return count;
}

// The lowest-indexed free devices of the pod's resource (the device manager's order), or none.
inline GpuSet first_fit_of_class(const PodSpec& pod, const NodeSpec& node, std::span<const std::int32_t> free) {
  GpuSet set;
  int needed = pod.gpu_count;
  for (std::size_t d = 0; d < free.size() && d < node.device_class.size() && needed > 0; ++d) {
    if (node.device_class[d] == pod.device_class && free[d] >= kMilliPerGpu) {
      set.add(static_cast<int>(d));
      --needed;
    }
  }
  return needed == 0 ? set : GpuSet{};
}

}  // namespace gpusim::cluster
