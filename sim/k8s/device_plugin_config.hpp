#pragma once
// NVIDIA's k8s-device-plugin configuration file (api/config/v1 of github.com/NVIDIA/k8s-device-plugin,
// read at commit 1b826acc6, v0.20): `version: v1`, `flags` (migStrategy and the plugin's other
// options), `sharing.timeSlicing` / `sharing.mps`. Either one bare file, which every node served by
// NVIDIA's plugin uses, or a ConfigMap of named configs, of which the plugin's config-manager
// gives each node the one its label `nvidia.com/device-plugin.config` names (sim/k8s/README.md,
// "NVIDIA's device-plugin config").
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

// The node label the config-manager reads (cmd/config-manager: DefaultConfigLabel).
inline constexpr const char* kDevicePluginConfigLabel = "nvidia.com/device-plugin.config";

// One config, as far as gpusim models it.
struct DevicePluginConfig {
  std::string name;  // its key in the ConfigMap; "" for a bare file
  int line = 1;      // where it starts in the file
  // flags.migStrategy: nullopt for `none` (the plugin's default), else single or mixed.
  std::optional<MigStrategy> mig_strategy;
  // kDevicePlugin (no sharing), kTimeSlicing or kMps, with the replicas of nvidia.com/gpu.
  DevicePluginModel sharing = DevicePluginModel::kDevicePlugin;
  SharingConfig sharing_config;
};

// How the config-manager picks a config for a node without the label (cmd/config-manager:
// DEFAULT_CONFIG, then FALLBACK_STRATEGIES). gpusim follows the plugin's Helm chart: no default
// config, fallbacks `named` (a config named "default") then `single` (the only config).
struct DevicePluginConfigs {
  std::string file;
  std::string config_map;                  // metadata.name of a ConfigMap; "" for a bare file
  std::vector<DevicePluginConfig> configs;  // a bare file: exactly one, named ""
  // What was accepted but does not change the simulation (flags gpusim does not model, fields the
  // plugin itself ignores), one sentence each, for the user.
  std::vector<std::string> notes;

  // The config `node` gets. Throws core::InputError when its label names no config, or when it
  // has no label and the fallbacks find none (the plugin's init container would fail there).
  const DevicePluginConfig& for_node(const cluster::NodeSpec& node) const;
};

// Whether a YAML document is a device-plugin config (top-level keys among version, flags,
// resources, sharing, imex, with `version: v1` or `sharing`/`flags` present) or a ConfigMap whose
// every data entry is one.
bool is_device_plugin_config(const YAML::Node& doc);

// Throws core::InputError, `file:line: field: why`, for input the plugin refuses and for what gpusim
// cannot model (each message says which).
DevicePluginConfigs parse_device_plugin_config(const std::string& text, const std::string& source);
DevicePluginConfigs load_device_plugin_config(const std::filesystem::path& path);

}  // namespace gpusim::k8s
