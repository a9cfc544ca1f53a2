#include "sim/k8s/plugin_config_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "sim/core/status.hpp"
#include "sim/k8s/device_plugin_config.hpp"
#include "sim/k8s/hami_settings.hpp"
#include "sim/k8s/mig_parted_config.hpp"
#include "sim/k8s/vgpu_dm_config.hpp"

namespace gpusim::k8s {

PluginConfigKind plugin_config_kind(const YAML::Node& doc) {
  if (is_device_plugin_config(doc)) return PluginConfigKind::kNvidiaDevicePlugin;
  if (is_hami_device_config(doc)) return PluginConfigKind::kHamiDeviceConfig;
  if (is_hami_values(doc)) return PluginConfigKind::kHamiValues;
  if (is_mig_parted_config(doc)) return PluginConfigKind::kMigParted;
  if (is_vgpu_dm_config(doc)) return PluginConfigKind::kVgpuDeviceManager;
  return PluginConfigKind::kNone;
}

const char* to_string(PluginConfigKind kind) {
  switch (kind) {
    case PluginConfigKind::kNone: return "none";
    case PluginConfigKind::kNvidiaDevicePlugin: return "NVIDIA device-plugin config";
    case PluginConfigKind::kHamiValues: return "HAMi Helm values";
    case PluginConfigKind::kHamiDeviceConfig: return "HAMi device config";
    case PluginConfigKind::kMigParted: return "NVIDIA mig-parted config";
    case PluginConfigKind::kVgpuDeviceManager: return "NVIDIA vGPU Device Manager config";
  }
  return "none";
}

std::vector<std::string> read_plugin_config(PluginConfigKind kind, const std::string& text, const std::string& source,
                                            const std::vector<cluster::NodeSpec>& nodes, KubeSettings& settings) {
  if (kind == PluginConfigKind::kNvidiaDevicePlugin) {
    if (settings.device_plugin_configs) {
      throw core::InputError(fmt::format("{}: a second NVIDIA device-plugin config ({} came first): the plugin reads one "
                                         "(put several in one ConfigMap, chosen per node by the label "
                                         "nvidia.com/device-plugin.config)", source, settings.device_plugin_configs->file));
    }
    auto configs = std::make_shared<DevicePluginConfigs>(parse_device_plugin_config(text, source));
    std::vector<std::string> notes = configs->notes;
    settings.device_plugin_configs = std::move(configs);
    return notes;
  }
  if (kind == PluginConfigKind::kHamiValues || kind == PluginConfigKind::kHamiDeviceConfig) {
    if (settings.hami_settings) {
      throw core::InputError(fmt::format("{}: a second file of HAMi's settings ({} came first): give one (its Helm values, "
                                         "or the ConfigMaps they render)", source, settings.hami_settings->file));
    }
    auto hami = std::make_shared<HamiSettings>(kind == PluginConfigKind::kHamiValues ? parse_hami_values(text, source)
                                                                                    : parse_hami_device_config(text, source));
    std::vector<std::string> notes = hami->notes;
    for (const HamiNodeOverride& o : hami->nodes) {
      if (std::none_of(nodes.begin(), nodes.end(), [&](const cluster::NodeSpec& n) { return n.name == o.name; })) {
        notes.push_back(fmt::format("line {}: nodeconfig names node '{}', which the cluster does not have; HAMi ignores "
                                    "such entries, and so does gpusim", o.line, o.name));
      }
    }
    settings.hami_settings = std::move(hami);
    return notes;
  }
  if (kind == PluginConfigKind::kMigParted) {
    if (settings.mig_parted_configs) {
      throw core::InputError(fmt::format("{}: a second mig-parted config ({} came first): the MIG manager reads one",
                                         source, settings.mig_parted_configs->file));
    }
    auto configs = std::make_shared<MigPartedConfigs>(parse_mig_parted_config(text, source));
    std::vector<std::string> notes = configs->notes;
    settings.mig_parted_configs = std::move(configs);
    return notes;
  }
  if (kind == PluginConfigKind::kVgpuDeviceManager) {
    if (settings.vgpu_dm_configs) {
      throw core::InputError(fmt::format("{}: a second vGPU Device Manager config ({} came first): the manager reads one",
                                         source, settings.vgpu_dm_configs->file));
    }
    auto configs = std::make_shared<VgpuDmConfigs>(parse_vgpu_dm_config(text, source));
    std::vector<std::string> notes = configs->notes;
    settings.vgpu_dm_configs = std::move(configs);
    return notes;
  }
  throw core::InputError(fmt::format("{}: not a device-plugin configuration gpusim reads", source));
}

}  // namespace gpusim::k8s
