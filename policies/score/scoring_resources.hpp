#pragma once
// The resources kube-scheduler's resource scores may name (NodeResourcesFitArgs'
// scoringStrategy.resources, NodeResourcesBalancedAllocationArgs' resources), as gpusim models
// them: for a pod and a node, the node's allocatable amount and what its pods request with this
// pod added, in kube-scheduler's terms (pkg/scheduler/framework/plugins/noderesources/
// resource_allocation.go, calculateResourceAllocatableRequest).
//
// Upstream leaves a resource out of a node's score when the node has none of it allocatable, and an
// extended resource (nvidia.com/gpu, ...) also when the pod asks none of it; both read here as
// allocatable 0. The names gpusim models (resource_names_modelled()):
// - cpu, memory: the node's capacity; requested with kube-scheduler's non-zero defaults (100m,
//   200 MiB for a container that asks none) or as asked (Requests::kActual, BalancedAllocation).
// - nvidia.com/gpu: nodes whose device plugin advertises it. A device plugin's GPUs (and
//   time-slicing or MPS replicas, MIG single instances) count as devices; where pods share GPUs by
//   gpu-milli (scheduler-assigned nodes, the FGD traces), a pod asking gpu_milli of k GPUs requests
//   k x gpu_milli / 1000 GPUs, counted in milli (allocatable: 1000 per device; requested: the milli
//   allocated on the node plus the pod's): for whole-GPU pods that is upstream's device count
//   exactly. HAMi nodes advertise devices x deviceSplitCount vGPUs; requested: the vGPUs handed out
//   (a pod takes one per GPU). Unhealthy devices are not allocatable (the device plugin withdraws
//   them) but pods on them still count as requested.
// - nvidia.com/gpu.shared: NVIDIA's time-slicing or MPS replicas with renameByDefault.
// - nvidia.com/mig-<profile>: MIG mixed nodes' instances of that profile.
// - nvidia.com/gpumem, nvidia.com/gpumem-percentage, nvidia.com/gpucores: HAMi's asks, which no
//   node advertises (HAMi's device plugin registers only nvidia.com/gpu; its extender accounts for
//   the rest), so upstream always leaves them out; accepted, they change nothing.
// Other names are refused: gpusim's nodes have no such resource to count (ephemeral-storage,
// hugepages-*, other extended resources), or gpusim does not track it per node in the unit the
// resource is advertised in (gpushare's aliyun.com/gpu-mem, GiB).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/nonzero_requests.hpp"

namespace gpusim::policy {

enum class ResourceKind : std::uint8_t {
  kCpu,
  kMemory,
  kNvidiaGpu,
  kNvidiaGpuShared,
  kMigProfile,    // nvidia.com/mig-<profile>
  kUnadvertised,  // HAMi's gpumem, gpumem-percentage, gpucores: no node has them
};

// One entry of a resources list: its name as written, what gpusim counts for it and its weight.
struct ScoredResource {
  std::string name;
  ResourceKind kind = ResourceKind::kCpu;
  std::string mig_profile;  // kMigProfile: e.g. "1g.10gb"
  std::int64_t weight = 1;
};

// What kube-scheduler's scores take for CPU and memory: NodeInfo.NonZeroRequested plus the pod's
// non-zero requests (NodeResourcesFit), or NodeInfo.Requested plus its requests as asked
// (NodeResourcesBalancedAllocation, useRequested).
enum class Requests : std::uint8_t { kNonZero, kActual };

// The resource `name` names, or none with `why` set to a sentence saying why gpusim refuses it.
std::optional<ScoredResource> resolve_resource(const std::string& name, std::int64_t weight, std::string& why);
// For messages: the names gpusim models.
std::string resource_names_modelled();

struct Amount {
  std::int64_t allocatable = 0;  // 0: left out of the node's score
  std::int64_t requested = 0;    // the node's pods plus this pod
};

// The pod's CPU and memory requests as the scores take them (computed once per cycle).
cluster::CpuMemory scored_requests(const cluster::PodSpec& pod, Requests requests);

// The same for the GPU resources (every kind but cpu and memory).
Amount device_amount_on_node(const ScoredResource& resource, const cluster::PodSpec& pod, cluster::NodeIndex n,
                             const cluster::ClusterState& cluster, Requests requests);

// kube-scheduler's (allocatable, requested) of `resource` on node n with `pod` added; `asked` is
// scored_requests(pod, requests). Inline: it runs for every feasible node and resource.
inline Amount amount_on_node(const ScoredResource& resource, const cluster::PodSpec& pod, cluster::CpuMemory asked,
                             cluster::NodeIndex n, const cluster::ClusterState& cluster, Requests requests) {
  const cluster::NodeSpec& node = cluster.node(n);
  const bool nonzero = requests == Requests::kNonZero;
  if (resource.kind == ResourceKind::kCpu) {
    return {node.cpu_milli, (nonzero ? cluster.nonzero_cpu_requested(n) : node.cpu_milli - cluster.cpu_free(n)) + asked.cpu_milli};
  }
  if (resource.kind == ResourceKind::kMemory) {
    return {node.memory_mib,
            (nonzero ? cluster.nonzero_memory_requested(n) : node.memory_mib - cluster.memory_free(n)) + asked.memory_mib};
  }
  return device_amount_on_node(resource, pod, n, cluster, requests);
}

// The pod's request of `resource` alone (0: it asks none), for BalancedAllocation's best-effort
// test; GPU resources count the GPUs it asks of the kind that resource is.
bool pod_asks(const ScoredResource& resource, const cluster::PodSpec& pod, Requests requests);

}  // namespace gpusim::policy
