#pragma once
// A node's fixed description: capacity, labels, taints and its GPUs (all of one model, as in
// the traces gpusim replays).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/gpu_set.hpp"
#include "sim/cluster/pod_constraints.hpp"

namespace gpusim::cluster {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // "NoSchedule", "PreferNoSchedule", "NoExecute"
};

// The kubelet's default maxPods.
inline constexpr std::int32_t kDefaultMaxPods = 110;

struct NodeSpec {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int32_t gpu_count = 0;
  GpuModelId gpu_model = 0;  // meaningful only when gpu_count > 0
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<Taint> taints;
  // Its device plugin advertises a count (nvidia.com/gpu is an integer resource), so a pod asking
  // a fraction of a GPU cannot run here. Set for the scheduler's view of replay clusters.
  bool whole_gpus_only = false;
  // The GPU resource its device plugin advertises (replay); kAny serves any GPU pod.
  GpuResource gpu_resource = GpuResource::kAny;
  // A pod gets at most one of its GPUs (gpushare: one GPU index per pod).
  bool one_gpu_per_pod = false;
  // At most this many pods on one GPU (HAMi's deviceSplitCount); 0: no limit. A GPU that holds
  // as many reads 0 free to the scheduler.
  std::int32_t max_pods_per_gpu = 0;
  // Per device, the extended resource it is advertised as when the node has several (MIG's mixed
  // strategy: 1 + the instance's shape, sim/cluster/mig.hpp); empty: one resource for all. A pod
  // then gets devices of its own `device_class` only.
  std::vector<std::uint8_t> device_class{};
  // The resource each device class is advertised as, by class, where classes are not MIG shapes
  // (KubeVirt's "nvidia.com/NVIDIA_<type>", one per vGPU type; shared by the nodes); null: MIG's.
  std::shared_ptr<const std::vector<std::string>> device_class_resources{};
  // RDMA bandwidth it offers, in percent of one NIC (100 per NIC); pods reserve PodSpec::rdma_percent.
  std::int32_t rdma_percent = 0;
  // status.allocatable.pods: at most this many pods bound at once (NodeResourcesFit's "Too many
  // pods"); node lists that give no figure get the kubelet's default maxPods, 110; 0: no limit.
  std::int32_t max_pods = kDefaultMaxPods;
  // Each GPU's memory as the node itself reports it (MiB; 0: the catalog's nominal size). From a
  // Node object: gpushare's aliyun.com/gpu-mem over aliyun.com/gpu-count, HAMi's registration
  // annotation, or GPU feature discovery's nvidia.com/gpu.memory label, in that order.
  std::int64_t gpu_memory_mib = 0;
  // gpu_memory_mib is what HAMi registered (its deviceMemoryScaling already applied).
  bool gpu_memory_registered = false;
};

}  // namespace gpusim::cluster
