#include "policies/score/scoring_resources.hpp"

#include <fmt/format.h>

#include "sim/cluster/mig.hpp"

namespace gpusim::policy {
namespace {

using cluster::GpuResource;

constexpr std::string_view kMigPrefix = "nvidia.com/mig-";

GpuResource pod_resource(const cluster::PodSpec& pod) {
  return pod.constraints == nullptr ? GpuResource::kAny : pod.constraints->gpu_resource;
}

bool asks_nvidia_gpu(const cluster::PodSpec& pod) {
  const GpuResource r = pod_resource(pod);
  return pod.wants_gpu() && (r == GpuResource::kAny || r == GpuResource::kNvidiaGpu || r == GpuResource::kHamiVgpu);
}

int healthy_devices(const cluster::ClusterState& cluster, cluster::NodeIndex n) {
  int healthy = 0;
  for (int g = 0; g < cluster.node(n).gpu_count; ++g) healthy += cluster.gpu_healthy(n, g) ? 1 : 0;
  return healthy;
}

// Devices counted in milli: 1000 per healthy device allocatable; what is allocated on every device
// (healthy or not, as the pods on it still hold their requests) plus the pod's share.
Amount devices_in_milli(const cluster::PodSpec& pod, cluster::NodeIndex n, const cluster::ClusterState& cluster) {
  Amount a{std::int64_t{healthy_devices(cluster, n)} * cluster::kMilliPerGpu, pod.total_gpu_milli()};
  for (const std::int32_t unallocated : cluster.gpu_milli_unallocated(n)) a.requested += cluster::kMilliPerGpu - unallocated;
  return a;
}

// HAMi's vGPUs: deviceSplitCount per device; a pod takes one on each GPU it uses.
Amount hami_vgpus(const cluster::PodSpec& pod, cluster::NodeIndex n, const cluster::ClusterState& cluster) {
  const std::int64_t split = std::max(1, cluster.node(n).max_pods_per_gpu);
  Amount a{healthy_devices(cluster, n) * split, pod.gpu_count};
  for (const std::int32_t pods : cluster.gpu_pods(n)) a.requested += pods;
  return a;
}

// MIG mixed: the node's instances of the profile; each one is a whole device.
Amount mig_instances(const ScoredResource& resource, const cluster::PodSpec& pod, cluster::NodeIndex n,
                     const cluster::ClusterState& cluster) {
  const cluster::NodeSpec& node = cluster.node(n);
  const cluster::MigGeometry* geometry = cluster::mig_geometry(cluster.catalog().at(node.gpu_model).id);
  const auto shape = geometry == nullptr ? std::nullopt : geometry->shape(resource.mig_profile);
  if (!shape) return {};
  const cluster::GpuSet devices = cluster.devices_of_class(n, static_cast<std::uint8_t>(1 + *shape));
  const auto unallocated = cluster.gpu_milli_unallocated(n);
  Amount a{0, pod.gpu_count};
  for (int d = 0; d < node.gpu_count; ++d) {
    if (!devices.contains(d)) continue;
    a.allocatable += cluster.gpu_healthy(n, d) ? 1 : 0;
    a.requested += unallocated[static_cast<std::size_t>(d)] < cluster::kMilliPerGpu ? 1 : 0;
  }
  return a;
}

}  // namespace

std::string resource_names_modelled() {
  return "cpu, memory, nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-<profile>, nvidia.com/gpumem, "
         "nvidia.com/gpumem-percentage, nvidia.com/gpucores";
}

std::optional<ScoredResource> resolve_resource(const std::string& name, std::int64_t weight, std::string& why) {
  ScoredResource r{name, ResourceKind::kCpu, "", weight};
  if (name == "cpu") return r;
  r.kind = ResourceKind::kMemory;
  if (name == "memory") return r;
  r.kind = ResourceKind::kNvidiaGpu;
  if (name == "nvidia.com/gpu") return r;
  r.kind = ResourceKind::kNvidiaGpuShared;
  if (name == "nvidia.com/gpu.shared") return r;
  r.kind = ResourceKind::kUnadvertised;
  if (name == "nvidia.com/gpumem" || name == "nvidia.com/gpumem-percentage" || name == "nvidia.com/gpucores") return r;
  if (name.starts_with(kMigPrefix)) {
    r.kind = ResourceKind::kMigProfile;
    r.mig_profile = name.substr(kMigPrefix.size());
    if (cluster::is_mig_profile_name(r.mig_profile)) return r;
    why = fmt::format("no MIG-capable GPU has a profile '{}' (profiles: {})", r.mig_profile, cluster::all_mig_profile_names());
    return std::nullopt;
  }
  if (name == "aliyun.com/gpu-mem" || name == "aliyun.com/gpu-count") {
    why = fmt::format("gpusim does not count gpushare's {} per node for scoring (it tracks each GPU's share, not GiB)", name);
  } else if (name == "ephemeral-storage" || name.starts_with("hugepages-") || name == "pods") {
    why = fmt::format("gpusim's nodes have no {} to count", name);
  } else {
    why = fmt::format("gpusim models no resource '{}' (it models {})", name, resource_names_modelled());
  }
  return std::nullopt;
}

bool pod_asks(const ScoredResource& resource, const cluster::PodSpec& pod, Requests requests) {
  switch (resource.kind) {
    case ResourceKind::kCpu:
      return requests == Requests::kNonZero || pod.cpu_milli > 0;
    case ResourceKind::kMemory:
      return requests == Requests::kNonZero || pod.memory_mib > 0;
    case ResourceKind::kNvidiaGpu:
      return asks_nvidia_gpu(pod);
    case ResourceKind::kNvidiaGpuShared:
      return pod.wants_gpu() && pod_resource(pod) == GpuResource::kNvidiaGpuShared;
    case ResourceKind::kMigProfile:
      return pod.wants_gpu() && pod_resource(pod) == GpuResource::kMigProfile &&
             pod.constraints->mig_profile == resource.mig_profile;
    case ResourceKind::kUnadvertised:
      return false;
  }
  return false;
}

cluster::CpuMemory scored_requests(const cluster::PodSpec& pod, Requests requests) {
  return requests == Requests::kActual ? cluster::CpuMemory{pod.cpu_milli, pod.memory_mib} : cluster::nonzero_requests(pod);
}

Amount device_amount_on_node(const ScoredResource& resource, const cluster::PodSpec& pod, cluster::NodeIndex n,
                             const cluster::ClusterState& cluster, Requests requests) {
  const cluster::NodeSpec& node = cluster.node(n);
  switch (resource.kind) {
    case ResourceKind::kCpu:
    case ResourceKind::kMemory:
      return amount_on_node(resource, pod, scored_requests(pod, requests), n, cluster, requests);
    case ResourceKind::kNvidiaGpu:
      // An extended resource the pod does not ask is left out (upstream returns (0, 0)).
      if (!asks_nvidia_gpu(pod) || node.gpu_count == 0) return {};
      if (node.gpu_resource == GpuResource::kAny || node.gpu_resource == GpuResource::kNvidiaGpu) {
        return devices_in_milli(pod, n, cluster);
      }
      return node.gpu_resource == GpuResource::kHamiVgpu ? hami_vgpus(pod, n, cluster) : Amount{};
    case ResourceKind::kNvidiaGpuShared:
      if (!pod_asks(resource, pod, requests) || node.gpu_resource != GpuResource::kNvidiaGpuShared) return {};
      return devices_in_milli(pod, n, cluster);
    case ResourceKind::kMigProfile:
      if (!pod_asks(resource, pod, requests) || node.gpu_resource != GpuResource::kMigProfile) return {};
      return mig_instances(resource, pod, n, cluster);
    case ResourceKind::kUnadvertised:
      return {};
  }
  return {};
}

}  // namespace gpusim::policy
