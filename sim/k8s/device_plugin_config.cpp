#include "sim/k8s/device_plugin_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <set>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "traces/k8s/config_map.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::k8s {
namespace {

// The fields of api/config/v1 Config.
constexpr std::initializer_list<const char*> kConfigFields = {"version", "flags", "resources", "sharing", "imex"};

bool given(const YAML::Node& node) { return node && !node.IsNull(); }

bool one_of(const std::string& value, std::initializer_list<const char*> allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return value == a; });
}

// Field-by-field reading of one config; `prefix` is "" for a bare file and "data.<name>" for a
// ConfigMap's entry, so that fields read "data.any.sharing.timeSlicing.resources[0].replicas".
class ConfigReader : public io::YamlFields {
 public:
  ConfigReader(std::string file, std::string prefix) : io::YamlFields(std::move(file)), prefix_(std::move(prefix)) {}

  std::string at(const std::string& field) const {
    if (prefix_.empty()) return field.empty() ? "config" : field;
    return field.empty() ? prefix_ : prefix_ + "." + field;
  }
  [[noreturn]] void refuse(const YAML::Node& node, const std::string& field, const std::string& why) const {
    fail(node, at(field), why);
  }
  std::string word(const YAML::Node& node, const std::string& field, std::initializer_list<const char*> allowed) const {
    const std::string value = text(node, at(field));
    if (!one_of(value, allowed)) refuse(node, field, fmt::format("'{}' is not one of {}", value, fmt::join(allowed, ", ")));
    return value;
  }
  bool flag(const YAML::Node& node, const std::string& field) const { return boolean(node, at(field)); }
  void known(const YAML::Node& map, const std::string& field, std::initializer_list<const char*> fields) const {
    // A bare file's top-level keys read as themselves ("sharing", not "config.sharing").
    only(map, prefix_.empty() && field.empty() ? "" : at(field), fields);
  }
  std::string any_text(const YAML::Node& node, const std::string& field) const { return text(node, at(field)); }
  std::int64_t whole(const YAML::Node& node, const std::string& field, std::int64_t low, std::int64_t high) const {
    return integer(node, at(field), low, high);
  }

  // Fields accepted because the plugin has them, but which change nothing gpusim simulates.
  void unmodelled(const std::string& field) { unmodelled_.push_back(field); }
  const std::vector<std::string>& unmodelled_fields() const { return unmodelled_; }

 private:
  std::string prefix_;
  std::vector<std::string> unmodelled_;
};

