// The scheduler's cache follows the node status the kubelets publish (allocatable counts, unhealthy
// devices, dynamic MIG layouts), and hides GPUs it asked to re-partition until the status shows them.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "sim/cluster/device_class.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/scheduler.hpp"

namespace gpusim::k8s {

// Dynamic MIG: the devices of node n's GPUs this scheduler asked to re-partition, while the
// status does not show the new layout yet.
cluster::GpuSet Scheduler::being_repartitioned(cluster::NodeIndex n) {
  const NodeStatus& status = api_.node_status(n);
  const core::Time now = bus_.now();
  std::erase_if(mig_pending_, [&](const PendingLayout& p) {
    if (p.node != n) return false;
    const int slots = setup_[n].replicas();
    const bool shown = status.mig_layouts != 0 && static_cast<int>((status.mig_layouts >> (4 * p.gpu)) & 0xFU) == p.layout &&
                       !status.unadvertised.contains(p.gpu * slots);
    return shown || p.until <= now;
  });
  cluster::GpuSet slots_hidden;
  for (const PendingLayout& p : mig_pending_) {
    if (p.node != n) continue;
    const int slots = setup_[n].replicas();
    for (int i = 0; i < slots; ++i) slots_hidden.add(p.gpu * slots + i);
  }
  return slots_hidden;
}

void Scheduler::apply_status(cluster::NodeIndex n) {
  const cluster::NodeSpec& node = cache_.node(n);
  if (node.gpu_count == 0) return;
  const NodeStatus& status = api_.node_status(n);
  const NodeSetup& setup = setup_[n];
  if (setup.mig_dynamic) {
    // Re-partitioned GPUs advertise other profiles: each slot's resource as the status lists it.
    const int slots = setup.replicas();
    for (int d = 0; d < node.gpu_count; ++d) {
      const int gpu = d / slots;
      // Before the kubelet's first status: the layout the node starts with.
      const int layout = status.mig_layouts == 0 ? NodeSetup::kInitialLayout
                                                 : static_cast<int>((status.mig_layouts >> (4 * gpu)) & 0xFU);
      const std::vector<int>& shapes = setup.mig_layout(layout);
      const auto i = static_cast<std::size_t>(d % slots);
      const std::uint8_t device_class = i < shapes.size() ? static_cast<std::uint8_t>(1 + shapes[i]) : 0;
      if (node.device_class[static_cast<std::size_t>(d)] != device_class) cache_.set_device_class(n, d, device_class);
    }
  }
  if (scheduler_picks_gpus(setup_[n].model) || setup.mig_dynamic) {
    // The extender knows device ids: exactly the published unhealthy devices are unavailable
    // (dynamic MIG: HAMi's scheduler names the instances, and hides GPUs it re-partitions).
    cluster::GpuSet hidden = status.unadvertised;
    if (setup.mig_dynamic) hidden |= being_repartitioned(n);
    for (int g = 0; g < node.gpu_count; ++g) {
      const bool available = !hidden.contains(g);
      if (cache_.gpu_healthy(n, g) != available) cache_.set_gpu_healthy(n, g, available);
    }
    return;
  }
  // A count: mark (capacity - allocatable) GPUs unavailable, free ones first from the highest
  // index, then used ones. Free GPUs then number max(0, allocatable - used), as in kube-scheduler.
  // MIG (static): a count per instance resource, so as many of each profile as the status lacks
  // (the kubelet, not the scheduler, picked which instance each pod holds).
  const auto unallocated = cache_.gpu_milli_unallocated(n);
  cluster::GpuSet hidden;
  const auto hide = [&](int to_hide, std::uint8_t device_class) {
    for (int pass = 0; pass < 2 && to_hide > 0; ++pass) {
      for (int g = node.gpu_count - 1; g >= 0 && to_hide > 0; --g) {
        const bool used = unallocated[static_cast<std::size_t>(g)] < cluster::kMilliPerGpu;
        if (hidden.contains(g) || (pass == 0 && used)) continue;
        if (cluster::has_device_classes(node) && node.device_class[static_cast<std::size_t>(g)] != device_class) continue;
        hidden.add(g);
        --to_hide;
      }
    }
  };
  if (cluster::has_device_classes(node)) {
    std::array<int, 1 + cluster::kMigShapes> missing{};
    for (int g = 0; g < node.gpu_count; ++g) {
      if (status.unadvertised.contains(g)) ++missing[node.device_class[static_cast<std::size_t>(g)]];
    }
    for (std::size_t c = 0; c < missing.size(); ++c) hide(missing[c], static_cast<std::uint8_t>(c));
  } else {
    hide(node.gpu_count - std::clamp(status.allocatable_gpus, 0, node.gpu_count), 0);
  }
  for (int g = 0; g < node.gpu_count; ++g) {
    const bool available = !hidden.contains(g);
    if (cache_.gpu_healthy(n, g) != available) cache_.set_gpu_healthy(n, g, available);
  }
}

}  // namespace gpusim::k8s
