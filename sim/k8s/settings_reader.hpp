#pragma once
// Reads a --kube YAML file into KubeSettings (schema and defaults: sim/k8s/README.md). Nodes are
// named, so the cluster's node names are needed; unknown fields and values are errors with
// `file:line: field: reason`.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

KubeSettings load_kube_settings(const std::filesystem::path& path, const std::vector<cluster::NodeSpec>& nodes);
KubeSettings parse_kube_settings(const std::string& text, const std::string& source,
                                 const std::vector<cluster::NodeSpec>& nodes);

// "scheduler-assigned", "device-plugin", "accelerators-1.6", "alpha-1.3"; none for other text.
std::optional<DevicePluginModel> device_plugin_model(std::string_view name);
// "first-fit", "preferred".
std::optional<DeviceChoice> device_choice(std::string_view name);

}  // namespace gpusim::k8s
