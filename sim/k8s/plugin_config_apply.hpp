#pragma once
// What the real configuration files make of a node (resolve_node_setup calls these once the
// node's model is known from its pool, the --kube defaults or its Node object):
//  - a node served by NVIDIA's device plugin (--kube model device-plugin, time-slicing, mps or mig)
//    gets the device-plugin config its label selects, which decides among those four as the plugin
//    does: sharing.mps or sharing.timeSlicing replicate its GPUs, flags.migStrategy advertises the
//    MIG instances its --kube layout cuts them into;
//  - a HAMi node (hami-vgpu) gets HAMi's settings (node and GPU policies, split count, memory
//    scaling; per node where HAMi's nodeconfig names it).
// A --kube file that gives the same parameters too is refused: they have one place.
#include <string>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "sim/k8s/device_plugin_config.hpp"
#include "sim/k8s/hami_settings.hpp"
#include "sim/k8s/mig_parted_config.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

// Whether NVIDIA's device plugin serves a node of this model (its config applies there).
bool served_by_nvidia_plugin(DevicePluginModel model);

// `chosen` is the node's setup so far and `mig` the --kube MIG settings of its pool (an empty
// layout: its GPUs have MIG off). With a mig-parted config (may be null) the layout is the one the
// node's nvidia.com/mig.config label selects, and `layout_from` says so for later messages.
// Sets the model, the sharing and, for a MIG node, mig.strategy and mig.layout. `from` says where
// the node's model came from, for messages. Throws core::InputError.
void apply_device_plugin_config(const DevicePluginConfigs& configs, const MigPartedConfigs* mig_parted,
                                const cluster::NodeSpec& node, const cluster::GpuCatalog& catalog, const std::string& from,
                                NodeSetup& chosen, MigConfig& mig, std::string& layout_from);

// `chosen` is a hami-vgpu node's setup; keeps its --kube fractionAsks.
void apply_hami_settings(const HamiSettings& settings, const cluster::NodeSpec& node, const std::string& from,
                         NodeSetup& chosen);

}  // namespace gpusim::k8s
