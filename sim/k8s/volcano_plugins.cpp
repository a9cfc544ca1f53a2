// Maps Volcano's actions and plugins to a gpusim profile (sim/k8s/volcano_scheduler_conf.hpp).
// Each rule cites the Volcano source it follows (volcano-sh/volcano, pkg/scheduler/...); where
// gpusim's model differs, the result carries a note, or the configuration is refused when what
// gpusim would do instead is not what the user asked for.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <optional>

#include "sim/k8s/volcano_conf_parts.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::k8s::volcano {
namespace {

// Volcano plugins (pkg/scheduler/plugins/factory.go) that gpusim does not model, and what they do.
const std::map<std::string, std::string>& not_modelled() {
  static const std::map<std::string, std::string> plugins = {
      {"cdp", "cooldown protection of preemptible pods"},
      {"deviceshare", "GPU sharing and vGPU devices (gpusim models sharing in its device-plugin and HAMi settings)"},
      {"extender", "HTTP scheduler extenders"},
      {"network-topology-aware", "HyperNode network topologies"},
      {"nodegroup", "queue affinity to node groups"},
      {"numaaware", "NUMA-aware CPU placement"},
      {"pdb", "PodDisruptionBudgets of victims"},
      {"rescheduling", "rescheduling by node utilisation"},
      {"resource-strategy-fit", "per-resource scoring strategies"},
      {"resourcequota", "namespace ResourceQuotas"},
      {"sla", "waiting-time SLAs of jobs"},
      {"task-topology", "affinity between the tasks of a job"},
      {"tdm", "time-division multiplexing of revocable nodes"},
      {"usage", "scheduling by measured node usage"},
  };
  return plugins;
}

constexpr const char* kModelled[] = {"priority", "gang",       "conformance", "overcommit", "drf",
                                     "predicates", "proportion", "capacity",    "nodeorder",  "binpack"};
// gpusim's own placement, for configurations that keep a gpusim placement (not a Volcano plugin).
constexpr const char* kGpusimPlugin = "gpusim";
constexpr std::int64_t kMaxWeight = 1'000'000;  // as a KubeSchedulerConfiguration's score weights

std::string arg_path(const PluginOption& p, const std::string& key) { return p.field + ".arguments." + key; }

YAML::Node argument(const PluginOption& p, const std::string& key) {
  if (!p.arguments || !p.arguments.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return p.arguments[key];
}

// A quoted scalar: yaml.v2 decodes it as a string whatever it holds.
bool quoted(const YAML::Node& node) { return node.Tag() == "!"; }

// Every argument must be one of `known`, or start with `prefix` (when given).
void known_arguments(const io::YamlFields& r, const PluginOption& p, std::initializer_list<const char*> known,
                     const std::string& prefix = "") {
  if (!p.arguments || !p.arguments.IsMap()) return;
  for (const auto& entry : p.arguments) {
    const std::string key = entry.first.as<std::string>();
    if (std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) continue;
    if (!prefix.empty() && key.starts_with(prefix)) continue;
    r.fail(entry.first, arg_path(p, key),
           known.size() == 0 ? fmt::format("unknown argument: Volcano's {} plugin takes none", p.name)
                             : fmt::format("unknown argument of Volcano's {} plugin (known: {}{})", p.name, fmt::join(known, ", "),
                                           prefix.empty() ? "" : ", " + prefix + "<resource>"));
  }
}

// framework.Arguments.GetInt: a YAML integer; Volcano ignores anything else and keeps its default,
// which would not be what the file says, so gpusim refuses it.
std::optional<std::int64_t> int_argument(const io::YamlFields& r, const PluginOption& p, const std::string& key,
                                         std::int64_t low, std::int64_t high) {
  const YAML::Node node = argument(p, key);
  if (!node) return std::nullopt;
  const std::string path = arg_path(p, key);
  const std::string text = r.text(node, path);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (quoted(node) || error != std::errc{} || end != text.data() + text.size()) {
    r.fail(node, path, fmt::format("'{}' is not an integer{}: Volcano ignores it and keeps its default", text,
                                   quoted(node) ? " (it is quoted, a string)" : ""));
  }
  if (value < low || value > high) r.fail(node, path, fmt::format("{} is not from {} to {}", value, low, high));
  return value;
}

// framework.Arguments.GetFloat64: a YAML number.
std::optional<double> number_argument(const io::YamlFields& r, const PluginOption& p, const std::string& key) {
  const YAML::Node node = argument(p, key);
  if (!node) return std::nullopt;
  const std::string path = arg_path(p, key);
  const std::string text = r.text(node, path);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (quoted(node) || error != std::errc{} || end != text.data() + text.size() || !(value > -1e300 && value < 1e300)) {
    r.fail(node, path, fmt::format("'{}' is not a number: Volcano ignores it and keeps its default", text));
  }
  return value;
}

// framework.Arguments.GetBool: a YAML boolean, or a string strconv.ParseBool reads.
std::optional<bool> bool_argument(const io::YamlFields& r, const PluginOption& p, const std::string& key) {
  const YAML::Node node = argument(p, key);
  if (!node) return std::nullopt;
  const std::string path = arg_path(p, key);
  const std::string text = r.text(node, path);
  for (const char* yes : {"true", "True", "TRUE"}) if (text == yes) return true;
  for (const char* no : {"false", "False", "FALSE"}) if (text == no) return false;
  if (quoted(node)) {
    if (text == "1" || text == "t" || text == "T") return true;
    if (text == "0" || text == "f" || text == "F") return false;
  }
  r.fail(node, path, fmt::format("'{}' is not true or false: Volcano ignores it and keeps its default", text));
}

void refuse_off(const io::YamlFields& r, const PluginOption& p, const std::string& flag, const std::string& why) {
  if (!p.enabled(flag)) r.fail(p.flag_nodes.at(flag), p.field + "." + flag, why);
}

struct Scores {
  std::vector<sched::WeightedPlugin> list;
  void add(const std::string& name, std::int64_t weight) {
    if (weight == 0) return;
    for (auto& s : list) {
      if (s.name == name) {
        s.weight += weight;
        return;
      }
    }
    list.push_back({name, weight});
  }
};

// nodeorder (pkg/scheduler/plugins/nodeorder/nodeorder.go): kube-scheduler's scores, each times its
// weight. LeastAllocated and MostAllocated weigh CPU and memory equally, as gpusim's least- and
// most-allocated do; BalancedAllocation also counts nvidia.com/gpu there (noted).
void map_nodeorder(const io::YamlFields& r, const PluginOption& p, Scores& scores, std::vector<std::string>& notes) {
  known_arguments(r, p,
                  {"nodeaffinity.weight", "podaffinity.weight", "leastrequested.weight", "balancedresource.weight",
                   "mostrequested.weight", "tainttoleration.weight", "imagelocality.weight", "podtopologyspread.weight"});
  const auto weight = [&](const char* key, std::int64_t fallback, bool modelled) {
    const auto w = int_argument(r, p, key, -kMaxWeight, kMaxWeight).value_or(fallback);
    if (modelled && w < 0) {
      r.fail(argument(p, key), arg_path(p, key),
             fmt::format("{} is negative: gpusim's score weights are positive (give 0 to leave the score out)", w));
    }
    return w;
  };
  const std::int64_t least = weight("leastrequested.weight", 1, true);
  const std::int64_t most = weight("mostrequested.weight", 0, true);
  const std::int64_t balanced = weight("balancedresource.weight", 1, true);
  scores.add("least-allocated", least);
  scores.add("balanced-allocation", balanced);
  scores.add("most-allocated", most);
  if (balanced != 0) {
    notes.push_back("nodeorder: balancedresource ranks nodes by how evenly CPU and memory are used (gpusim's "
                    "balanced-allocation); Volcano's also counts nvidia.com/gpu");
  }
  std::vector<std::string> left_out;
  for (const auto& [key, fallback] : std::initializer_list<std::pair<const char*, std::int64_t>>{
           {"nodeaffinity.weight", 2}, {"podaffinity.weight", 2}, {"tainttoleration.weight", 3},
           {"imagelocality.weight", 1}, {"podtopologyspread.weight", 2}}) {
    if (weight(key, fallback, false) != 0) left_out.push_back(std::string(key).substr(0, std::string(key).find('.')));
  }
  if (!left_out.empty()) {
    notes.push_back(fmt::format("nodeorder: the {} scores are not modelled; they rank nodes apart only for pods with "
                                "preferred node or pod affinity, nodes with PreferNoSchedule taints, container images, or "
                                "pods of a Service or ReplicaSet (default spreading)",
                                fmt::join(left_out, ", ")));
  }
}

// binpack (pkg/scheduler/plugins/binpack/binpack.go): per resource the pod asks, weight x (used +
// asked) / allocatable, averaged over those weights, times 100 x binpack.weight. gpusim's
// most-allocated is kube-scheduler's MostAllocated over CPU and memory: the same ranking when
// binpack weighs CPU and memory equally and nothing else, up to integer rounding (noted).
void map_binpack(const io::YamlFields& r, const PluginOption& p, Scores& scores, std::vector<std::string>& notes) {
  const std::string prefix = "binpack.resources.";
  known_arguments(r, p, {"binpack.weight", "binpack.cpu", "binpack.memory", "binpack.resources"}, prefix);
  const std::int64_t weight = int_argument(r, p, "binpack.weight", -kMaxWeight, kMaxWeight).value_or(1);
  if (weight < 0) {
    r.fail(argument(p, "binpack.weight"), arg_path(p, "binpack.weight"),
           fmt::format("{} is negative (emptier nodes first): gpusim's score weights are positive", weight));
  }
  // A negative CPU, memory or resource weight counts as 1, as calculateWeight does.
  const auto resource_weight = [&](const std::string& key) {
    const std::int64_t w = int_argument(r, p, key, -kMaxWeight, kMaxWeight).value_or(1);
    return w < 0 ? 1 : w;
  };
  const std::int64_t cpu = resource_weight("binpack.cpu");
  const std::int64_t memory = resource_weight("binpack.memory");
  std::vector<std::string> listed;
  std::vector<std::string> weighted;  // resources other than CPU and memory with a weight
  if (const YAML::Node resources = argument(p, "binpack.resources")) {
    const std::string text = r.text(resources, arg_path(p, "binpack.resources"));
    std::size_t begin = 0;
    while (begin <= text.size()) {
      const std::size_t comma = std::min(text.find(',', begin), text.size());
      std::string name = text.substr(begin, comma - begin);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      begin = comma + 1;
      if (name.empty()) continue;
      listed.push_back(name);
      // binpack.cpu and binpack.memory win over a listed cpu or memory.
      if (name != "cpu" && name != "memory" && resource_weight(prefix + name) > 0) weighted.push_back(name);
    }
  }
  if (p.arguments && p.arguments.IsMap()) {
    for (const auto& entry : p.arguments) {
      const std::string key = entry.first.as<std::string>();
      if (key.starts_with(prefix) && std::find(listed.begin(), listed.end(), key.substr(prefix.size())) == listed.end()) {
        r.fail(entry.first, arg_path(p, key),
               fmt::format("'{}' is not listed in binpack.resources, so Volcano ignores its weight", key.substr(prefix.size())));
      }
    }
  }
  if (weight == 0 || (cpu == 0 && memory == 0 && weighted.empty())) return;  // no binpack score at all
  if (!weighted.empty()) {
    r.fail(argument(p, "binpack.resources"), arg_path(p, "binpack.resources"),
           fmt::format("weights for {} are not modelled: gpusim's most-allocated scores CPU and memory only (for GPU "
                       "packing, gpusim's own placement: plugin gpusim with gpusim.score: gpu-packing or best-fit)",
                       fmt::join(weighted, ", ")));
  }
  if (cpu != memory) {
    r.fail(argument(p, cpu == 1 ? "binpack.memory" : "binpack.cpu"), arg_path(p, cpu == 1 ? "binpack.memory" : "binpack.cpu"),
           fmt::format("binpack.cpu {} and binpack.memory {} differ: gpusim's most-allocated weighs CPU and memory equally",
                       cpu, memory));
  }
  scores.add("most-allocated", weight);
  notes.push_back("binpack: gpusim's most-allocated (kube-scheduler's MostAllocated, whole percentages averaged over CPU "
                  "and memory); Volcano's binpack keeps fractions and averages over the resources a pod asks, so nodes "
                  "within a percent may rank differently");
}

// gpusim's own placement in a Volcano configuration (not a Volcano plugin; Volcano logs and skips
// plugins it does not know): a profile's score, gpuSelection and tieBreak, so that a
// configuration can keep what a built-in gpusim policy places with.
void map_gpusim(const io::YamlFields& r, const PluginOption& p, const sched::Registry* registry, sched::Profile& profile) {
  known_arguments(r, p, {"gpusim.score", "gpusim.gpuSelection", "gpusim.tieBreak"});
  const auto canonical = [&](const YAML::Node& node, const std::string& path, const std::string& name) {
    if (registry == nullptr) return name;
    const auto found = registry->canonical(name);
    if (!found) r.fail(node, path, fmt::format("'{}' is not a gpusim plugin (known: {})", name, fmt::join(registry->names(), ", ")));
    return *found;
  };
  profile.score.clear();
  if (const YAML::Node score = argument(p, "gpusim.score")) {
    const std::string path = arg_path(p, "gpusim.score");
    const std::string text = r.text(score, path);
    std::size_t begin = 0;
    while (begin <= text.size()) {
      const std::size_t comma = std::min(text.find(',', begin), text.size());
      std::string item = text.substr(begin, comma - begin);
      begin = comma + 1;
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      if (item.empty()) r.fail(score, path, "an empty plugin name (expected e.g. 'best-fit' or 'fgd:2, best-fit:1')");
      std::int64_t weight = 1;
      if (const std::size_t colon = item.find(':'); colon != std::string::npos) {
        const std::string w = item.substr(colon + 1);
        const auto [end, error] = std::from_chars(w.data(), w.data() + w.size(), weight);
        if (error != std::errc{} || end != w.data() + w.size() || weight < 1 || weight > kMaxWeight) {
          r.fail(score, path, fmt::format("'{}': the weight after ':' must be an integer from 1 to {}", item, kMaxWeight));
        }
        item.erase(colon);
      }
      const std::string plugin = canonical(score, path, item);
      if (std::any_of(profile.score.begin(), profile.score.end(), [&](const auto& s) { return s.name == plugin; })) {
        r.fail(score, path, fmt::format("'{}' is named twice", plugin));
      }
      profile.score.push_back({plugin, weight});
    }
  }
  if (const YAML::Node selection = argument(p, "gpusim.gpuSelection")) {
    const std::string path = arg_path(p, "gpusim.gpuSelection");
    profile.gpu_selection = canonical(selection, path, r.text(selection, path));
  }
  if (const YAML::Node tie = argument(p, "gpusim.tieBreak")) {
    const std::string value = r.text(tie, arg_path(p, "gpusim.tieBreak"));
    if (value == "node-index") profile.tie_break = sched::TieBreak::kNodeIndex;
    else if (value == "seeded-rank") profile.tie_break = sched::TieBreak::kSeededRank;
    else r.fail(tie, arg_path(p, "gpusim.tieBreak"), fmt::format("'{}' is not node-index or seeded-rank", value));
  }
}

// predicates (pkg/scheduler/plugins/predicates/predicates.go): kube-scheduler's filters. gpusim's
// node-affinity and taint-toleration are its NodeAffinity and TaintToleration; the others (node
// ports, inter-pod affinity, volumes, topology spread, DRA) never reject a gpusim pod, which has
// none of what they check.
void map_predicates(const io::YamlFields& r, const PluginOption& p, sched::Profile& profile) {
  known_arguments(r, p,
                  {"predicate.NodeAffinityEnable", "predicate.NodePortsEnable", "predicate.TaintTolerationEnable",
                   "predicate.PodAffinityEnable", "predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable",
                   "predicate.PodTopologySpreadEnable", "predicate.VolumeBindingEnable",
                   "predicate.DynamicResourceAllocationEnable", "predicate.CacheEnable"});
  for (const char* key : {"predicate.NodePortsEnable", "predicate.PodAffinityEnable", "predicate.NodeVolumeLimitsEnable",
                          "predicate.VolumeZoneEnable", "predicate.PodTopologySpreadEnable", "predicate.VolumeBindingEnable",
                          "predicate.DynamicResourceAllocationEnable", "predicate.CacheEnable"}) {
    bool_argument(r, p, key);  // checked; nothing in gpusim's pods for them to reject
  }
  if (bool_argument(r, p, "predicate.NodeAffinityEnable").value_or(true)) profile.filter.push_back("node-affinity");
  if (bool_argument(r, p, "predicate.TaintTolerationEnable").value_or(true)) profile.filter.push_back("taint-toleration");
}

}  // namespace

VolcanoSchedulerConf map_to_profile(const io::YamlFields& r, const ParsedConf& conf, const std::string& name,
                                    const sched::Registry* registry) {
  VolcanoSchedulerConf out;
  out.actions = conf.actions;
  std::vector<std::string>& notes = out.notes;
  const auto has_action = [&](const char* a) { return std::find(conf.actions.begin(), conf.actions.end(), a) != conf.actions.end(); };

  // ---- plugins: known, modelled, each once
  std::map<std::string, const PluginOption*> plugins;
  for (const PluginOption& p : conf.plugins) {
    const YAML::Node name_node = p.node["name"];
    if (const auto it = not_modelled().find(p.name); it != not_modelled().end()) {
      r.fail(name_node, p.field + ".name", fmt::format("Volcano's {} plugin ({}) is not modelled by gpusim", p.name, it->second));
    }
    if (p.name != kGpusimPlugin && std::find_if(std::begin(kModelled), std::end(kModelled), [&](const char* m) { return p.name == m; }) ==
                                       std::end(kModelled)) {
      r.fail(name_node, p.field + ".name",
             fmt::format("'{}' is not a Volcano plugin (gpusim models {}, and {}: gpusim's own placement)", p.name,
                         fmt::join(kModelled, ", "), kGpusimPlugin));
    }
    if (const auto [it, fresh] = plugins.emplace(p.name, &p); !fresh) {
      r.fail(name_node, p.field + ".name", fmt::format("'{}' is named twice (first at {})", p.name, it->second->field));
    }
  }
  const auto find = [&](const char* n) -> const PluginOption* {
    const auto it = plugins.find(n);
    return it == plugins.end() ? nullptr : it->second;
  };
  for (const char* plain : {"priority", "gang", "conformance", "drf", "proportion"}) {
    if (const PluginOption* p = find(plain)) known_arguments(r, *p, {});
  }

  // ---- actions (pkg/scheduler/actions/*)
  const YAML::Node& an = conf.actions_node;
  if (has_action("preempt")) {
    r.fail(an, "actions",
           "preempt is not modelled: Volcano's preempt evicts, within a queue, jobs of lower priority (the priority, gang "
           "and drf plugins' victim rules); gpusim's preemption is kube-scheduler's DefaultPreemption across queues");
  }
  if (has_action("shuffle")) r.fail(an, "actions", "shuffle (evicting what the rescheduling plugin picks) is not modelled");
  if (has_action("gangpreempt") || has_action("gangreclaim")) {
    r.fail(an, "actions", "gangpreempt and gangreclaim (gang-aware eviction) are not modelled; reclaim is");
  }
  if (!has_action("allocate")) {
    r.fail(an, "actions",
           "no allocate: gpusim places pods as Volcano's allocate action does; without it Volcano places none (backfill "
           "places only best-effort pods)");
  }
  const PluginOption* proportion = find("proportion");
  const PluginOption* capacity = find("capacity");
  if (proportion && capacity) {
    const PluginOption* second = std::less<const PluginOption*>()(proportion, capacity) ? capacity : proportion;
    r.fail(second->node["name"], second->field + ".name",
           "proportion and capacity both set the queues' deserved resources; gpusim runs one (Volcano's documentation "
           "uses them as alternatives)");
  }
  const PluginOption* quota = proportion ? proportion : capacity;
  const bool reclaim = has_action("reclaim");
  if (reclaim && quota == nullptr) {
    r.fail(an, "actions",
           "reclaim without proportion or capacity is not modelled: gpusim reclaims for queues below their deserved GPUs, "
           "which one of those plugins sets");
  }
  if (has_action("enqueue")) {
    const PluginOption* overcommit = find("overcommit");
    std::string gates;
    if (overcommit) {
      const double factor = number_argument(r, *overcommit, "overcommit-factor").value_or(1.2);
      gates = fmt::format("the overcommit plugin's {} x the cluster's idle resources", factor);
    }
    if (quota) gates += std::string(gates.empty() ? "" : ", ") + "the queue's capability";
    notes.push_back(fmt::format("action enqueue: gpusim admits every job at once (no PodGroup Inqueue stage){}",
                                gates.empty() ? std::string()
                                              : "; Volcano holds a job back while its minimum resources pass " + gates));
  }
  if (const PluginOption* overcommit = find("overcommit")) {
    known_arguments(r, *overcommit, {"overcommit-factor"});
    if (const auto factor = number_argument(r, *overcommit, "overcommit-factor"); factor && *factor < 1) {
      r.fail(argument(*overcommit, "overcommit-factor"), arg_path(*overcommit, "overcommit-factor"),
             fmt::format("{} is below 1: Volcano ignores it and uses 1.2", *factor));
    }
  }
  if (!has_action("backfill")) {
    notes.push_back("no backfill action: Volcano never places best-effort pods (no resource requests); gpusim's cycle "
                    "places them like any pod");
  }
  const auto position = [&](const char* a) { return std::find(conf.actions.begin(), conf.actions.end(), a) - conf.actions.begin(); };
  if (reclaim && position("reclaim") < position("allocate")) {
    notes.push_back("actions: gpusim runs allocate, then reclaim, in every cycle, whatever their order here");
  }

  // ---- the profile
  sched::Profile& profile = out.profile;
  profile.name = name;
  profile.filter = {"node-resources-fit", "gpu-fit"};
  profile.gpu_selection = "first-fit";  // the kubelet's device manager picks the devices
  profile.tie_break = sched::TieBreak::kSeededRank;
  profile.queue_mode = sched::QueueMode::kSkip;  // allocate tries the next job of a queue when one does not fit

  // priority (pkg/scheduler/plugins/priority/priority.go): jobs by PriorityClass value, then (the
  // session's fallback) by creation time. Without it, creation time alone.
  const PluginOption* priority = find("priority");
  profile.queue_sort = priority && priority->enabled("enableJobOrder") ? "priority" : "fifo";

  // gang (pkg/scheduler/plugins/gang/gang.go): a job's pods are committed only when its
  // minAvailable pods all fit (JobReadyFn), which gpusim's whole-gang placement is.
  if (const PluginOption* gang = find("gang")) {
    out.gang = true;
    refuse_off(r, *gang, "enableJobReady",
               "false is not modelled: gpusim places a gang's workers together, as gang's JobReadyFn does; without it "
               "Volcano binds them one by one as they fit");
  } else {
    notes.push_back("no gang plugin: Volcano would bind a job's pods one by one as they fit; gpusim places a gang's "
                    "workers together (workloads without gangs are not affected)");
  }

  // drf (pkg/scheduler/plugins/drf/drf.go): orders the jobs of a queue by their dominant share.
  if (const PluginOption* drf = find("drf")) {
    if (drf->flags.count("enableHierarchy") && drf->flags.at("enableHierarchy")) {
      r.fail(drf->flag_nodes.at("enableHierarchy"), drf->field + ".enableHierarchy",
             "hierarchical DRF (queues ordered and reclaimed by hierarchical dominant shares) is not modelled");
    }
    notes.push_back("drf: orders a queue's jobs by the share they hold, and a waiting gpusim job holds nothing (it is "
                    "placed whole), so the order falls through to the next rule; gpusim's drf policy (DRF across queues) "
                    "is another thing");
  }

  // proportion (pkg/scheduler/plugins/proportion/proportion.go) and capacity
  // (pkg/scheduler/plugins/capacity/capacity.go): queue order by share, allocatable, reclaim.
  if (quota) {
    profile.queue_quotas = quota == proportion ? sched::QueueQuotaMode::kProportion : sched::QueueQuotaMode::kCapacity;
    profile.queue_admission_plugin = quota == proportion ? "proportion" : "capacity";
    profile.reclaim = reclaim;
    if (quota->flags.count("enableHierarchy") && quota->flags.at("enableHierarchy")) {
      r.fail(quota->flag_nodes.at("enableHierarchy"), quota->field + ".enableHierarchy",
             "hierarchical queues are not modelled: gpusim's queues are flat");
    }
    refuse_off(r, *quota, "enableQueueOrder", "false is not modelled: gpusim always serves the queue with the smallest share first");
    refuse_off(r, *quota, "enabledAllocatable", "false is not modelled: gpusim always keeps a queue within its limit");
    if (reclaim) {
      refuse_off(r, *quota, "enableReclaimable", "false is not modelled: gpusim's reclaim takes victims by this plugin's rule");
      refuse_off(r, *quota, "enablePreemptive", "false is not modelled: gpusim's reclaim asks this plugin whether a queue may reclaim");
    }
    if (quota == capacity) {
      known_arguments(r, *capacity, {"ancestorReclaimLevel", "capacity.DynamicResourceAllocationEnable",
                                     "capacity.DRAConsumableCapacityEnable"});
      int_argument(r, *capacity, "ancestorReclaimLevel", -kMaxWeight, kMaxWeight);  // hierarchy only
      bool_argument(r, *capacity, "capacity.DynamicResourceAllocationEnable");  // DRA claims: gpusim's pods have none
      bool_argument(r, *capacity, "capacity.DRAConsumableCapacityEnable");
    } else {
      notes.push_back("proportion: gpusim lets a queue take GPUs beyond its deserved share while they are idle (up to its "
                      "real capability, as capacity does) and does not skip overused queues; Volcano's proportion allocates "
                      "only within deserved, which its water-filling raises to what the queue asks while GPUs are free");
    }
    if (reclaim) {
      std::vector<std::string> filters;
      for (const char* filter : {"gang", "conformance"}) {
        if (find(filter)) filters.emplace_back(filter);
      }
      notes.push_back(fmt::format("reclaim: victims follow {}'s rule (policies/README.md, \"Queue quotas\"){}", quota->name,
                                  filters.empty() ? std::string()
                                                  : fmt::format("; the victim filters of {} are not modelled",
                                                                fmt::join(filters, " and "))));
    }
  } else {
    notes.push_back("no proportion or capacity: Volcano serves queues one after another in their creation order; gpusim "
                    "orders the jobs of every queue together (the same for a workload with one queue)");
  }

  // Filters and scores.
  const auto on = [&](const char* n, const char* flag) {
    const PluginOption* p = find(n);
    return p != nullptr && p->enabled(flag) ? p : nullptr;
  };
  if (const PluginOption* predicates = on("predicates", "enablePredicate")) map_predicates(r, *predicates, profile);
  Scores scores;
  if (const PluginOption* nodeorder = on("nodeorder", "enableNodeOrder")) map_nodeorder(r, *nodeorder, scores, notes);
  if (const PluginOption* binpack = on("binpack", "enableNodeOrder")) map_binpack(r, *binpack, scores, notes);
  profile.score = scores.list;
  if (const PluginOption* gpusim = find(kGpusimPlugin)) {
    for (const char* volcano_score : {"nodeorder", "binpack"}) {
      if (const PluginOption* other = on(volcano_score, "enableNodeOrder")) {
        r.fail(other->node["name"], other->field + ".name",
               fmt::format("{} and gpusim's own placement (plugin {}) both rank nodes; give one", volcano_score, kGpusimPlugin));
      }
    }
    if (!gpusim->flags.empty()) {
      r.fail(gpusim->flag_nodes.begin()->second, gpusim->field + "." + gpusim->flags.begin()->first,
             "gpusim's own placement takes no enable flags");
    }
    map_gpusim(r, *gpusim, registry, profile);
  } else {
    notes.push_back("ties: Volcano picks one of the best-scored nodes at random for each task; gpusim takes the first of "
                    "them in a random order of the nodes drawn once per run (seeded)");
  }
  return out;
}

}  // namespace gpusim::k8s::volcano
