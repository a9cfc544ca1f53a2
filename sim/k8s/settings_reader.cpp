#include "sim/k8s/settings_reader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "sim/k8s/retired_kube_keys.hpp"
#include "sim/topology/topology.hpp"
#include "traces/k8s/labels.hpp"
#include "traces/k8s_quantity.hpp"

namespace gpusim::k8s {
namespace {

// Field-by-field reading with errors that name the file, the line and the dotted field.
class Reader : public io::YamlFields {
 public:
  Reader(std::string file, const std::vector<cluster::NodeSpec>& nodes) : io::YamlFields(std::move(file)), nodes_(nodes) {}

  core::Time duration(const YAML::Node& node, const std::string& field) const {
    const auto parsed = traces::parse_go_duration(text(node, field));
    if (!parsed) fail(node, field, parsed.error);  // which says what a duration looks like
    return *parsed.value;
  }

  std::vector<int> xids(const YAML::Node& node, const std::string& field) const {
    if (!node.IsSequence()) fail(node, field, "expected a list of XID numbers");
    std::vector<int> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      out.push_back(static_cast<int>(integer(node[i], fmt::format("{}[{}]", field, i), 1, 1'000'000)));
    }
    return out;
  }

  std::uint32_t node_index(const YAML::Node& node, const std::string& field) const {
    const std::string name = text(node, field);
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      if (nodes_[n].name == name) return static_cast<std::uint32_t>(n);
    }
    fail(node, field, fmt::format("no node named '{}' in the cluster", name));
  }

  DevicePluginModel model(const YAML::Node& node, const std::string& field) const {
    const auto model = device_plugin_model(text(node, field));
    if (!model) {
      fail(node, field,
           "expected scheduler-assigned, device-plugin, accelerators-1.6, alpha-1.3, time-slicing, mps, gpushare, hami-vgpu "
           "or mig");
    }
    return *model;
  }

  DeviceChoice choice(const YAML::Node& node, const std::string& field) const {
    const auto choice = device_choice(text(node, field));
    if (!choice) fail(node, field, "expected first-fit or preferred");
    return *choice;
  }

