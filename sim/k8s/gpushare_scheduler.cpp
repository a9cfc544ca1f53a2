#include "sim/k8s/gpushare_scheduler.hpp"

#include <algorithm>

#include "sim/core/check.hpp"
#include "sim/k8s/device_memory.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

GpushareScheduler::GpushareScheduler(std::span<const NodeSetup> setup, std::span<const cluster::NodeSpec> nodes,
                                     const cluster::GpuCatalog& catalog) {
  GPUSIM_CHECK(setup.size() == nodes.size(), "gpushare scheduler: per-node inputs differ in size");
  gib_per_gpu_.assign(nodes.size(), 0);
  offset_.assign(nodes.size() + 1, 0);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (setup[n].model == DevicePluginModel::kGpushare && nodes[n].gpu_count > 0) {
      gib_per_gpu_[n] = gpushare_gib(nodes[n], catalog);
    }
    offset_[n + 1] = offset_[n] + static_cast<std::size_t>(nodes[n].gpu_count);
  }
  used_.assign(offset_.back(), 0);
}

std::int64_t GpushareScheduler::ask_of(const sched::PodSpec& pod, sched::NodeIndex n) const {
  if (pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kAliyunGpuMem) {
    return pod.constraints->gpu_memory_gib;
  }
  const std::int64_t gib = gib_per_gpu_[n];
  return (std::int64_t{pod.gpu_milli} * gib + cluster::kMilliPerGpu - 1) / cluster::kMilliPerGpu;
}

int GpushareScheduler::tightest(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) const {
  const std::int64_t ask = ask_of(pod, n);
  const auto free_milli = cluster.gpu_milli_free(n);  // 0 where unhealthy
  int best = -1;
  std::int64_t best_free = 0;
  for (std::size_t g = 0; g < free_milli.size(); ++g) {
    const std::int64_t free = gib_per_gpu_[n] - used_[offset_[n] + g];
    if (free < ask || free_milli[g] < pod.gpu_milli) continue;
    if (best < 0 || free < best_free) {
      best = static_cast<int>(g);
      best_free = free;
    }
  }
  return best;
}

void GpushareScheduler::filter(const sched::PodSpec& pod, std::vector<sched::NodeIndex>& feasible,
                               const sched::ClusterState& cluster) {
  if (!pod.wants_gpu()) return;
  std::erase_if(feasible, [&](sched::NodeIndex n) { return gib_per_gpu_[n] > 0 && tightest(pod, n, cluster) < 0; });
}

cluster::GpuSet GpushareScheduler::select(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) {
  cluster::GpuSet chosen;
  const int g = tightest(pod, n, cluster);
  if (g >= 0) chosen.add(g);  // none cannot happen after filter; the caller's check says so
  return chosen;
}

void GpushareScheduler::account(const sched::PodSpec& pod, const cluster::Placement& placement, int sign) {
  if (gib_per_gpu_[placement.node] == 0 || !pod.wants_gpu()) return;
  const std::int64_t ask = ask_of(pod, placement.node);
  for (std::size_t g = 0; g < offset_[placement.node + 1] - offset_[placement.node]; ++g) {
    if (!placement.gpus.contains(static_cast<int>(g))) continue;
    used_[offset_[placement.node] + g] += sign * ask;
    GPUSIM_CHECK(used_[offset_[placement.node] + g] >= 0, "gpushare scheduler: GPU memory in use below zero");
  }
}

}  // namespace gpusim::k8s
