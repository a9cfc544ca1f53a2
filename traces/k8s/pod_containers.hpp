#pragma once
// A pod spec's containers and init containers: names (RFC 1123 labels, unique in the pod), cpu
// and memory (requests default to limits and may not exceed them), the one GPU resource the pod
// asks (nvidia.com/gpu, alpha.kubernetes.io/nvidia-gpu, nvidia.com/gpu.shared or a MIG profile's
// nvidia.com/mig-<profile>; an extended resource's request must equal its limit) and what it asks
// of a sharing device plugin beside it (HAMi's nvidia.com/gpumem, gpumem-percentage and gpucores;
// gpushare's aliyun.com/gpu-mem). Rules: traces/README.md, "Kubernetes manifests"; the sharing
// plugins' asks: sim/k8s/README.md, "Sharing plugins' own resources".
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/cluster/pod_constraints.hpp"
#include "traces/k8s/object_fields.hpp"

namespace gpusim::traces::k8s {

// gpushare's GiB of one GPU are bounded far below HAMi's int32 of MiB.
inline constexpr std::int64_t kMaxGpuMemoryGib = 1 << 21;

// Which GPU resource name the pod's containers ask, and where it was first asked.
struct GpuName {
  cluster::GpuResource resource = cluster::GpuResource::kAny;
  std::string path;
};

// A container's cpu and memory for Kubernetes' QoS class.
struct QosFacts {
  bool any = false;        // some non-zero cpu or memory request or limit
  bool guaranteed = true;  // every container: cpu and memory limits, requests equal to them
};

// What one container asks of a sharing device plugin beside its GPU count.
struct ShareFacts {
  std::string path;          // the container's resources.limits, for messages
  int line = 0;
  std::int32_t gpus = 0;     // nvidia.com/gpu
  bool hami_asked = false;   // nvidia.com/gpumem, gpumem-percentage or gpucores given
  cluster::HamiAsk hami;     // with HAMi's defaults filled in
  std::int64_t gpu_memory_gib = 0;  // aliyun.com/gpu-mem
  bool init = false;
};

// What a pod's containers ask, gathered container by container.
struct PodFacts {
  GpuName gpu;
  QosFacts qos;
  std::vector<std::string> unmodelled;  // resource names, once each
  std::unordered_map<std::string, int> container_names;
  std::vector<ShareFacts> shares;  // per container, init containers first
  std::string mig_profile;         // nvidia.com/mig-<profile>, once asked
  std::string vgpu_resource;       // nvidia.com/NVIDIA_<type> without nvidia.com/, once asked
};

// The container at `node` (its path, e.g. spec.containers[1]); `init` for spec.initContainers.
cluster::Container read_container(const Where& where, const YAML::Node& node, const std::string& path, bool init,
                                  PodFacts& facts);

}  // namespace gpusim::traces::k8s