  // The what-if of MPS clients' SM share, which no real config has. NVIDIA's sharing options
  // (replicas, ...) are refused with the device-plugin config lines that replace them.
  SharingConfig sharing(const YAML::Node& map, const std::string& field, bool mps) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping");
    for (const char* retired : {"replicas", "renameByDefault", "failRequestsGreaterThanOne", "allocationPolicy"}) {
      if (map[retired]) fail(map[retired], field + "." + retired, retired_sharing_message(map, mps));
    }
    only(map, field, {"mpsActiveThreadPercentage"});
    SharingConfig c;
    if (map["renameByDefault"]) c.rename_by_default = boolean(map["renameByDefault"], field + ".renameByDefault");
    // A node's devices are its GPUs times the replicas, at most 128 (checked per node later).
    if (map["replicas"]) c.replicas = static_cast<int>(integer(map["replicas"], field + ".replicas", 1, cluster::kMaxGpusPerNode));
    if (map["failRequestsGreaterThanOne"]) {
      c.fail_requests_greater_than_one = boolean(map["failRequestsGreaterThanOne"], field + ".failRequestsGreaterThanOne");
    }
    if (map["allocationPolicy"]) {
      const std::string policy = text(map["allocationPolicy"], field + ".allocationPolicy");
      if (policy == "packed") c.policy = ReplicaPolicy::kPacked;
      else if (policy != "distributed") fail(map["allocationPolicy"], field + ".allocationPolicy", "expected distributed or packed");
    }
    if (map["mpsActiveThreadPercentage"]) {
      c.mps_active_thread_percentage = number(map["mpsActiveThreadPercentage"], field + ".mpsActiveThreadPercentage", 1, 100);
    }
    return c;
  }

  // How a trace fraction asks HAMi's resources, which no real config has. HAMi's own settings are
  // refused with the Helm values lines that replace them.
  HamiConfig hami(const YAML::Node& map, const std::string& field) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping");
    for (const char* retired : {"gpuSchedulerPolicy", "nodeSchedulerPolicy", "deviceSplitCount", "deviceMemoryScaling"}) {
      if (map[retired]) fail(map[retired], field + "." + retired, retired_hami_message(map));
    }
    only(map, field, {"fractionAsks"});
    HamiConfig c;
    if (map["gpuSchedulerPolicy"]) {
      const std::string policy = text(map["gpuSchedulerPolicy"], field + ".gpuSchedulerPolicy");
      if (policy == "binpack") c.gpu_policy = HamiGpuPolicy::kBinpack;
      else if (policy == "topology-aware") c.gpu_policy = HamiGpuPolicy::kTopologyAware;
      else if (policy != "spread") fail(map["gpuSchedulerPolicy"], field + ".gpuSchedulerPolicy", "expected spread, binpack or topology-aware");
    }
    if (map["nodeSchedulerPolicy"]) {
      const std::string policy = text(map["nodeSchedulerPolicy"], field + ".nodeSchedulerPolicy");
      if (policy == "spread") c.node_policy = HamiNodePolicy::kSpread;
      else if (policy != "binpack") fail(map["nodeSchedulerPolicy"], field + ".nodeSchedulerPolicy", "expected binpack or spread");
    }
    // Each GPU's pods are at most this many.
    if (map["deviceSplitCount"]) {
      c.device_split_count = static_cast<int>(integer(map["deviceSplitCount"], field + ".deviceSplitCount", 1, 1000));
    }
    // Below 1 a trace fraction could ask more than a GPU registers; gpusim models oversubscription only.
    if (map["deviceMemoryScaling"]) {
      c.device_memory_scaling = number(map["deviceMemoryScaling"], field + ".deviceMemoryScaling", 1, 100);
    }
    if (map["fractionAsks"]) {
      const std::string asks = text(map["fractionAsks"], field + ".fractionAsks");
      if (asks == "gpumem") c.fraction_asks_cores = false;
      else if (asks != "gpumem-and-gpucores") fail(map["fractionAsks"], field + ".fractionAsks", "expected gpumem-and-gpucores or gpumem");
    }
    return c;
  }

  // The device plugin's migStrategy and the instances of each GPU. Profile names are checked
  // against every MIG-capable model here, against the node's own model when pools are resolved.
  // HAMi's dynamic MIG only: a static layout is NVIDIA's files' (refused with their lines).
  // A vGPU host's settings: `scheduler` (best-effort, equal-share, fixed-share) or the nvidia
  // module's `RmPVMRL` value as NVIDIA's guide writes it (0x01 equal share, 0x11 fixed share, the
  // time slice in ms in bits 16-23; 0x00 best effort), `mixedSizeMode`, `migTimeSlicing`, `bootTime`.
  VgpuConfig vgpu(const YAML::Node& map, const std::string& field) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping");
    only(map, field, {"scheduler", "RmPVMRL", "mixedSizeMode", "migTimeSlicing", "bootTime"});
    VgpuConfig c;
    if (map["scheduler"] && map["RmPVMRL"]) fail(map["RmPVMRL"], field + ".RmPVMRL", "give scheduler or RmPVMRL, not both");
    if (map["scheduler"]) {
      const std::string name = text(map["scheduler"], field + ".scheduler");
      if (name == "best-effort") c.scheduler = VgpuScheduler::kBestEffort;
      else if (name == "equal-share") c.scheduler = VgpuScheduler::kEqualShare;
      else if (name == "fixed-share") c.scheduler = VgpuScheduler::kFixedShare;
      else fail(map["scheduler"], field + ".scheduler", fmt::format("'{}': expected best-effort, equal-share or fixed-share", name));
    }
    if (map["RmPVMRL"]) {
      const std::string value = text(map["RmPVMRL"], field + ".RmPVMRL");
      std::uint64_t v = 0;
      const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
      const char* first = value.data() + (hex ? 2 : 0);
      const auto [end, ec] = std::from_chars(first, value.data() + value.size(), v, hex ? 16 : 10);
      if (ec != std::errc() || end != value.data() + value.size() || v > 0xFFFFFFFFULL) {
        fail(map["RmPVMRL"], field + ".RmPVMRL", fmt::format("'{}' is not a 32-bit registry Dword (such as 0x11)", value));
      }
      const std::uint64_t policy = v & 0xFF;
      if (policy == 0x00) c.scheduler = VgpuScheduler::kBestEffort;
      else if (policy == 0x01 || policy == 0x03) c.scheduler = VgpuScheduler::kEqualShare;
      else if (policy == 0x11 || policy == 0x13) c.scheduler = VgpuScheduler::kFixedShare;
      else fail(map["RmPVMRL"], field + ".RmPVMRL", fmt::format("scheduler bits 0x{:02X}: expected 0x00 (best effort), 0x01 "
                                                                "(equal share) or 0x11 (fixed share)", policy));
      c.time_slice_ms = static_cast<int>((v >> 16) & 0xFF);
      if (c.time_slice_ms > 30) {
        fail(map["RmPVMRL"], field + ".RmPVMRL", fmt::format("a time slice of {} ms: NVIDIA's range is 1 to 30 ms", c.time_slice_ms));
      }
      if (c.scheduler == VgpuScheduler::kBestEffort && c.time_slice_ms != 0) {
        fail(map["RmPVMRL"], field + ".RmPVMRL", "a time slice applies to equal or fixed share only");
      }
    }
    if (map["mixedSizeMode"]) c.mixed_size = boolean(map["mixedSizeMode"], field + ".mixedSizeMode");
    if (map["migTimeSlicing"]) c.mig_time_slicing = boolean(map["migTimeSlicing"], field + ".migTimeSlicing");
    if (map["bootTime"]) c.boot_time = duration(map["bootTime"], field + ".bootTime");
    return c;
  }

  MigConfig mig(const YAML::Node& map, const std::string& field) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping");
    only(map, field, {"strategy", "layout", "dynamic", "reconfigureTime"});
    if (!map["dynamic"] || !boolean(map["dynamic"], field + ".dynamic")) {
      const YAML::Node where = map["layout"] ? map["layout"] : map["strategy"] ? map["strategy"] : map;
      fail(where, field + (map["layout"] ? ".layout" : map["strategy"] ? ".strategy" : ""), retired_mig_message(map));
    }
    MigConfig c;
    if (map["strategy"]) {
      c.strategy_given = true;
      const std::string strategy = text(map["strategy"], field + ".strategy");
      if (strategy == "mixed") c.strategy = MigStrategy::kMixed;
      else if (strategy != "single") fail(map["strategy"], field + ".strategy", "expected single or mixed");
    }
    const YAML::Node layout = map["layout"];
    if (!layout) fail(map, field + ".layout", "missing: the MIG instances of each GPU, e.g. [3g.40gb, 3g.40gb]");
    if (!layout.IsSequence() || layout.size() == 0 || layout.size() > 7) {
      fail(layout, field + ".layout", "expected a list of 1 to 7 MIG profile names");
    }
    for (std::size_t i = 0; i < layout.size(); ++i) {
      const std::string where = fmt::format("{}.layout[{}]", field, i);
      const std::string name = text(layout[i], where);
      if (!cluster::is_mig_profile_name(name)) {
        fail(layout[i], where, fmt::format("'{}' is no MIG profile of a known GPU ({})", name, cluster::all_mig_profile_names()));
      }
      c.layout.push_back(name);
    }
    if (c.strategy == MigStrategy::kSingle &&
        std::any_of(c.layout.begin(), c.layout.end(), [&](const std::string& n) { return n != c.layout.front(); })) {
      fail(layout, field + ".layout", "strategy single needs one profile on every instance; use strategy mixed");
    }
    if (map["dynamic"]) c.dynamic = boolean(map["dynamic"], field + ".dynamic");
    if (map["reconfigureTime"]) {
      c.reconfigure_time = duration(map["reconfigureTime"], field + ".reconfigureTime");
      // A re-partition takes time; none would let GPUs flip back and forth within one instant.
      if (c.reconfigure_time <= core::Time::zero()) fail(map["reconfigureTime"], field + ".reconfigureTime", "must be more than 0s");
    }
    if (c.dynamic && c.strategy != MigStrategy::kMixed) {
      fail(map["dynamic"], field + ".dynamic", "re-partitioning changes which profiles a GPU offers: needs strategy mixed");
    }
    return c;
  }

  // Label keys and values as Kubernetes validates them (an optional DNS-subdomain prefix and a
  // name of at most 63 characters; a value of at most 63, possibly empty).
  std::vector<std::pair<std::string, std::string>> labels(const YAML::Node& map, const std::string& field) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping of label keys to values");
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& entry : map) {
      const std::string key = text(entry.first, field);
      const std::string where = field + "." + key;
      if (!traces::k8s::label_key_valid(key)) {
        fail(entry.first, where, "not a label key (an optional DNS-subdomain prefix and '/', then at most 63 letters, "
                                 "digits, '-', '_' or '.', beginning and ending with a letter or digit)");
      }
      const std::string value = entry.second.IsNull() ? std::string() : text(entry.second, where);
      if (!traces::k8s::label_value_valid(value)) {
        fail(entry.second, where, fmt::format("'{}' is not a label value (at most 63 letters, digits, '-', '_' or '.', "
                                              "beginning and ending with a letter or digit)", value));
      }
      if (std::any_of(out.begin(), out.end(), [&](const auto& l) { return l.first == key; })) fail(entry.first, where, "given twice");
      out.emplace_back(key, value);
    }
    return out;
  }

  const std::vector<cluster::NodeSpec>& nodes() const { return nodes_; }

 private:
  const std::vector<cluster::NodeSpec>& nodes_;
};