// flags (api/config/v1/flags.go, CommandLineFlags; values checked as cmd/nvidia-device-plugin's
// validateFlags checks them).
void read_flags(ConfigReader& r, const YAML::Node& flags, DevicePluginConfig& c) {
  r.known(flags, "flags", {"migStrategy", "failOnInitError", "mpsRoot", "nvidiaDriverRoot", "nvidiaDevRoot",
                           "gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI",
                           "deviceDiscoveryStrategy", "plugin", "gfd"});
  if (given(flags["migStrategy"])) {
    const std::string strategy = r.word(flags["migStrategy"], "flags.migStrategy", {"none", "single", "mixed"});
    if (strategy == "single") c.mig_strategy = MigStrategy::kSingle;
    if (strategy == "mixed") c.mig_strategy = MigStrategy::kMixed;
  }
  for (const char* name : {"failOnInitError", "gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI"}) {
    if (!given(flags[name])) continue;
    r.flag(flags[name], std::string("flags.") + name);
    r.unmodelled(std::string("flags.") + name);
  }
  for (const char* name : {"mpsRoot", "nvidiaDriverRoot", "nvidiaDevRoot"}) {
    if (!given(flags[name])) continue;
    r.any_text(flags[name], std::string("flags.") + name);
    r.unmodelled(std::string("flags.") + name);
  }
  if (given(flags["deviceDiscoveryStrategy"])) {
    r.word(flags["deviceDiscoveryStrategy"], "flags.deviceDiscoveryStrategy", {"auto", "nvml", "tegra"});
    r.unmodelled("flags.deviceDiscoveryStrategy");
  }
  if (const YAML::Node plugin = flags["plugin"]; given(plugin)) {
    r.known(plugin, "flags.plugin", {"passDeviceSpecs", "deviceListStrategy", "deviceIDStrategy", "cdiAnnotationPrefix",
                                     "nvidiaCTKPath", "containerDriverRoot", "sharedDevicesAllocationPolicy"});
    if (given(plugin["passDeviceSpecs"])) {
      r.flag(plugin["passDeviceSpecs"], "flags.plugin.passDeviceSpecs");
      r.unmodelled("flags.plugin.passDeviceSpecs");
    }
    // One strategy or a list of them (deviceListStrategyFlag).
    if (const YAML::Node list = plugin["deviceListStrategy"]; given(list)) {
      const std::initializer_list<const char*> strategies = {"envvar", "volume-mounts", "cdi-annotations", "cdi-cri"};
      if (list.IsSequence()) {
        for (std::size_t i = 0; i < list.size(); ++i) {
          r.word(list[i], fmt::format("flags.plugin.deviceListStrategy[{}]", i), strategies);
        }
      } else {
        r.word(list, "flags.plugin.deviceListStrategy", strategies);
      }
      r.unmodelled("flags.plugin.deviceListStrategy");
    }
    if (given(plugin["deviceIDStrategy"])) {
      r.word(plugin["deviceIDStrategy"], "flags.plugin.deviceIDStrategy", {"uuid", "index"});
      r.unmodelled("flags.plugin.deviceIDStrategy");
    }
    for (const char* name : {"cdiAnnotationPrefix", "nvidiaCTKPath", "containerDriverRoot"}) {
      if (!given(plugin[name])) continue;
      r.any_text(plugin[name], std::string("flags.plugin.") + name);
      r.unmodelled(std::string("flags.plugin.") + name);
    }
    // Which replicas (and MIG devices) GetPreferredAllocation offers (internal/rm/nvml_manager.go).
    if (given(plugin["sharedDevicesAllocationPolicy"])) {
      const std::string policy =
          r.word(plugin["sharedDevicesAllocationPolicy"], "flags.plugin.sharedDevicesAllocationPolicy", {"distributed", "packed"});
      c.sharing_config.policy = policy == "packed" ? ReplicaPolicy::kPacked : ReplicaPolicy::kDistributed;
    }
  }
  // GPU feature discovery's own options: labels, not devices.
  if (const YAML::Node gfd = flags["gfd"]; given(gfd)) {
    r.known(gfd, "flags.gfd", {"oneshot", "noTimestamp", "sleepInterval", "outputFile", "machineTypeFile"});
    for (const char* name : {"oneshot", "noTimestamp"}) {
      if (given(gfd[name])) r.flag(gfd[name], std::string("flags.gfd.") + name);
    }
    for (const char* name : {"outputFile", "machineTypeFile"}) {
      if (given(gfd[name])) r.any_text(gfd[name], std::string("flags.gfd.") + name);
    }
    // A Go duration, "infinite", or a number of nanoseconds (duration.go).
    if (const YAML::Node sleep = gfd["sleepInterval"]; given(sleep)) {
      const std::string value = r.any_text(sleep, "flags.gfd.sleepInterval");
      double nanoseconds = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), nanoseconds);
      const bool number = error == std::errc{} && end == value.data() + value.size();
      if (!number && value != "infinite" && !traces::parse_go_duration(value).value) {
        r.refuse(sleep, "flags.gfd.sleepInterval", fmt::format("'{}' is not a duration (e.g. 60s) or infinite", value));
      }
    }
    r.unmodelled("flags.gfd");
  }
}

// A resource name as NewResourceName builds it: nvidia.com/ is added to a bare name.
std::string full_resource_name(const std::string& name) {
  return name.starts_with("nvidia.com/") ? name : "nvidia.com/" + name;
}

