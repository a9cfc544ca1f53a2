#include "sim/k8s/device_plugin.hpp"

namespace gpusim::k8s {

const char* to_string(DevicePluginModel model) {
  switch (model) {
    case DevicePluginModel::kSchedulerAssigned: return "scheduler-assigned";
    case DevicePluginModel::kDevicePlugin: return "device-plugin";
    case DevicePluginModel::kAccelerators16: return "accelerators-1.6";
    case DevicePluginModel::kAlpha13: return "alpha-1.3";
  }
  return "?";
}

const char* to_string(DeviceChoice choice) {
  return choice == DeviceChoice::kPreferred ? "preferred" : "first-fit";
}

Advertisement advertise(DevicePluginModel model, int gpu_count, cluster::GpuSet unhealthy, bool registered) {
  Advertisement ad;
  cluster::GpuSet all;
  for (int g = 0; g < gpu_count; ++g) all.add(g);
  if (!registered || gpu_count == 0) {
    ad.unadvertised = all;
    return ad;
  }
  if (model == DevicePluginModel::kAlpha13) {
    // The kubelet flag exposes one GPU, the first, whatever the node has.
    ad.unadvertised = all;
    if (!unhealthy.contains(0)) {
      ad.allocatable = 1;
      ad.unadvertised.bits &= ~std::uint64_t{1};
    }
    return ad;
  }
  ad.unadvertised = unhealthy;
  ad.allocatable = gpu_count - unhealthy.size();
  return ad;
}

std::optional<cluster::GpuSet> DeviceChooser::choose(std::uint32_t n, int count, cluster::GpuSet available) const {
  if (available.size() < count) return std::nullopt;
  const NodeSetup& node = setup_[n];
  if (node.model == DevicePluginModel::kDevicePlugin && node.choice == DeviceChoice::kPreferred) {
    if (const topology::Topology* topology = topology_of(n)) {
      const cluster::GpuSet preferred = topology::best_effort(*topology, available, count);
      if (preferred.size() == count) return preferred;
    }
  }
  // First fit: the lowest free indices (the device manager's order without a preference).
  cluster::GpuSet chosen;
  for (int g = 0; g < 64 && chosen.size() < count; ++g) {
    if (available.contains(g)) chosen.add(g);
  }
  return chosen;
}

}  // namespace gpusim::k8s
