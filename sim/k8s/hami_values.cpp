// HAMi's Helm values (charts/hami/values.yaml at 4707fb02): what the chart passes to the scheduler
// (templates/scheduler/deployment.yaml: --node-scheduler-policy, --gpu-scheduler-policy), the device
// config it renders (templates/scheduler/device-configmap.yaml) and the device plugin's node
// config (templates/device-plugin/configmap.yaml).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <initializer_list>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/k8s/hami_chart_keys.hpp"
#include "sim/k8s/hami_device_config.hpp"
#include "sim/k8s/hami_settings.hpp"
#include "traces/k8s/config_map.hpp"

namespace gpusim::k8s {
namespace {

bool given(const YAML::Node& node) { return node && !node.IsNull(); }

// The settings gpusim reads, or checks against the chart's default; every other setting of the
// chart is accepted and listed in a note.
constexpr std::initializer_list<const char*> kRead = {
    "scheduler.defaultSchedulerPolicy.nodeSchedulerPolicy", "scheduler.defaultSchedulerPolicy.gpuSchedulerPolicy",
    "devicePlugin.deviceSplitCount", "devicePlugin.deviceMemoryScaling", "devicePlugin.deviceCoreScaling",
    "devicePlugin.preConfiguredDeviceMemory", "devicePlugin.disablecorelimit", "devicePlugin.migStrategy",
    "devicePlugin.enabled", "devicePlugin.nodeConfiguration.config", "devicePlugin.nodeConfiguration.externalConfigName",
    "devices.nvidia.gpuCorePolicy", "resourceName", "resourceMem", "resourceMemPercentage", "resourceCores",
    "device-config.content"};

bool is_read(const std::string& path) {
  for (const char* read : kRead) {
    if (path == read) return true;
  }
  return false;
}

// Every key of the document against the chart's settings; the accepted settings gpusim does not
// read are collected for the note.
void check_keys(const io::YamlFields& r, const YAML::Node& map, const std::string& path, std::vector<std::string>& unread) {
  for (const auto& entry : map) {
    const std::string key = r.text(entry.first, path.empty() ? "values" : path);
    const std::string at = path.empty() ? key : path + "." + key;
    switch (hami_chart_key(at)) {
      case ChartKey::kUnknown:
        r.fail(entry.first, at, "unknown setting: HAMi's chart (charts/hami/values.yaml) has none such");
      case ChartKey::kMap:
        if (entry.second.IsMap()) check_keys(r, entry.second, at, unread);
        else if (given(entry.second)) r.fail(entry.second, at, "expected a mapping of the chart's settings");
        break;
      case ChartKey::kSetting:
        if (!is_read(at)) unread.push_back(at);
        break;
    }
  }
}

std::string policy(const io::YamlFields& r, const YAML::Node& node, const std::string& field,
                   std::initializer_list<const char*> modelled, const std::string& others) {
  const std::string value = r.text(node, field);
  for (const char* m : modelled) {
    if (value == m) return value;
  }
  r.fail(node, field, fmt::format("'{}': gpusim models {}{}", value, fmt::join(modelled, ", "), others));
}

void require(const io::YamlFields& r, const YAML::Node& node, const std::string& field, std::initializer_list<const char*> values,
             const std::string& why) {
  if (!given(node)) return;
  const std::string value = r.text(node, field);
  for (const char* v : values) {
    if (value == v) return;
  }
  r.fail(node, field, fmt::format("'{}': gpusim models {} only ({})", value, fmt::join(values, " or "), why));
}

}  // namespace

bool is_hami_values(const YAML::Node& doc) {
  try {
    if (!doc.IsMap() || doc.size() == 0) return false;
    for (const auto& entry : doc) {
      if (!entry.first.IsScalar() || hami_chart_key(entry.first.Scalar()) == ChartKey::kUnknown) return false;
    }
    // gpusim's --kube file has a top-level devicePlugin too, with a model.
    const YAML::Node plugin = doc["devicePlugin"];
    return !plugin || (plugin.IsMap() && !plugin["model"]);
  } catch (const YAML::Exception&) {
    return false;
  }
}

HamiSettings parse_hami_values(const std::string& text, const std::string& source) {
  HamiSettings settings;
  settings.file = source;
  const io::YamlFields r(source);
  try {
    const YAML::Node doc = YAML::Load(text);
    if (!given(doc)) return settings;  // the chart's defaults throughout
    if (!doc.IsMap()) r.fail(doc, "values", "expected a mapping of the chart's settings");
    std::vector<std::string> unread;
    check_keys(r, doc, "", unread);
    const YAML::Node scheduler = doc["scheduler"];
    const YAML::Node plugin = doc["devicePlugin"];
    // A path walk through const nodes: yaml-cpp's non-const operator[] would add the missing keys.
    const auto at = [](const YAML::Node& parent, std::initializer_list<const char*> path) {
      YAML::Node node = parent;
      for (const char* key : path) {
        if (!given(node) || !node.IsMap()) return YAML::Node();
        const YAML::Node& current = node;
        const YAML::Node child = current[key];  // invalid when absent: reset() would throw on it
        if (!child) return YAML::Node();
        node.reset(child);
      }
      return node;
    };
    if (const YAML::Node node = at(scheduler, {"defaultSchedulerPolicy", "nodeSchedulerPolicy"}); given(node)) {
      const std::string p = policy(r, node, "scheduler.defaultSchedulerPolicy.nodeSchedulerPolicy", {"binpack", "spread"}, "");
      settings.config.node_policy = p == "spread" ? HamiNodePolicy::kSpread : HamiNodePolicy::kBinpack;
    }
    if (const YAML::Node node = at(scheduler, {"defaultSchedulerPolicy", "gpuSchedulerPolicy"}); given(node)) {
      const std::string p = policy(r, node, "scheduler.defaultSchedulerPolicy.gpuSchedulerPolicy",
                                   {"spread", "binpack", "topology-aware"}, " (not numa, mutex or comma-separated chains)");
      settings.config.gpu_policy = p == "binpack"          ? HamiGpuPolicy::kBinpack
                                   : p == "topology-aware" ? HamiGpuPolicy::kTopologyAware
                                                           : HamiGpuPolicy::kSpread;
    }
    const YAML::Node content = at(doc, {"device-config", "content"});
    const bool own_device_config = given(content) && !r.text(content, "device-config.content").empty();
    if (own_device_config) {
      // It replaces the device config the chart would render from devicePlugin's values.
      const traces::k8s::ConfigMapEntry file = traces::k8s::embedded_file("content", content, r, text, "device-config.content");
      hami::read_device_config(r, traces::k8s::load_entry(file), "device-config.content", settings);
      std::vector<std::string> unused;
      for (const char* name : {"deviceSplitCount", "deviceMemoryScaling", "deviceCoreScaling", "preConfiguredDeviceMemory"}) {
        if (given(at(plugin, {name}))) unused.push_back(std::string("devicePlugin.") + name);
      }
      if (!unused.empty()) {
        settings.notes.push_back(fmt::format("{}: not used: device-config.content replaces the device config the chart "
                                             "renders from them", fmt::join(unused, ", ")));
      }
    } else {
      if (const YAML::Node node = at(plugin, {"deviceSplitCount"}); given(node)) {
        settings.config.device_split_count = static_cast<int>(r.integer(node, "devicePlugin.deviceSplitCount", 1, 1000));
      }
      // Below 1 a GPU would register less memory than it has; gpusim models oversubscription only.
      if (const YAML::Node node = at(plugin, {"deviceMemoryScaling"}); given(node)) {
        settings.config.device_memory_scaling = r.number(node, "devicePlugin.deviceMemoryScaling", 1, 100);
      }
      require(r, at(plugin, {"deviceCoreScaling"}), "devicePlugin.deviceCoreScaling", {"1"}, "each GPU registers 100 cores");
      require(r, at(plugin, {"preConfiguredDeviceMemory"}), "devicePlugin.preConfiguredDeviceMemory", {"0"},
              "every GPU registers the memory it reports");
      require(r, at(doc, {"devices", "nvidia", "gpuCorePolicy"}), "devices.nvidia.gpuCorePolicy", {"default"},
              "libvgpu.so enforces gpucores");
      const std::string names = "the resources gpusim's manifests ask by these names";
      require(r, doc["resourceName"], "resourceName", {"nvidia.com/gpu"}, names);
      require(r, doc["resourceMem"], "resourceMem", {"nvidia.com/gpumem"}, names);
      require(r, doc["resourceMemPercentage"], "resourceMemPercentage", {"nvidia.com/gpumem-percentage"}, names);
      require(r, doc["resourceCores"], "resourceCores", {"nvidia.com/gpucores"}, names);
    }
    require(r, at(plugin, {"disablecorelimit"}), "devicePlugin.disablecorelimit", {"false"}, "libvgpu.so enforces gpucores");
    require(r, at(plugin, {"enabled"}), "devicePlugin.enabled", {"true"}, "HAMi nodes register their GPUs through its plugin");
    require(r, at(plugin, {"migStrategy"}), "devicePlugin.migStrategy", {"none", "single", "mixed"}, "its values");
    if (const YAML::Node node = at(plugin, {"nodeConfiguration", "externalConfigName"}); given(node)) {
      const std::string name = r.text(node, "devicePlugin.nodeConfiguration.externalConfigName");
      if (!name.empty()) {
        r.fail(node, "devicePlugin.nodeConfiguration.externalConfigName",
               fmt::format("'{}' names a ConfigMap gpusim does not see: pass that ConfigMap (data config.json) instead of "
                           "this values file", name));
      }
    }
    if (const YAML::Node node = at(plugin, {"nodeConfiguration", "config"}); given(node)) {
      const traces::k8s::ConfigMapEntry file =
          traces::k8s::embedded_file("config", node, r, text, "devicePlugin.nodeConfiguration.config");
      const YAML::Node json = traces::k8s::load_entry(file);
      if (given(json)) hami::read_node_config(r, json, "devicePlugin.nodeConfiguration.config", settings);
    }
    if (!unread.empty()) {
      // A whole values file has over a hundred: the first few name the kind.
      constexpr std::size_t kShown = 8;
      const std::size_t shown = std::min(unread.size(), kShown);
      settings.notes.push_back(fmt::format(
          "{} chart setting{} accepted that do not change the simulation (deployment details: images, resources, "
          "tolerations, webhook, other vendors' devices): {}{}", unread.size(), unread.size() == 1 ? "" : "s",
          fmt::join(unread.begin(), unread.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
          unread.size() > shown ? fmt::format(" and {} more", unread.size() - shown) : ""));
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  return settings;
}

}  // namespace gpusim::k8s
