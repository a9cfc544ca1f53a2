#pragma once
// The reader of `kind: Node` objects: metadata (name, labels, gpusim's annotations), spec (taints,
// unschedulable) and status (allocatable, else capacity) become a cluster::NodeSpec and its
// traces::NodeKube; what was defaulted or ignored is tallied over the file and stated in notes.
// GPUs (count, model, memory, device-plugin model) are read by node_gpus.hpp. Field rules:
// traces/README.md, "Nodes (kind: Node)", after the Node API (k8s.io/api core/v1 types.go,
// NodeSpec and NodeStatus).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "traces/k8s/manifest_objects.hpp"
#include "traces/k8s/object_fields.hpp"
#include "traces/workload.hpp"

namespace gpusim::traces::k8s {

// Why a node without gpusim.io/device-plugin got the device-plugin model it got.
enum class PluginDefault : std::uint8_t { kAlpha, kNvidia, kGfdOnly, kGpushare };

// What the notes say about the nodes of one file.
struct NodeTally {
  std::array<int, 4> plugin_defaults{};   // by PluginDefault
  std::map<std::string, int> unmodelled;  // resource name -> nodes
  std::vector<std::string> cordoned;      // spec.unschedulable nodes, tainted as Kubernetes does
  int default_max_pods = 0;               // nodes without status.allocatable.pods (or capacity)
  // GPU nodes whose GPU memory came from aliyun.com/gpu-mem, HAMi's registration, GFD's label, the
  // catalog; and how many notes name a node's own figure.
  std::array<int, 4> memory_sources{};
  int memory_notes = 0;
  std::vector<std::string> count_notes;   // advertised count differs from GFD's
};

// A resource of status.allocatable, else of status.capacity (Kubernetes' allocatable is what
// the scheduler uses; a node without it is one that reports only capacity).
struct NodeResources {
  std::optional<Fields> allocatable;
  std::optional<Fields> capacity;
  std::optional<Fields> status;
  const Fields* owner;

  const Fields* holder(const std::string& name) const {
    if (allocatable && allocatable->has(name)) return &*allocatable;
    if (capacity && capacity->has(name)) return &*capacity;
    return nullptr;
  }
};

// One Node object (its kind checked by the caller).
std::pair<cluster::NodeSpec, NodeKube> read_node(const Object& object, const cluster::GpuCatalog& catalog,
                                                 NodeTally& tally);

// The notes of a file's nodes, appended to spec.notes.
void node_notes(const NodeTally& tally, ClusterSpec& spec);

}  // namespace gpusim::traces::k8s