void read_kubelet(const Reader& r, const YAML::Node& map, KubeSettings& s) {
  r.only(map, "kubelet", {"nodeStatusUpdateFrequency", "bindLatency", "containerStartLatency", "gpuFreeDelay",
                          "terminationGracePeriod"});
  if (map["terminationGracePeriod"]) s.termination_grace_period = r.duration(map["terminationGracePeriod"], "kubelet.terminationGracePeriod");
  if (map["nodeStatusUpdateFrequency"]) s.node_status_period = r.duration(map["nodeStatusUpdateFrequency"], "kubelet.nodeStatusUpdateFrequency");
  if (map["bindLatency"]) s.bind_latency = r.duration(map["bindLatency"], "kubelet.bindLatency");
  if (map["containerStartLatency"]) s.container_start_latency = r.duration(map["containerStartLatency"], "kubelet.containerStartLatency");
  if (map["gpuFreeDelay"]) s.gpu_free_delay = r.duration(map["gpuFreeDelay"], "kubelet.gpuFreeDelay");
}

void read_owners(const Reader& r, const YAML::Node& map, KubeSettings& s) {
  r.only(map, "owners", {"backoff", "maxBackoff", "backoffLimit"});
  if (map["backoff"]) s.backoff_base = r.duration(map["backoff"], "owners.backoff");
  if (map["maxBackoff"]) s.backoff_max = r.duration(map["maxBackoff"], "owners.maxBackoff");
  if (map["backoffLimit"]) s.backoff_limit = static_cast<int>(r.integer(map["backoffLimit"], "owners.backoffLimit", 0, 1'000'000));
  if (s.backoff_max < s.backoff_base) r.fail(map, "owners.maxBackoff", "must be at least owners.backoff");
}

