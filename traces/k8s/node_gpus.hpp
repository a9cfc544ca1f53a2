#pragma once
// A Node object's GPUs: the count it advertises (nvidia.com/gpu from NVIDIA's device plugin,
// alpha.kubernetes.io/nvidia-gpu from Kubernetes 1.6's kubelet, aliyun.com/gpu-count from
// gpushare's) or GPU feature discovery's label, the device-plugin model that follows, the GPU
// model (gpusim.io/gpu-model, GFD's product label, 1.6's name label) and each GPU's memory
// (gpushare's aliyun.com/gpu-mem, HAMi's registration annotation, GFD's memory label, else the
// catalog's). Rules: traces/README.md, "Nodes (kind: Node)".
#include <cstdint>
#include <optional>
#include <string>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "traces/k8s/node_reader.hpp"
#include "traces/k8s/object_meta.hpp"

namespace gpusim::traces::k8s {

struct GpuFacts {
  std::optional<std::int64_t> advertised;  // from allocatable/capacity
  cluster::GpuResource advertised_as = cluster::GpuResource::kAny;
  std::optional<std::int64_t> gfd_count;  // nvidia.com/gpu.count label
};

// What the node advertises and GFD counts; one GPU resource per node.
GpuFacts gpu_facts(const NodeResources& r, const Where& where, const Meta& meta, NodeTally& tally);

// Which device-plugin model a node without gpusim.io/device-plugin gets, and checks that an
// explicit one fits the resource the node advertises.
void settle_device_plugin(const Where& where, const Meta& meta, const GpuFacts& gpus, NodeKube& kube,
                          NodeTally& tally);

// The node's physical GPUs: what it advertises, else GFD's count. A 1.3 kubelet flag exposes one
// GPU whatever the node has, so an alpha-1.3 node's physical count is GFD's when given.
std::int32_t node_gpu_count(const std::string& name, const GpuFacts& gpus, const NodeKube& kube, NodeTally& tally);

// The GPU resource the node advertises, else the one its device-plugin model advertises.
cluster::GpuResource node_gpu_resource(const GpuFacts& gpus, const NodeKube& kube);

// The node's GPU model from gpusim.io/gpu-model (an exact catalog id or alias), GFD's product
// label or 1.6's GPU-name label; the ones given must agree.
cluster::GpuModelId node_gpu_model(const Where& where, const Meta& meta, const Fields& metadata,
                                   const cluster::GpuCatalog& catalog);

// Each GPU's memory as the node reports it: gpushare's aliyun.com/gpu-mem over its GPU count (the
// extender's own division, whole GiB), HAMi's registration, or GFD's nvidia.com/gpu.memory; else
// the catalog's (node.gpu_memory_mib stays 0). Which one was used is counted for a note, and a
// figure other than the catalog's is named.
void read_gpu_memory(const NodeResources& r, const Where& where, const Meta& meta, cluster::NodeSpec& node,
                     const cluster::GpuCatalog& catalog, NodeTally& tally);

}  // namespace gpusim::traces::k8s
