#include "sim/k8s/hami_device_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "sim/core/status.hpp"
#include "traces/k8s/config_map.hpp"

namespace gpusim::k8s {
namespace hami {
namespace {

bool given(const YAML::Node& node) { return node && !node.IsNull(); }

std::string join_field(const std::string& prefix, const std::string& field) {
  if (prefix.empty()) return field;
  return field.empty() ? prefix : prefix + "." + field;
}

// The vendor sections of pkg/scheduler/config Config; gpusim models NVIDIA's alone.
constexpr std::initializer_list<const char*> kVendorSections = {"nvidia", "metax", "hygon", "cambricon", "mthreads",
                                                                "iluvatars", "enflame", "kunlun", "awsneuron", "amd",
                                                                "vastai", "biren", "vnpus"};

bool is_vendor_section(const std::string& key) {
  return std::any_of(kVendorSections.begin(), kVendorSections.end(), [&](const char* s) { return key == s; });
}

// A setting gpusim models only at HAMi's default: any other value would change what pods get.
void require_default(const io::YamlFields& r, const YAML::Node& node, const std::string& field, const std::string& expected,
                     const std::string& why) {
  if (!given(node)) return;
  const std::string value = r.text(node, field);
  if (value != expected) r.fail(node, field, fmt::format("'{}': gpusim models {} only ({})", value, expected, why));
}

}  // namespace

void read_device_config(const io::YamlFields& r, const YAML::Node& doc, const std::string& field, HamiSettings& settings) {
  const std::string top = field.empty() ? "device-config" : field;
  if (!doc.IsMap()) r.fail(doc, top, "expected a mapping of vendor sections (nvidia, ...)");
  std::vector<std::string> others;
  for (const auto& entry : doc) {
    const std::string key = r.text(entry.first, top);
    if (!is_vendor_section(key)) {
      r.fail(entry.first, join_field(field, key), fmt::format("unknown section (HAMi's: {})", fmt::join(kVendorSections, ", ")));
    }
    if (key != "nvidia") others.push_back(key);
  }
  if (!others.empty()) {
    settings.notes.push_back(fmt::format("{}: accepted; gpusim models NVIDIA GPUs only", fmt::join(others, ", ")));
  }
  const YAML::Node nv = doc["nvidia"];
  const std::string at = join_field(field, "nvidia");
  if (!given(nv)) r.fail(doc, at, "missing: gpusim reads HAMi's NVIDIA settings from it");
  // pkg/device/nvidia NvidiaConfig and its inline NodeDefaultConfig.
  r.only(nv, at, {"resourceCountName", "resourceMemoryName", "resourceCoreName", "resourceMemoryPercentageName",
                  "resourcePriorityName", "overwriteEnv", "defaultMemory", "defaultCores", "defaultGPUNum",
                  "memoryFactor", "disableCoreLimit", "migProfileAllowlist", "gpuCorePolicy", "runtimeClassName",
                  "deviceSplitCount", "deviceMemoryScaling", "deviceCoreScaling", "preConfiguredDeviceMemory",
                  "libCudaLogLevel", "enableNumaTopology"});
  // The plugin dereferences both (register.go); the chart always writes them.
  for (const char* required : {"deviceSplitCount", "deviceMemoryScaling"}) {
    if (!given(nv[required])) {
      r.fail(nv, join_field(at, required), "missing: HAMi's device plugin needs it (the chart writes devicePlugin's value)");
    }
  }
  settings.config.device_split_count =
      static_cast<int>(r.integer(nv["deviceSplitCount"], join_field(at, "deviceSplitCount"), 1, 1000));
  // Below 1 a GPU would register less memory than it has; gpusim models oversubscription only.
  settings.config.device_memory_scaling = r.number(nv["deviceMemoryScaling"], join_field(at, "deviceMemoryScaling"), 1, 100);
  const std::string names = "the resources gpusim's manifests ask by these names";
  require_default(r, nv["resourceCountName"], join_field(at, "resourceCountName"), "nvidia.com/gpu", names);
  require_default(r, nv["resourceMemoryName"], join_field(at, "resourceMemoryName"), "nvidia.com/gpumem", names);
  require_default(r, nv["resourceCoreName"], join_field(at, "resourceCoreName"), "nvidia.com/gpucores", names);
  require_default(r, nv["resourceMemoryPercentageName"], join_field(at, "resourceMemoryPercentageName"),
                  "nvidia.com/gpumem-percentage", names);
  const std::string whole = "a pod asking nvidia.com/gpu alone takes a whole GPU's memory and cores";
  require_default(r, nv["defaultMemory"], join_field(at, "defaultMemory"), "0", whole);
  require_default(r, nv["defaultCores"], join_field(at, "defaultCores"), "0", whole);
  require_default(r, nv["defaultGPUNum"], join_field(at, "defaultGPUNum"), "1", "a pod asking gpumem or gpucores alone gets one GPU");
  require_default(r, nv["memoryFactor"], join_field(at, "memoryFactor"), "1", "gpumem asks in MiB");
  require_default(r, nv["deviceCoreScaling"], join_field(at, "deviceCoreScaling"), "1", "each GPU registers 100 cores");
  require_default(r, nv["preConfiguredDeviceMemory"], join_field(at, "preConfiguredDeviceMemory"), "0",
                  "every GPU registers the memory it reports");
  if (given(nv["disableCoreLimit"]) && r.boolean(nv["disableCoreLimit"], join_field(at, "disableCoreLimit"))) {
    r.fail(nv["disableCoreLimit"], join_field(at, "disableCoreLimit"), "true: gpusim models HAMi's gpucores limit in force");
  }
  require_default(r, nv["gpuCorePolicy"], join_field(at, "gpuCorePolicy"), "default", "libvgpu.so enforces gpucores");
  std::vector<std::string> unmodelled;
  for (const char* name : {"resourcePriorityName", "overwriteEnv", "migProfileAllowlist", "runtimeClassName",
                           "libCudaLogLevel", "enableNumaTopology"}) {
    if (given(nv[name])) unmodelled.push_back(join_field(at, name));
  }
  if (given(nv["overwriteEnv"])) r.boolean(nv["overwriteEnv"], join_field(at, "overwriteEnv"));
  if (given(nv["enableNumaTopology"])) r.boolean(nv["enableNumaTopology"], join_field(at, "enableNumaTopology"));
  if (!unmodelled.empty()) {
    settings.notes.push_back(fmt::format("{}: accepted; {} not change which GPUs pods get (migProfileAllowlist applies "
                                         "to HAMi's MIG mode, which gpusim's HAMi nodes do not use)",
                                         fmt::join(unmodelled, ", "), unmodelled.size() == 1 ? "it does" : "they do"));
  }
}

void read_node_config(const io::YamlFields& r, const YAML::Node& doc, const std::string& field, HamiSettings& settings) {
  // encoding/json matches field names without regard to case.
  const auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  const auto lookup = [&](const YAML::Node& map, const std::string& name) -> YAML::Node {
    for (const auto& entry : map) {
      if (entry.first.IsScalar() && lower(entry.first.Scalar()) == name) return entry.second;
    }
    return YAML::Node();
  };
  const std::string top = field.empty() ? "config.json" : field;
  if (!doc.IsMap()) r.fail(doc, top, "expected a JSON object with nodeconfig");
  for (const auto& entry : doc) {
    const std::string key = r.text(entry.first, top);
    if (lower(key) != "nodeconfig") r.fail(entry.first, join_field(field, key), "unknown field (known: nodeconfig)");
  }
  const YAML::Node list = lookup(doc, "nodeconfig");
  if (!given(list)) return;
  if (!list.IsSequence()) r.fail(list, join_field(field, "nodeconfig"), "expected a list of per-node settings");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string at = join_field(field, fmt::format("nodeconfig[{}]", i));
    if (!item.IsMap()) r.fail(item, at, "expected an object");
    for (const auto& entry : item) {
      const std::string key = r.text(entry.first, at);
      const std::string l = lower(key);
      if (l != "name" && l != "operatingmode" && l != "migstrategy" && l != "filterdevices" &&
          l != "enablegetpreferredallocation" && l != "devicesplitcount" && l != "devicememoryscaling" &&
          l != "devicecorescaling" && l != "preconfigureddevicememory" && l != "libcudaloglevel" &&
          l != "enablenumatopology") {
        r.fail(entry.first, join_field(at, key),
               "unknown field (known: name, operatingmode, migstrategy, filterdevices, enablegetpreferredallocation, "
               "devicesplitcount, devicememoryscaling, devicecorescaling, preconfigureddevicememory, libcudaloglevel, "
               "enablenumatopology)");
      }
    }
    HamiNodeOverride node;
    node.line = item.Mark().line + 1;
    const YAML::Node name = lookup(item, "name");
    if (!given(name)) r.fail(item, join_field(at, "name"), "missing: the node this entry is for");
    node.name = r.text(name, join_field(at, "name"));
    if (const YAML::Node mode = lookup(item, "operatingmode"); given(mode)) {
      const std::string value = r.text(mode, join_field(at, "operatingmode"));
      if (value == "mig" || value == "mps") {
        r.fail(mode, join_field(at, "operatingmode"),
               fmt::format("'{}': gpusim's HAMi nodes run hami-core (HAMi's dynamic MIG is --kube devicePlugin mig with "
                           "dynamic: true)", value));
      }
      if (value != "hami-core") r.fail(mode, join_field(at, "operatingmode"), fmt::format("'{}' is not hami-core, mig or mps", value));
    }
    if (const YAML::Node mig = lookup(item, "migstrategy"); given(mig)) {
      const std::string value = r.text(mig, join_field(at, "migstrategy"));
      if (value != "none" && value != "single" && value != "mixed") {
        r.fail(mig, join_field(at, "migstrategy"), fmt::format("'{}' is not none, single or mixed", value));
      }
    }
    if (const YAML::Node filter = lookup(item, "filterdevices"); given(filter)) {
      if (!filter.IsMap()) r.fail(filter, join_field(at, "filterdevices"), "expected an object with uuid and index");
      for (const auto& entry : filter) {
        const std::string key = r.text(entry.first, join_field(at, "filterdevices"));
        if (lower(key) != "uuid" && lower(key) != "index") {
          r.fail(entry.first, join_field(at, "filterdevices." + key), "unknown field (known: uuid, index)");
        }
        if (given(entry.second) && (!entry.second.IsSequence() || entry.second.size() > 0)) {
          r.fail(entry.second, join_field(at, "filterdevices." + key),
                 "the node would not register these GPUs; gpusim registers every GPU of a node");
        }
      }
    }
    if (const YAML::Node split = lookup(item, "devicesplitcount"); given(split)) {
      node.device_split_count = static_cast<int>(r.integer(split, join_field(at, "devicesplitcount"), 1, 1000));
    }
    if (const YAML::Node scaling = lookup(item, "devicememoryscaling"); given(scaling)) {
      node.device_memory_scaling = r.number(scaling, join_field(at, "devicememoryscaling"), 1, 100);
    }
    if (const YAML::Node cores = lookup(item, "devicecorescaling"); given(cores)) {
      if (r.number(cores, join_field(at, "devicecorescaling"), 0, 1e6) != 1) {
        r.fail(cores, join_field(at, "devicecorescaling"), "gpusim models 1 only (each GPU registers 100 cores)");
      }
    }
    if (const YAML::Node memory = lookup(item, "preconfigureddevicememory"); given(memory)) {
      if (r.integer(memory, join_field(at, "preconfigureddevicememory"), 0, std::int64_t{1} << 40) != 0) {
        r.fail(memory, join_field(at, "preconfigureddevicememory"), "gpusim models 0 only (every GPU registers the memory it reports)");
      }
    }
    for (const char* flag : {"enablegetpreferredallocation", "enablenumatopology"}) {
      if (const YAML::Node b = lookup(item, flag); given(b)) r.boolean(b, join_field(at, flag));
    }
    settings.nodes.push_back(std::move(node));
  }
}

}  // namespace hami