void read_pools(const Reader& r, const YAML::Node& list, KubeSettings& s) {
  if (!list.IsSequence()) r.fail(list, "pools", "expected a list of pools");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string field = fmt::format("pools[{}]", i);
    r.only(item, field, {"name", "match", "labels", "devicePlugin", "deviceChoice", "topology", "sharing", "hami", "mig", "vgpu"});
    NodePool pool;
    pool.name = item["name"] ? r.text(item["name"], field + ".name") : fmt::format("pool-{}", i);
    if (const YAML::Node match = item["match"]) {
      r.only(match, field + ".match", {"namePrefix", "gpuModel"});
      if (match["namePrefix"]) pool.match.name_prefix = r.text(match["namePrefix"], field + ".match.namePrefix");
      if (match["gpuModel"]) pool.match.gpu_model = r.text(match["gpuModel"], field + ".match.gpuModel");
    }
    if (const YAML::Node labels = item["labels"]) pool.labels = r.labels(labels, field + ".labels");
    if (item["devicePlugin"]) pool.model = r.model(item["devicePlugin"], field + ".devicePlugin");
    if (item["deviceChoice"]) pool.choice = r.choice(item["deviceChoice"], field + ".deviceChoice");
    if (item["topology"]) pool.topology = r.text(item["topology"], field + ".topology");
    if (item["sharing"]) {
      if (!is_shared(pool.model)) r.fail(item["sharing"], field + ".sharing", "applies to devicePlugin time-slicing or mps only");
      pool.sharing = r.sharing(item["sharing"], field + ".sharing", pool.model == DevicePluginModel::kMps);
    }
    if (item["hami"]) {
      if (pool.model != DevicePluginModel::kHamiVgpu) r.fail(item["hami"], field + ".hami", "applies to devicePlugin hami-vgpu only");
      pool.hami = r.hami(item["hami"], field + ".hami");
    }
    if (item["mig"]) {
      if (pool.model != DevicePluginModel::kMig) r.fail(item["mig"], field + ".mig", "applies to devicePlugin mig only");
      pool.mig = r.mig(item["mig"], field + ".mig");
    }
    if (item["vgpu"]) {
      if (pool.model != DevicePluginModel::kKubevirtVgpu) r.fail(item["vgpu"], field + ".vgpu", "applies to devicePlugin kubevirt-vgpu only");
      pool.vgpu = r.vgpu(item["vgpu"], field + ".vgpu");
    }
    s.pools.push_back(pool);
  }
}

