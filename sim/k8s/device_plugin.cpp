#include "sim/k8s/device_plugin.hpp"

#include <algorithm>
#include <array>

namespace gpusim::k8s {

const char* to_string(DevicePluginModel model) {
  switch (model) {
    case DevicePluginModel::kSchedulerAssigned: return "scheduler-assigned";
    case DevicePluginModel::kDevicePlugin: return "device-plugin";
    case DevicePluginModel::kAccelerators16: return "accelerators-1.6";
    case DevicePluginModel::kAlpha13: return "alpha-1.3";
    case DevicePluginModel::kTimeSlicing: return "time-slicing";
    case DevicePluginModel::kMps: return "mps";
    case DevicePluginModel::kGpushare: return "gpushare";
    case DevicePluginModel::kHamiVgpu: return "hami-vgpu";
    case DevicePluginModel::kMig: return "mig";
    case DevicePluginModel::kKubevirtVgpu: return "kubevirt-vgpu";
  }
  return "?";
}

const char* to_string(VgpuScheduler scheduler) {
  switch (scheduler) {
    case VgpuScheduler::kBestEffort: return "best-effort";
    case VgpuScheduler::kEqualShare: return "equal-share";
    case VgpuScheduler::kFixedShare: return "fixed-share";
  }
  return "?";
}

const char* to_string(ReplicaPolicy policy) {
  return policy == ReplicaPolicy::kPacked ? "packed" : "distributed";
}

const char* to_string(MigStrategy strategy) { return strategy == MigStrategy::kMixed ? "mixed" : "single"; }

const char* to_string(DeviceChoice choice) {
  return choice == DeviceChoice::kPreferred ? "preferred" : "first-fit";
}

Advertisement advertise(DevicePluginModel model, int gpu_count, cluster::GpuSet unhealthy, bool registered) {
  Advertisement ad;
  const cluster::GpuSet all = cluster::GpuSet::first(gpu_count);
  if (!registered || gpu_count == 0) {
    ad.unadvertised = all;
    return ad;
  }
  if (model == DevicePluginModel::kAlpha13) {
    // The kubelet flag exposes one GPU, the first, whatever the node has.
    ad.unadvertised = all;
    if (!unhealthy.contains(0)) {
      ad.allocatable = 1;
      ad.unadvertised.remove(0);
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
  if (is_shared(node.model)) return choose_replicas(node, count, available);
  if (node.model == DevicePluginModel::kDevicePlugin && node.choice == DeviceChoice::kPreferred) {
    if (const topology::Topology* topology = topology_of(n)) {
      const cluster::GpuSet preferred = topology::best_effort(*topology, available, count);
      if (preferred.size() == count) return preferred;
    }
  }
  // First fit: the lowest free indices (the device manager's order without a preference).
  cluster::GpuSet chosen;
  int left = count;
  available.for_each([&](int g) {
    if (left > 0) {
      chosen.add(g);
      --left;
    }
  });
  return chosen;
}

// NVIDIA's greedy allocators for replicas (internal/rm/allocate.go): one replica at a time, from
// the GPU with the fewest (distributed) or most (packed) replicas allocated or not available,
// counting those picked for this request. Equal GPUs go to the lowest device index (the plugin's
// unstable sort leaves that order open).
cluster::GpuSet DeviceChooser::choose_replicas(const NodeSetup& node, int count, cluster::GpuSet available) {
  const int replicas = node.sharing.replicas;
  // Per GPU: its replicas not available (a GPU past the node's devices has none available and
  // is never chosen). Whole words and set bits only: this runs at every admission.
  std::array<int, cluster::kMaxGpusPerNode> taken;
  const int gpus = cluster::kMaxGpusPerNode / replicas;
  std::fill_n(taken.begin(), gpus, replicas);
  available.for_each([&](int d) { --taken[static_cast<std::size_t>(d / replicas)]; });
  const bool fewest = node.sharing.policy == ReplicaPolicy::kDistributed;
  cluster::GpuSet chosen;
  for (int picked = 0; picked < count; ++picked) {
    // The first device (lowest index) of the GPU with the fewest (most) replicas taken.
    int best = -1;
    int best_taken = 0;
    (available - chosen).for_each([&](int d) {
      const int mine = taken[static_cast<std::size_t>(d / replicas)];
      if (best < 0 || (fewest ? mine < best_taken : mine > best_taken)) {
        best = d;
        best_taken = mine;
      }
    });
    chosen.add(best);
    ++taken[static_cast<std::size_t>(best / replicas)];
  }
  return chosen;
}

std::vector<cluster::GpuSet> split_by_container(const cluster::PodSpec& pod, cluster::GpuSet all) {
  std::vector<cluster::GpuSet> split;
  if (pod.constraints == nullptr || pod.constraints->containers.empty() ||
      pod.constraints->gpu_resource == cluster::GpuResource::kAliyunGpuMem) {
    return split;
  }
  for (const cluster::Container& container : pod.constraints->containers) {
    cluster::GpuSet mine;
    for (int k = 0; k < container.gpus && !all.empty(); ++k) {
      const int g = all.lowest();
      mine.add(g);
      all.remove(g);
    }
    split.push_back(mine);
  }
  return split;
}

std::optional<PodDevices> DeviceChooser::allocate(std::uint32_t n, const cluster::PodSpec& pod,
                                                  cluster::GpuSet available) const {
  PodDevices devices;
  // gpushare gives the whole pod one GPU, whichever containers ask its memory.
  if (pod.constraints == nullptr || pod.constraints->containers.empty() ||
      pod.constraints->gpu_resource == cluster::GpuResource::kAliyunGpuMem) {
    const auto chosen = choose(n, pod.gpu_count, available);
    if (!chosen) return std::nullopt;
    devices.all = *chosen;
    return devices;
  }
  int init_gpus = 0;
  for (const cluster::Container& init : pod.constraints->init_containers) init_gpus = std::max(init_gpus, init.gpus);
  cluster::GpuSet reusable;
  if (init_gpus > 0) {
    const auto chosen = choose(n, init_gpus, available);
    if (!chosen) return std::nullopt;
    reusable = *chosen;
    devices.all = reusable;
    available -= reusable;
  }
  for (const cluster::Container& container : pod.constraints->containers) {
    cluster::GpuSet mine;
    // Reuse init containers' devices first, lowest index first.
    for (int k = 0; k < container.gpus && !reusable.empty(); ++k) {
      const int g = reusable.lowest();
      mine.add(g);
      reusable.remove(g);
    }
    if (mine.size() < container.gpus) {
      const auto more = choose(n, container.gpus - mine.size(), available);
      if (!more) return std::nullopt;
      mine |= *more;
      available -= *more;
    }
    devices.all |= mine;
    devices.containers.push_back(mine);
  }
  return devices;
}

}  // namespace gpusim::k8s
