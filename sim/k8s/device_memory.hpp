#pragma once
// The memory of one GPU as a sharing device plugin registers it, in that plugin's units: the
// node's own figure where its Node object gives one (NodeSpec::gpu_memory_mib), else the catalog's
// nominal size (NVML reports a little less, so a real plugin registers slightly less than that).
#include <cmath>
#include <cstdint>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"

namespace gpusim::k8s {

// One GPU's memory on `node`, in MiB.
inline std::int64_t gpu_memory_mib(const cluster::NodeSpec& node, const cluster::GpuCatalog& catalog) {
  return node.gpu_memory_mib > 0 ? node.gpu_memory_mib : catalog.at(node.gpu_model).memory_mib;
}

// gpushare's device plugin counts aliyun.com/gpu-mem in whole GiB, rounded down.
inline std::int64_t gpushare_gib(std::int64_t memory_mib) { return memory_mib / 1024; }

// HAMi registers a GPU's MiB times deviceMemoryScaling, rounded down.
inline std::int64_t hami_registered_mib(std::int64_t memory_mib, double device_memory_scaling) {
  return static_cast<std::int64_t>(std::floor(static_cast<double>(memory_mib) * device_memory_scaling));
}
// What HAMi registers for each GPU of `node`: its registration annotation's figure as it is, else
// the node's (or the catalog's) memory scaled.
inline std::int64_t hami_registered_mib(const cluster::NodeSpec& node, const cluster::GpuCatalog& catalog,
                                        double device_memory_scaling) {
  if (node.gpu_memory_registered) return node.gpu_memory_mib;
  return hami_registered_mib(gpu_memory_mib(node, catalog), device_memory_scaling);
}
// gpushare's GiB per GPU of `node`.
inline std::int64_t gpushare_gib(const cluster::NodeSpec& node, const cluster::GpuCatalog& catalog) {
  return gpushare_gib(gpu_memory_mib(node, catalog));
}

}  // namespace gpusim::k8s