void read_failures(const Reader& r, const YAML::Node& list, KubeSettings& s) {
  if (!list.IsSequence()) r.fail(list, "failures", "expected a list of failures");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string field = fmt::format("failures[{}]", i);
    r.only(item, field, {"at", "node", "gpu", "xid", "repaired", "pluginRestart"});
    if (!item["at"]) r.fail(item, field + ".at", "missing");
    if (!item["node"]) r.fail(item, field + ".node", "missing");
    const core::Time at = r.duration(item["at"], field + ".at");
    const std::uint32_t node = r.node_index(item["node"], field + ".node");
    const int kinds = (item["xid"] ? 1 : 0) + (item["repaired"] ? 1 : 0) + (item["pluginRestart"] ? 1 : 0);
    if (kinds != 1) r.fail(item, field, "give exactly one of xid (with gpu), repaired (with gpu) or pluginRestart");
    if (item["pluginRestart"]) {
      if (item["gpu"]) r.fail(item["gpu"], field + ".gpu", "a plugin restart concerns the whole node");
      s.plugin_restarts.push_back({at, node, r.duration(item["pluginRestart"], field + ".pluginRestart")});
      continue;
    }
    if (!item["gpu"]) r.fail(item, field + ".gpu", "missing");
    const int gpus = r.nodes()[node].gpu_count;
    if (gpus == 0) r.fail(item["node"], field + ".node", "the node has no GPU");
    const int gpu = static_cast<int>(r.integer(item["gpu"], field + ".gpu", 0, gpus - 1));
    if (item["repaired"]) {
      if (r.text(item["repaired"], field + ".repaired") != "true") r.fail(item["repaired"], field + ".repaired", "expected true");
      s.gpu_failures.push_back({at, node, gpu, 0});
    } else {
      s.gpu_failures.push_back({at, node, gpu, static_cast<int>(r.integer(item["xid"], field + ".xid", 1, 1'000'000))});
    }
  }
}

