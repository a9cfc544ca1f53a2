#pragma once
// The memory of one GPU as a sharing device plugin registers it, in that plugin's units. gpusim
// takes a GPU's memory from the catalog (its nominal size; NVML reports a little less, so a real
// plugin may register slightly less than these).
#include <cmath>
#include <cstdint>

namespace gpusim::k8s {

// gpushare's device plugin counts aliyun.com/gpu-mem in whole GiB, rounded down.
inline std::int64_t gpushare_gib(std::int64_t memory_mib) { return memory_mib / 1024; }

// HAMi registers a GPU's MiB times deviceMemoryScaling, rounded down.
inline std::int64_t hami_registered_mib(std::int64_t memory_mib, double device_memory_scaling) {
  return static_cast<std::int64_t>(std::floor(static_cast<double>(memory_mib) * device_memory_scaling));
}

}  // namespace gpusim::k8s
