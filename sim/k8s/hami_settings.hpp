#pragma once
// HAMi's settings as its users write them (github.com/Project-HAMi/HAMi at 4707fb02): the Helm
// chart's values (charts/hami/values.yaml), or the ConfigMaps the chart renders from them: the
// scheduler's device config (`hami-scheduler-device`, data `device-config.yaml`, whose `nvidia`
// section is pkg/device/nvidia NvidiaConfig) and the device plugin's per-node config
// (`hami-device-plugin`, data `config.json`: `nodeconfig`, pkg/device/nvidia DevicePluginConfigs).
// They give the HamiConfig of every node --kube serves with HAMi (devicePlugin hami-vgpu); which
// nodes those are stays gpusim's --kube choice (sim/k8s/README.md, "HAMi's settings").
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

// One `nodeconfig` entry: the device plugin on node `name` registers its GPUs with these instead.
struct HamiNodeOverride {
  std::string name;
  int line = 1;
  std::optional<int> device_split_count;
  std::optional<double> device_memory_scaling;
};

struct HamiSettings {
  std::string file;
  // The scheduler's node and GPU policies and the device config's split count and memory scaling
  // (fraction_asks_cores is gpusim's own --kube `hami.fractionAsks`: how a trace fraction is asked).
  HamiConfig config;
  std::vector<HamiNodeOverride> nodes;  // in file order; a name listed twice: the later wins, as in HAMi
  // What was accepted but does not change the simulation, one sentence each, for the user.
  std::vector<std::string> notes;

  // The HamiConfig of node `node`, keeping `fraction_asks_cores`.
  HamiConfig for_node(const std::string& node, bool fraction_asks_cores) const;
};

// A values file of HAMi's chart: a mapping whose every top-level key is one of the chart's (and
// not a --kube file: its `devicePlugin` has no `model`).
bool is_hami_values(const YAML::Node& doc);
// The scheduler's device config (top-level `nvidia`, among HAMi's vendor sections), or a ConfigMap
// whose data entries are `device-config.yaml` and/or `config.json`.
bool is_hami_device_config(const YAML::Node& doc);

// Throws core::InputError `file:line: field: why` for keys the chart (or HAMi's config structs)
// does not have, bad values, and settings gpusim cannot model that would change the results.
HamiSettings parse_hami_values(const std::string& text, const std::string& source);
HamiSettings parse_hami_device_config(const std::string& text, const std::string& source);

}  // namespace gpusim::k8s
