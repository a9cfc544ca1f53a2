#include "sim/k8s/plugin_config_apply.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/status.hpp"

namespace gpusim::k8s {
namespace {

// An MPS server takes at most 48 clients, 16 below compute capability 7.5
// (cmd/mps-control-daemon/mps/device.go: maxClients, isAtLeastVolta compares with 7.5).
int mps_max_clients(const std::string& gpu) {
  for (const char* older : {"k80", "p100", "p40", "v100"}) {
    if (gpu.starts_with(older)) return 16;
  }
  return 48;
}

std::string config_name(const DevicePluginConfigs& configs, const DevicePluginConfig& c) {
  if (configs.config_map.empty()) return fmt::format("device-plugin config {}", configs.file);
  return fmt::format("device-plugin config '{}' ({}:{})", c.name, configs.file, c.line);
}

}  // namespace

bool served_by_nvidia_plugin(DevicePluginModel model) {
  return model == DevicePluginModel::kDevicePlugin || model == DevicePluginModel::kTimeSlicing ||
         model == DevicePluginModel::kMps || model == DevicePluginModel::kMig;
}

void apply_device_plugin_config(const DevicePluginConfigs& configs, const MigPartedConfigs* mig_parted,
                                const cluster::NodeSpec& node, const cluster::GpuCatalog& catalog, const std::string& from,
                                NodeSetup& chosen, MigConfig& mig, std::string& layout_from) {
  // The plugin's DaemonSet runs on GPU nodes only (its chart's affinity to NVIDIA's PCI vendor id).
  if (node.gpu_count == 0) return;
  const DevicePluginConfig& c = configs.for_node(node);
  const std::string where = fmt::format("node {}: {}", node.name, config_name(configs, c));
  if (mig_parted != nullptr) {
    const MigPartedConfig* config = mig_parted->for_node(node);
    std::vector<std::string> layout;
    if (config != nullptr && node.gpu_count > 0) layout = mig_parted->layout(*config, node, catalog.at(node.gpu_model).id);
    if (!layout.empty()) {
      if (!mig.layout.empty()) {
        throw core::InputError(fmt::format("node {}: mig-parted config '{}' ({}) gives its MIG layout, and {} gives one too: "
                                           "keep it in the mig-parted config alone", node.name, config->name,
                                           mig_parted->file, from));
      }
      mig.layout = std::move(layout);
      layout_from = fmt::format("mig-parted config '{}' ({}:{})", config->name, mig_parted->file, config->line);
    }
  }
  // The --kube what-if knob that no real config has (MPS clients' SM share) stays --kube's.
  SharingConfig kube_sharing = chosen.sharing;
  kube_sharing.mps_active_thread_percentage = 0;
  if (!(kube_sharing == SharingConfig{})) {
    throw core::InputError(fmt::format("{} gives its sharing, and {} gives sharing settings too: keep them in the "
                                       "device-plugin config alone", where, from));
  }
  if (!mig.layout.empty()) {
    // Its GPUs have MIG on (the --kube layout): the plugin advertises their instances under single or mixed.
    if (!c.mig_strategy) {
      throw core::InputError(fmt::format("{} says migStrategy none, but {} cuts its GPUs into MIG instances: the plugin "
                                         "would not advertise them; set flags.migStrategy single or mixed", where, layout_from));
    }
    if (c.sharing != DevicePluginModel::kDevicePlugin) {
      throw core::InputError(fmt::format("{} shares GPUs ({}), but {} cuts them into MIG instances: gpusim does not model "
                                         "replicas of MIG instances", where, to_string(c.sharing), layout_from));
    }
    if (mig.strategy_given && mig.strategy != *c.mig_strategy) {
      throw core::InputError(fmt::format("{} says migStrategy {}, but {} says mig.strategy {}: keep the strategy in the "
                                         "device-plugin config alone", where, to_string(*c.mig_strategy), from,
                                         to_string(mig.strategy)));
    }
    if (*c.mig_strategy == MigStrategy::kSingle &&
        std::any_of(mig.layout.begin(), mig.layout.end(), [&](const std::string& p) { return p != mig.layout.front(); })) {
      throw core::InputError(fmt::format("{} says migStrategy single, but {} cuts each GPU into different profiles: the "
                                         "plugin's single strategy needs one profile throughout; use mixed", where, layout_from));
    }
    if (mig.dynamic && *c.mig_strategy != MigStrategy::kMixed) {
      throw core::InputError(fmt::format("{} says migStrategy {}; dynamic MIG ({}) changes which profiles a GPU offers and "
                                         "needs mixed", where, to_string(*c.mig_strategy), from));
    }
    mig.strategy = *c.mig_strategy;
    chosen.model = DevicePluginModel::kMig;
    return;
  }
  // MIG off: single and mixed advertise whole GPUs as nvidia.com/gpu, as none does.
  const double thread_percentage = chosen.sharing.mps_active_thread_percentage;
  chosen.model = c.sharing;
  chosen.sharing = c.sharing_config;
  chosen.sharing.mps_active_thread_percentage = thread_percentage;
  if (chosen.model == DevicePluginModel::kMps && node.gpu_count > 0) {
    const std::string& gpu = catalog.at(node.gpu_model).id;
    if (chosen.sharing.replicas > mps_max_clients(gpu)) {
      throw core::InputError(fmt::format("{}: {} MPS replicas per GPU, but an MPS server on a {} takes at most {} clients "
                                         "(the plugin's mps-control-daemon refuses the config)",
                                         where, chosen.sharing.replicas, gpu, mps_max_clients(gpu)));
    }
  }
}

void apply_hami_settings(const HamiSettings& settings, const cluster::NodeSpec& node, const std::string& from,
                         NodeSetup& chosen) {
  HamiConfig kube = chosen.hami;
  kube.fraction_asks_cores = true;
  if (!(kube == HamiConfig{})) {
    throw core::InputError(fmt::format("node {}: HAMi's settings ({}) give its policies, split count and memory scaling, "
                                       "and {} gives HAMi settings too: keep only fractionAsks in --kube",
                                       node.name, settings.file, from));
  }
  chosen.hami = settings.for_node(node.name, chosen.hami.fraction_asks_cores);
}

}  // namespace gpusim::k8s