void read_node_events(const Reader& r, const YAML::Node& list, KubeSettings& s) {
  if (!list.IsSequence()) r.fail(list, "nodeEvents", "expected a list of node events");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string field = fmt::format("nodeEvents[{}]", i);
    r.only(item, field, {"at", "node", "event"});
    for (const char* required : {"at", "node", "event"}) {
      if (!item[required]) r.fail(item, field + "." + required, "missing");
    }
    const std::string kind = r.text(item["event"], field + ".event");
    NodeEvent event{r.duration(item["at"], field + ".at"), r.node_index(item["node"], field + ".node"), NodeEventKind::kJoin};
    if (kind == "join") event.kind = NodeEventKind::kJoin;
    else if (kind == "remove") event.kind = NodeEventKind::kRemove;
    else if (kind == "lost") event.kind = NodeEventKind::kLost;
    else if (kind == "recovered") event.kind = NodeEventKind::kRecovered;
    else r.fail(item["event"], field + ".event", "expected join, remove, lost or recovered");
    s.node_events.push_back(event);
  }
}

}  // namespace

std::optional<DevicePluginModel> device_plugin_model(std::string_view name) {
  for (const auto model : {DevicePluginModel::kSchedulerAssigned, DevicePluginModel::kDevicePlugin,
                           DevicePluginModel::kAccelerators16, DevicePluginModel::kAlpha13,
                           DevicePluginModel::kTimeSlicing, DevicePluginModel::kMps, DevicePluginModel::kGpushare,
                           DevicePluginModel::kHamiVgpu, DevicePluginModel::kMig, DevicePluginModel::kKubevirtVgpu}) {
    if (name == to_string(model)) return model;
  }
  return std::nullopt;
}

std::optional<DeviceChoice> device_choice(std::string_view name) {
  for (const auto choice : {DeviceChoice::kFirstFit, DeviceChoice::kPreferred}) {
    if (name == to_string(choice)) return choice;
  }
  return std::nullopt;
}

KubeSettings load_kube_settings(const std::filesystem::path& path, const std::vector<cluster::NodeSpec>& nodes) {
  return parse_kube_settings(io::read_file(path, "--kube settings"), path.string(), nodes);
}