// sharing.timeSlicing / sharing.mps (replicas.go: ReplicatedResources, ReplicatedResource).
void read_replicated(ConfigReader& r, const YAML::Node& map, const std::string& field, bool mps, DevicePluginConfig& c,
                     std::vector<std::string>& notes) {
  r.known(map, field, {"renameByDefault", "failRequestsGreaterThanOne", "resources"});
  SharingConfig& s = c.sharing_config;
  if (given(map["renameByDefault"])) s.rename_by_default = r.flag(map["renameByDefault"], field + ".renameByDefault");
  // The plugin forces it on for MPS unless the config says otherwise (config.go, since v0.20.0).
  s.fail_requests_greater_than_one = mps;
  if (given(map["failRequestsGreaterThanOne"])) {
    s.fail_requests_greater_than_one = r.flag(map["failRequestsGreaterThanOne"], field + ".failRequestsGreaterThanOne");
    if (mps && !s.fail_requests_greater_than_one) {
      r.refuse(map["failRequestsGreaterThanOne"], field + ".failRequestsGreaterThanOne",
               "false lets a pod take several MPS replicas (the plugin allows it since v0.20.0); gpusim models MPS "
               "clients of one replica each, as the plugin's default (true)");
    }
  }
  const YAML::Node resources = map["resources"];
  if (!given(resources)) r.refuse(map, field + ".resources", "missing: the plugin refuses sharing without resources");
  if (!resources.IsSequence() || resources.size() == 0) {
    r.refuse(resources, field + ".resources", "expected a list of at least one resource (name, replicas)");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const YAML::Node item = resources[i];
    const std::string where = fmt::format("{}.resources[{}]", field, i);
    r.known(item, where, {"name", "rename", "devices", "replicas"});
    if (!given(item["name"])) r.refuse(item, where + ".name", "missing (the plugin: no resource name specified)");
    if (!given(item["replicas"])) r.refuse(item, where + ".replicas", "missing (the plugin: no replicas specified)");
    const std::string name = full_resource_name(r.any_text(item["name"], where + ".name"));
    if (name.size() > 63) r.refuse(item["name"], where + ".name", fmt::format("'{}' is longer than 63 characters", name));
    if (name.starts_with("nvidia.com/mig-")) {
      r.refuse(item["name"], where + ".name",
               fmt::format("'{}': gpusim does not model sharing MIG instances (replicas of a MIG device)", name));
    }
    if (name != "nvidia.com/gpu") {
      r.refuse(item["name"], where + ".name",
               fmt::format("'{}' is not a resource the plugin advertises (nvidia.com/gpu, or nvidia.com/mig-<profile> under "
                           "migStrategy mixed); it would replicate nothing", name));
    }
    if (!names.insert(name).second) r.refuse(item["name"], where + ".name", fmt::format("'{}' is listed twice", name));
    // The plugin asks at least 2 (replicas.go); a node's devices are at most 128 (checked per node).
    // MPS: an MPS server takes at most 48 clients (16 before compute capability 7.5; checked per node).
    s.replicas = static_cast<int>(r.whole(item["replicas"], where + ".replicas", 2, mps ? 48 : cluster::kMaxGpusPerNode));
    if (given(item["rename"])) {
      const std::string rename = full_resource_name(r.any_text(item["rename"], where + ".rename"));
      if (rename != name + ".shared" || !s.rename_by_default) {
        notes.push_back(fmt::format("{}.rename ('{}'): the plugin ignores a rename other than renameByDefault's and warns "
                                    "(DisableResourceNamingInConfig); so does gpusim", where, rename));
      }
    }
    if (const YAML::Node devices = item["devices"]; given(devices)) {
      // "all", a count > 0, or a list of indices or UUIDs: the plugin validates it, then replicates every device.
      if (devices.IsScalar() && devices.Scalar() != "all") r.whole(devices, where + ".devices", 1, 1'000'000);
      if (!devices.IsScalar() && !devices.IsSequence()) r.refuse(devices, where + ".devices", "expected all, a count or a list of devices");
      if (!(devices.IsScalar() && devices.Scalar() == "all")) {
        notes.push_back(fmt::format("{}.devices: the plugin replicates every GPU whatever this says and warns "
                                    "(DisableResourceNamingInConfig); so does gpusim", where));
      }
    }
  }
  c.sharing = mps ? DevicePluginModel::kMps : DevicePluginModel::kTimeSlicing;
}

