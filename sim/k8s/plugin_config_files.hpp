#pragma once
// `gpusim run --config FILE`: a real project's configuration file, told by its content, read into
// the Kubernetes-layer settings. The kinds here are the device plugins' (NVIDIA's device-plugin
// config or ConfigMap, its MIG manager's mig-parted config; HAMi's Helm values, device ConfigMap or
// device config); the command line
// dispatches other kinds (scheduler configurations) to their own readers.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

enum class PluginConfigKind : std::uint8_t {
  kNone,              // none of these
  kNvidiaDevicePlugin,  // device_plugin_config.hpp
  kHamiValues,        // hami_settings.hpp: parse_hami_values
  kHamiDeviceConfig,  // hami_settings.hpp: parse_hami_device_config
  kMigParted,         // mig_parted_config.hpp
  kVgpuDeviceManager, // vgpu_dm_config.hpp
};

PluginConfigKind plugin_config_kind(const YAML::Node& doc);
const char* to_string(PluginConfigKind kind);

// Reads `text` (from `source`, of kind `kind`, not kNone) into `settings`: a second file for the
// same plugin is refused (one deployment each). Returns what the reader accepted without modelling
// it, one sentence each; a HAMi nodeconfig naming no node of `nodes` adds one. Throws core::InputError.
std::vector<std::string> read_plugin_config(PluginConfigKind kind, const std::string& text, const std::string& source,
                                            const std::vector<cluster::NodeSpec>& nodes, KubeSettings& settings);

}  // namespace gpusim::k8s
