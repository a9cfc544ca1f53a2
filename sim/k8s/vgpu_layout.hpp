#pragma once
// What the vGPU Device Manager's config makes of a kubevirt-vgpu node: the vGPUs (mdevs) each of
// its GPUs is divided into, checked as the manager and the driver check them, and the resource
// KubeVirt's GPU device plugin advertises each type as (sim/k8s/notes/vgpu-sources.md, §1-2).
#include <string>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/k8s/vgpu_dm_config.hpp"

namespace gpusim::k8s {

// The extended resource a vGPU type is advertised as, without "nvidia.com/": the device plugin
// takes the driver's mdev type name ("NVIDIA A10-12Q" on current drivers) with whitespace as '_'.
std::string vgpu_resource(const std::string& type);

// Sets chosen.vgpu_devices from the config the node's label selects. `from` says where the node's
// model came from, for messages. Throws core::InputError for what the manager or the driver
// refuses (a type the GPU does not support, more than its maximum, sizes that need mixed-size
// mode or do not place, GPU instances that do not fit) and for what gpusim does not model
// (media-extension MIG profiles, GPUs of one node given different vGPUs).
void resolve_vgpu(NodeSetup& chosen, const VgpuDmConfigs& configs, const cluster::NodeSpec& node, const std::string& from,
                  const cluster::GpuCatalog& catalog);

// Numbers the vGPU types over all nodes (the device class of each vGPU device: 1 + the type's
// rank by name), at most 7 types in one run. Throws core::InputError past that.
void number_vgpu_types(std::vector<NodeSetup>& setup);

// The type names in use, by device class (index 0 unused).
std::vector<std::string> vgpu_types_by_class(const std::vector<NodeSetup>& setup);

}  // namespace gpusim::k8s