void read_resources(ConfigReader& r, const YAML::Node& map, std::vector<std::string>& notes) {
  r.known(map, "resources", {"gpus", "mig"});
  for (const char* list : {"gpus", "mig"}) {
    const YAML::Node items = map[list];
    if (!given(items)) continue;
    if (!items.IsSequence()) r.refuse(items, std::string("resources.") + list, "expected a list of {pattern, name}");
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string where = fmt::format("resources.{}[{}]", list, i);
      r.known(items[i], where, {"pattern", "name"});
      for (const char* required : {"pattern", "name"}) {
        if (!given(items[i][required])) r.refuse(items[i], where + "." + required, "missing (the plugin requires it)");
        r.any_text(items[i][required], where + "." + required);
      }
    }
  }
  notes.push_back("resources: the plugin ignores custom resource names and warns (DisableResourceNamingInConfig); so does gpusim");
}

DevicePluginConfig read_config(ConfigReader& r, const YAML::Node& doc, std::vector<std::string>& notes) {
  DevicePluginConfig c;
  if (!doc.IsMap()) r.refuse(doc, "", "expected a mapping (version, flags, sharing)");
  r.known(doc, "", kConfigFields);
  c.line = doc.Mark().line + 1;
  // An absent version is v1 (config.go, parseConfigFrom).
  if (given(doc["version"]) && r.any_text(doc["version"], "version") != "v1") {
    r.refuse(doc["version"], "version", fmt::format("unknown version '{}' (the plugin reads v1)", doc["version"].Scalar()));
  }
  if (given(doc["flags"])) read_flags(r, doc["flags"], c);
  if (given(doc["resources"])) read_resources(r, doc["resources"], notes);
  if (const YAML::Node imex = doc["imex"]; given(imex)) {
    r.known(imex, "imex", {"channelIDs", "required"});
    if (given(imex["required"])) r.flag(imex["required"], "imex.required");
    if (const YAML::Node ids = imex["channelIDs"]; given(ids)) {
      // AssertChannelIDsValid: [] or [0].
      if (!ids.IsSequence() || ids.size() > 1) r.refuse(ids, "imex.channelIDs", "must be [] or [0] (the plugin's check)");
      if (ids.size() == 1) r.whole(ids[0], "imex.channelIDs[0]", 0, 0);
    }
    r.unmodelled("imex");
  }
  if (const YAML::Node sharing = doc["sharing"]; given(sharing)) {
    r.known(sharing, "sharing", {"timeSlicing", "mps"});
    const YAML::Node ts = sharing["timeSlicing"];
    const YAML::Node mps = sharing["mps"];
    if (given(ts) && given(mps)) {
      r.refuse(mps, "sharing.mps", "give one of sharing.timeSlicing and sharing.mps (the plugin would use mps and ignore timeSlicing)");
    }
    if (given(ts)) read_replicated(r, ts, "sharing.timeSlicing", false, c, notes);
    if (given(mps)) {
      read_replicated(r, mps, "sharing.mps", true, c, notes);
      // cmd/nvidia-device-plugin validateFlags.
      if (c.mig_strategy == MigStrategy::kMixed) r.refuse(mps, "sharing.mps", "the plugin refuses MPS with migStrategy mixed");
    }
  }
  if (c.sharing == DevicePluginModel::kDevicePlugin && given(doc["flags"]) && given(doc["flags"]["plugin"]) &&
      given(doc["flags"]["plugin"]["sharedDevicesAllocationPolicy"]) && !c.mig_strategy) {
    notes.push_back("flags.plugin.sharedDevicesAllocationPolicy: applies to replicas and MIG devices only; whole GPUs are "
                    "allocated as deviceChoice says");
  }
  return c;
}

std::string fields_note(const std::vector<std::string>& fields) {
  return fmt::format("{}: accepted; {} not change which devices pods get, so the simulation is the same",
                     fmt::join(fields, ", "), fields.size() == 1 ? "it does" : "they do");
}

}  // namespace