namespace {

bool given(const YAML::Node& node) { return node && !node.IsNull(); }

bool hami_config_map(const YAML::Node& doc) {
  if (!traces::k8s::is_config_map(doc) || !given(doc["data"]) || !doc["data"].IsMap() || doc["data"].size() == 0) return false;
  for (const auto& entry : doc["data"]) {
    if (!entry.first.IsScalar()) return false;
    const std::string& key = entry.first.Scalar();
    if (key != "device-config.yaml" && key != "config.json") return false;
  }
  return true;
}

}  // namespace

HamiConfig HamiSettings::for_node(const std::string& node, bool fraction_asks_cores) const {
  HamiConfig c = config;
  c.fraction_asks_cores = fraction_asks_cores;
  for (const HamiNodeOverride& o : nodes) {
    if (o.name != node) continue;
    if (o.device_split_count) c.device_split_count = *o.device_split_count;
    if (o.device_memory_scaling) c.device_memory_scaling = *o.device_memory_scaling;
  }
  return c;
}

bool is_hami_device_config(const YAML::Node& doc) {
  try {
    if (hami_config_map(doc)) return true;
    if (!doc.IsMap() || !given(doc["nvidia"])) return false;
    for (const auto& entry : doc) {
      if (!entry.first.IsScalar() || !hami::is_vendor_section(entry.first.Scalar())) return false;
    }
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

HamiSettings parse_hami_device_config(const std::string& text, const std::string& source) {
  HamiSettings settings;
  settings.file = source;
  const io::YamlFields r(source);
  try {
    const YAML::Node doc = YAML::Load(text);
    if (!hami_config_map(doc)) {
      hami::read_device_config(r, doc, "", settings);
      return settings;
    }
    const traces::k8s::ConfigMap map = traces::k8s::read_config_map(doc, r, text);
    bool device_config = false;
    for (const traces::k8s::ConfigMapEntry& entry : map.data) {
      const YAML::Node file = traces::k8s::load_entry(entry);
      if (entry.key == "device-config.yaml") {
        hami::read_device_config(r, file, "data.device-config.yaml", settings);
        device_config = true;
      } else {
        hami::read_node_config(r, file, "data.config.json", settings);
      }
    }
    if (!device_config) {
      settings.notes.push_back("no device-config.yaml: every HAMi node splits and scales as HAMi's chart defaults do "
                               "(deviceSplitCount 10, deviceMemoryScaling 1), except where config.json says otherwise");
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  return settings;
}

}  // namespace gpusim::k8s