KubeSettings parse_kube_settings(const std::string& text, const std::string& source,
                                 const std::vector<cluster::NodeSpec>& nodes) {
  const Reader r(source, nodes);
  KubeSettings s;
  try {
    const YAML::Node doc = YAML::Load(text);
    if (!doc || doc.IsNull()) return s;  // an empty file: every default
    r.only(doc, "", {"kubelet", "owners", "nodeLifecycle", "gpuOperator", "devicePlugin", "pools", "health", "failures",
                     "nodeEvents", "randomFailures", "linkSlowdown", "fractionalGpuRequests", "gpuMemory", "descheduler", "nodeMetrics"});
    if (const YAML::Node d = doc["descheduler"]) {
      r.only(d, "descheduler", {"interval", "evictionsPerCycle", "checkpointInterval", "minRunTime"});
      s.descheduler = true;
      if (d["interval"]) s.descheduler_interval = r.duration(d["interval"], "descheduler.interval");
      if (s.descheduler_interval <= core::Time::zero()) r.fail(d, "descheduler.interval", "must be more than 0s");
      if (d["evictionsPerCycle"]) {
        s.descheduler_evictions_per_cycle = static_cast<int>(r.integer(d["evictionsPerCycle"], "descheduler.evictionsPerCycle", 1, 1000));
      }
      if (d["checkpointInterval"]) s.checkpoint_interval = r.duration(d["checkpointInterval"], "descheduler.checkpointInterval");
      if (s.checkpoint_interval <= core::Time::zero()) r.fail(d, "descheduler.checkpointInterval", "must be more than 0s");
      if (d["minRunTime"]) s.descheduler_min_run_time = r.duration(d["minRunTime"], "descheduler.minRunTime");
    }
    if (const YAML::Node m = doc["gpuMemory"]) {
      r.only(m, "gpuMemory", {"overrunProbability", "overrunFactor", "overrunPods"});
      if (const YAML::Node names = m["overrunPods"]) {
        if (!names.IsSequence()) r.fail(names, "gpuMemory.overrunPods", "expected a list of pod names");
        for (std::size_t i = 0; i < names.size(); ++i) {
          s.overrun_pods.push_back(r.text(names[i], fmt::format("gpuMemory.overrunPods[{}]", i)));
        }
      }
      s.memory_model = true;
      if (m["overrunProbability"]) s.memory_overrun_probability = r.number(m["overrunProbability"], "gpuMemory.overrunProbability", 0, 1);
      if (m["overrunFactor"]) s.memory_overrun_factor = r.number(m["overrunFactor"], "gpuMemory.overrunFactor", 1, 100);
    }
    if (const YAML::Node f = doc["fractionalGpuRequests"]) {
      const std::string how = r.text(f, "fractionalGpuRequests");
      if (how == "one-device") s.fraction_as_one_device = true;
      else if (how != "keep") r.fail(f, "fractionalGpuRequests", "expected keep or one-device");
    }
    if (const YAML::Node l = doc["linkSlowdown"]) {
      r.only(l, "linkSlowdown", {"cross-cpu", "same-cpu", "host-bridge", "multi-switch", "single-switch", "same-board", "nvlink"});
      for (std::size_t c = 0; c < s.link_slowdown.size(); ++c) {
        const char* name = topology::to_string(static_cast<topology::LinkClass>(c));
        if (l[name]) s.link_slowdown[c] = r.number(l[name], std::string("linkSlowdown.") + name, 0.01, 100);
      }
    }
    if (const YAML::Node m = doc["nodeMetrics"]) {
      // Koordinator's NodeMetric spec.metricCollectPolicy (the slo-controller's colocation-config
      // metricReportIntervalSeconds and metricAggregateDurationSeconds), with its minimums.
      r.only(m, "nodeMetrics", {"reportInterval", "aggregateDuration"});
      if (m["reportInterval"]) s.node_metric_report_interval = r.duration(m["reportInterval"], "nodeMetrics.reportInterval");
      if (s.node_metric_report_interval < core::Time::from_seconds(30)) {
        r.fail(m["reportInterval"], "nodeMetrics.reportInterval", "must be at least 30s (koordlet's minimum)");
      }
      if (m["aggregateDuration"]) s.node_metric_aggregate_duration = r.duration(m["aggregateDuration"], "nodeMetrics.aggregateDuration");
      if (s.node_metric_aggregate_duration < core::Time::from_seconds(60)) {
        r.fail(m["aggregateDuration"], "nodeMetrics.aggregateDuration", "must be at least 60s (koordlet's minimum)");
      }
    }
    if (const YAML::Node l = doc["nodeLifecycle"]) {
      r.only(l, "nodeLifecycle", {"nodeMonitorGracePeriod", "unreachableTolerationSeconds"});
      if (l["nodeMonitorGracePeriod"]) s.node_monitor_grace_period = r.duration(l["nodeMonitorGracePeriod"], "nodeLifecycle.nodeMonitorGracePeriod");
      if (l["unreachableTolerationSeconds"]) {
        s.default_unreachable_toleration = r.duration(l["unreachableTolerationSeconds"], "nodeLifecycle.unreachableTolerationSeconds");
      }
    }
    if (const YAML::Node g = doc["gpuOperator"]) {
      r.only(g, "gpuOperator", {"driverInstall", "containerToolkit", "devicePlugin", "featureDiscovery"});
      if (g["driverInstall"]) s.operator_driver = r.duration(g["driverInstall"], "gpuOperator.driverInstall");
      if (g["containerToolkit"]) s.operator_toolkit = r.duration(g["containerToolkit"], "gpuOperator.containerToolkit");
      if (g["devicePlugin"]) s.operator_device_plugin = r.duration(g["devicePlugin"], "gpuOperator.devicePlugin");
      if (g["featureDiscovery"]) s.operator_feature_discovery = r.duration(g["featureDiscovery"], "gpuOperator.featureDiscovery");
    }
    if (doc["nodeEvents"]) read_node_events(r, doc["nodeEvents"], s);
    if (doc["kubelet"]) read_kubelet(r, doc["kubelet"], s);
    if (doc["owners"]) read_owners(r, doc["owners"], s);
    if (const YAML::Node d = doc["devicePlugin"]) {
      r.only(d, "devicePlugin", {"model", "deviceChoice", "topology", "sharing", "hami", "mig", "vgpu"});
      if (d["model"]) s.default_model = r.model(d["model"], "devicePlugin.model");
      if (d["deviceChoice"]) s.default_choice = r.choice(d["deviceChoice"], "devicePlugin.deviceChoice");
      if (d["topology"]) s.default_topology = r.text(d["topology"], "devicePlugin.topology");
      if (d["sharing"]) {
        if (!is_shared(s.default_model)) r.fail(d["sharing"], "devicePlugin.sharing", "applies to model time-slicing or mps only");
        s.default_sharing = r.sharing(d["sharing"], "devicePlugin.sharing", s.default_model == DevicePluginModel::kMps);
      }
      if (d["hami"]) {
        if (s.default_model != DevicePluginModel::kHamiVgpu) r.fail(d["hami"], "devicePlugin.hami", "applies to model hami-vgpu only");
        s.default_hami = r.hami(d["hami"], "devicePlugin.hami");
      }
      if (d["mig"]) {
        if (s.default_model != DevicePluginModel::kMig) r.fail(d["mig"], "devicePlugin.mig", "applies to model mig only");
        s.default_mig = r.mig(d["mig"], "devicePlugin.mig");
      }
      if (d["vgpu"]) {
        if (s.default_model != DevicePluginModel::kKubevirtVgpu) r.fail(d["vgpu"], "devicePlugin.vgpu", "applies to model kubevirt-vgpu only");
        s.default_vgpu = r.vgpu(d["vgpu"], "devicePlugin.vgpu");
      }
    }
    if (doc["pools"]) read_pools(r, doc["pools"], s);
    s.shared_nodes_need_config = true;
    if (const YAML::Node h = doc["health"]) {
      r.only(h, "health", {"ignoredXids", "fatalXids"});
      if (h["ignoredXids"]) s.ignored_xids = r.xids(h["ignoredXids"], "health.ignoredXids");
      if (h["fatalXids"]) s.fatal_xids = r.xids(h["fatalXids"], "health.fatalXids");
    }
    if (doc["failures"]) read_failures(r, doc["failures"], s);
    if (const YAML::Node f = doc["randomFailures"]) {
      r.only(f, "randomFailures", {"mtbfHours", "mtbfHoursByModel", "xid", "repairTime"});
      if (!f["mtbfHours"] && !f["mtbfHoursByModel"]) r.fail(f, "randomFailures.mtbfHours", "missing (or give mtbfHoursByModel)");
      if (f["mtbfHours"]) s.mtbf_hours = r.number(f["mtbfHours"], "randomFailures.mtbfHours", 1e-3, 1e9);
      if (const YAML::Node by_model = f["mtbfHoursByModel"]) {
        if (!by_model.IsMap()) r.fail(by_model, "randomFailures.mtbfHoursByModel", "expected a mapping of GPU model to hours");
        for (const auto& entry : by_model) {
          const std::string model = entry.first.as<std::string>();
          s.mtbf_hours_by_model.emplace_back(model, r.number(entry.second, "randomFailures.mtbfHoursByModel." + model, 1e-3, 1e9));
        }
      }
      if (f["xid"]) s.random_failure_xid = static_cast<int>(r.integer(f["xid"], "randomFailures.xid", 1, 1'000'000));
      if (f["repairTime"]) s.repair_time = r.duration(f["repairTime"], "randomFailures.repairTime");
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  return s;
}

}  // namespace gpusim::k8s