bool is_device_plugin_config(const YAML::Node& doc) {
  const auto bare = [](const YAML::Node& d) {
    if (!d.IsMap() || d.size() == 0) return false;
    for (const auto& entry : d) {
      if (!entry.first.IsScalar() || !one_of(entry.first.Scalar(), kConfigFields)) return false;
    }
    return true;
  };
  try {
    if (bare(doc)) return true;
    if (!traces::k8s::is_config_map(doc) || !doc["data"] || !doc["data"].IsMap()) return false;
    for (const auto& entry : doc["data"]) {
      if (!entry.second.IsScalar()) continue;
      try {
        if (bare(YAML::Load(entry.second.Scalar()))) return true;
      } catch (const YAML::Exception&) {
      }
    }
  } catch (const YAML::Exception&) {
  }
  return false;
}

const DevicePluginConfig& DevicePluginConfigs::for_node(const cluster::NodeSpec& node) const {
  if (config_map.empty()) return configs.front();
  const auto named = [&](const std::string& name) -> const DevicePluginConfig* {
    for (const DevicePluginConfig& c : configs) {
      if (c.name == name) return &c;
    }
    return nullptr;
  };
  for (const auto& [key, value] : node.labels) {
    if (key != kDevicePluginConfigLabel) continue;
    // An empty value is no choice (the config-manager treats it as an unset label).
    if (value.empty()) break;
    if (const DevicePluginConfig* c = named(value)) return *c;
    std::vector<std::string> names;
    for (const DevicePluginConfig& c : configs) names.push_back(c.name);
    throw core::InputError(fmt::format("node {}: its label {}={} names no config of {} (ConfigMap {}: {}); the plugin's "
                                       "config-manager fails there",
                                       node.name, kDevicePluginConfigLabel, value, file, config_map, fmt::join(names, ", ")));
  }
  if (const DevicePluginConfig* c = named("default")) return *c;
  if (configs.size() == 1) return configs.front();
  throw core::InputError(fmt::format(
      "node {}: no label {} and {} (ConfigMap {}) has {} configs, none named 'default': the plugin's config-manager (its "
      "Helm chart's fallbacks: named, single) finds no config; label the node or name one config 'default'",
      node.name, kDevicePluginConfigLabel, file, config_map, configs.size()));
}

DevicePluginConfigs parse_device_plugin_config(const std::string& text, const std::string& source) {
  DevicePluginConfigs out;
  out.file = source;
  try {
    const YAML::Node doc = YAML::Load(text);
    const io::YamlFields top(source);
    if (!doc || doc.IsNull()) {
      throw core::InputError(fmt::format("{}:1: empty: expected a device-plugin config (version: v1, ...) or a ConfigMap of them", source));
    }
    if (traces::k8s::is_config_map(doc)) {
      const traces::k8s::ConfigMap map = traces::k8s::read_config_map(doc, top, text);
      out.config_map = map.name;
      if (map.data.empty()) top.fail(doc, "data", "missing: the ConfigMap holds no config");
      for (const traces::k8s::ConfigMapEntry& entry : map.data) {
        ConfigReader r(source, "data." + entry.key);
        const YAML::Node config = traces::k8s::load_entry(entry);
        if (!given(config)) r.refuse(doc["data"][entry.key], "", "empty config");
        std::vector<std::string> notes;
        DevicePluginConfig c = read_config(r, config, notes);
        c.name = entry.key;
        c.line = entry.first_line;
        if (!r.unmodelled_fields().empty()) notes.push_back(fields_note(r.unmodelled_fields()));
        for (const std::string& note : notes) out.notes.push_back(fmt::format("config '{}': {}", entry.key, note));
        out.configs.push_back(std::move(c));
      }
    } else {
      ConfigReader r(source, "");
      std::vector<std::string> notes;
      out.configs.push_back(read_config(r, doc, notes));
      if (!r.unmodelled_fields().empty()) notes.push_back(fields_note(r.unmodelled_fields()));
      out.notes = std::move(notes);
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  return out;
}

DevicePluginConfigs load_device_plugin_config(const std::filesystem::path& path) {
  return parse_device_plugin_config(io::read_file(path, "device-plugin config"), path.string());
}

}  // namespace gpusim::k8s
