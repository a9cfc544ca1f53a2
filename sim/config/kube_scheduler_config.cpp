#include "sim/config/kube_scheduler_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "policies/score/node_resources_fit_args.hpp"
#include "sim/config/kube_plugin_catalog.hpp"
#include "sim/config/policy_plugin_args.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "sim/sched/names.hpp"

namespace gpusim::config {
namespace {

constexpr std::string_view kGroup = "kubescheduler.config.k8s.io/";
constexpr std::string_view kVersion = "kubescheduler.config.k8s.io/v1";
// Weighted totals (weight x score <= 100, summed over plugins) stay far from int64 overflow.
constexpr std::int64_t kMaxScoreWeight = 1'000'000;

// One entry of a PluginSet's enabled list.
struct Entry {
  std::string name;  // as written
  std::int64_t weight = 0;  // 0: not given
  YAML::Node where;
};

struct PluginSet {
  std::vector<Entry> enabled;
  std::vector<Entry> disabled;
  bool given = false;
};

bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }
bool is(const std::string& name, std::string_view known) { return sched::name_key(name) == sched::name_key(known); }

// The key two names of one plugin share: gpusim's names of kube-scheduler's plugins (the aliases
// balanced-allocation and priority) count as the kube-scheduler name, so that enabling, disabling or
// configuring either reaches the same default plugin.
std::string same_name_key(std::string_view name) {
  if (name == "*") return "*";
  const std::string key = sched::name_key(name);
  if (key == "balancedallocation") return sched::name_key("NodeResourcesBalancedAllocation");
  if (key == "priority") return sched::name_key("PrioritySort");
  return key;
}

class Reader : public io::YamlFields {
 public:
  Reader(std::string file, const sched::Registry& registry) : io::YamlFields(std::move(file)), registry_(registry) {}

  PluginSet plugin_set(const YAML::Node& node, const std::string& field) const {
    PluginSet set;
    if (!present(node)) return set;
    if (!node.IsMap()) fail(node, field, "expected a mapping with enabled and disabled lists");
    only(node, field, {"enabled", "disabled"});
    set.given = true;
    set.enabled = entries(node["enabled"], field + ".enabled", true);
    set.disabled = entries(node["disabled"], field + ".disabled", false);
    return set;
  }

  // What the plugin name stands for at `point`: gpusim's framework plugin (registry name), a
  // known plugin, or nothing (an error).
  std::uint32_t points_of(const std::string& name) const {
    if (const KnownPlugin* known = find_known_plugin(name)) return known->points;
    const auto canonical = registry_.canonical(name);
    if (!canonical) return 0;
    if (registry_.kind(*canonical) == sched::PluginKind::kQueueing) return kQueueingPoints;
    const std::uint32_t builtin = builtin_framework_plugin_points(*canonical);
    return builtin != 0 ? builtin : kFrameworkPoints;
  }

  const sched::Registry& registry() const { return registry_; }

 private:
  std::vector<Entry> entries(const YAML::Node& list, const std::string& field, bool weights) const {
    std::vector<Entry> out;
    if (!present(list)) return out;
    if (!list.IsSequence()) fail(list, field, "expected a list of {name: ...}");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string at = fmt::format("{}[{}]", field, i);
      const YAML::Node item = list[i];
      if (!item.IsMap()) fail(item, at, "expected {name: ...}");
      if (weights) only(item, at, {"name", "weight"});
      else only(item, at, {"name"});
      if (!item["name"]) fail(item, at + ".name", "missing");
      Entry entry{text(item["name"], at + ".name"), 0, item};
      if (weights && present(item["weight"])) {
        // kube-scheduler: a weight of 0 (or none) is 1; a negative one is refused.
        entry.weight = integer(item["weight"], at + ".weight", 0, kMaxScoreWeight);
      }
      out.push_back(std::move(entry));
    }
    return out;
  }

  const sched::Registry& registry_;
};

// kube-scheduler's default plugins (v1): all in multiPoint, in this order.
PluginSet default_multi_point() {
  PluginSet set;
  for (const KnownPlugin& plugin : known_plugins()) {
    if (std::string_view(plugin.name) == "EBSLimits") break;  // the defaults end with DefaultBinder
    set.enabled.push_back({plugin.name, plugin.default_weight, YAML::Node()});
  }
  return set;
}

bool has_name(const std::vector<Entry>& entries, const std::string& name) {
  return std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return same_name_key(e.name) == same_name_key(name); });
}

// kube-scheduler's mergePluginSet (apis/config/v1/default_plugins.go): the defaults minus the
// disabled ones ("*": all), a default re-enabled by the user replaced in place by the user's entry
// (its weight), then the user's other entries in their order.
PluginSet merge_with_defaults(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet out;
  out.disabled = custom.disabled;
  out.given = custom.given;
  std::vector<bool> replaced(custom.enabled.size(), false);
  if (!has_name(custom.disabled, "*")) {
    for (const Entry& entry : defaults.enabled) {
      if (has_name(custom.disabled, entry.name)) continue;
      Entry kept = entry;
      for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
        if (same_name_key(custom.enabled[i].name) == same_name_key(entry.name)) {
          kept = custom.enabled[i];
          replaced[i] = true;
          break;
        }
      }
      out.enabled.push_back(kept);
    }
  }
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced[i]) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

// One extension point's plugins after kube-scheduler's expandMultiPointPlugins: the point's own
// entries that override a multiPoint one first, then multiPoint's (unless disabled at the point),
// then the point's other entries. Weights: the point's own entry's, else multiPoint's.
std::vector<Entry> expand(const Reader& reader, Point point, const PluginSet& own, const PluginSet& multi,
                          const std::string& field) {
  std::vector<Entry> overrides, from_multi, rest;
  for (const Entry& entry : own.enabled) {
    if (!(reader.points_of(entry.name) & bit(point))) {
      reader.fail(entry.where, field, fmt::format("plugin '{}' does not run at {}", entry.name, point_key(point)));
    }
    const bool in_multi = std::any_of(multi.enabled.begin(), multi.enabled.end(), [&](const Entry& m) {
      return same_name_key(m.name) == same_name_key(entry.name);
    });
    if (has_name(overrides, entry.name) || has_name(rest, entry.name)) {
      reader.fail(entry.where, field, fmt::format("plugin '{}' is enabled twice at {}", entry.name, point_key(point)));
    }
    (in_multi ? overrides : rest).push_back(entry);
  }
  if (!has_name(own.disabled, "*")) {
    for (const Entry& entry : multi.enabled) {
      if (!(reader.points_of(entry.name) & bit(point))) continue;
      if (has_name(own.disabled, entry.name) || has_name(overrides, entry.name)) continue;
      if (has_name(from_multi, entry.name)) {
        reader.fail(entry.where, "plugins.multiPoint", fmt::format("plugin '{}' is enabled twice", entry.name));
      }
      from_multi.push_back(entry);
    }
  }
  std::vector<Entry> out = std::move(overrides);
  out.insert(out.end(), from_multi.begin(), from_multi.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

struct Expanded {
  std::array<std::vector<Entry>, kPointCount> at;
  std::set<std::string> enabled_keys;  // every plugin enabled somewhere (name keys)
};

Expanded expand_plugins(const Reader& reader, const YAML::Node& plugins, const std::string& field) {
  std::array<PluginSet, kPointCount> own;
  PluginSet multi;
  if (present(plugins)) {
    if (!plugins.IsMap()) reader.fail(plugins, field, "expected a mapping of extension points");
    for (const auto& kv : plugins) {
      const std::string key = reader.key(kv.first, field);
      if (key == "multiPoint") {
        multi = reader.plugin_set(kv.second, field + ".multiPoint");
        continue;
      }
      const auto point = point_named(key);
      if (!point) {
        reader.fail(kv.first, field + "." + key,
                    "unknown extension point (kube-scheduler's: preEnqueue, queueSort, preFilter, filter, postFilter, "
                    "preScore, score, reserve, permit, preBind, bind, postBind, multiPoint; gpusim's: gpuSelection, "
                    "jobRank, round, queueAdmission)");
      }
      own[static_cast<std::size_t>(*point)] = reader.plugin_set(kv.second, field + "." + key);
    }
  }
  // Every name must be one gpusim knows, wherever it is written.
  const auto check_names = [&](const PluginSet& set, const std::string& at) {
    for (const auto* list : {&set.enabled, &set.disabled}) {
      for (const Entry& entry : *list) {
        if (entry.name == "*" && list == &set.disabled) continue;
        if (reader.points_of(entry.name) == 0) {
          reader.fail(entry.where, at,
                      fmt::format("unknown plugin '{}' (kube-scheduler's in-tree plugins, Coscheduling, gpusim's policy "
                                  "plugins and its placement plugins: {})",
                                  entry.name, fmt::join(reader.registry().names(), ", ")));
        }
      }
    }
  };
  check_names(multi, field + ".multiPoint");
  for (const Entry& entry : multi.enabled) {
    const auto canonical = reader.registry().canonical(entry.name);
    if (find_known_plugin(entry.name) == nullptr && canonical && builtin_framework_plugin_points(*canonical) == 0) {
      reader.fail(entry.where, field + ".multiPoint",
                  fmt::format("plugin '{}': name it at the extension points it implements (gpusim does not know them)", entry.name));
    }
  }
  for (std::size_t p = 0; p < kPointCount; ++p) check_names(own[p], fmt::format("{}.{}", field, point_key(static_cast<Point>(p))));
  const PluginSet merged_multi = merge_with_defaults(default_multi_point(), multi);
  Expanded out;
  for (std::size_t p = 0; p < kPointCount; ++p) {
    const Point point = static_cast<Point>(p);
    out.at[p] = expand(reader, point, own[p], merged_multi, fmt::format("{}.{}", field, point_key(point)));
    for (const Entry& entry : out.at[p]) out.enabled_keys.insert(same_name_key(entry.name));
  }
  return out;
}

// gpusim's framework plugin that stands for a kube-scheduler plugin at a point, or "" when gpusim
// runs nothing there for it (the note says why).
void add_unmodelled_note(const std::string& source, const std::string& name, std::vector<std::string>& notes) {
  const KnownPlugin* known = find_known_plugin(name);
  if (known != nullptr && *known->not_modelled != '\0') {
    notes.push_back(fmt::format("{}: {} is not run: {}", source, known->name, known->not_modelled));
  }
}

void fail_at_most_one(const Reader& reader, const std::vector<Entry>& entries, const YAML::Node& where, const std::string& field,
                      Point point) {
  if (entries.size() > 1) {
    reader.fail(entries[1].where.IsDefined() ? entries[1].where : where, field,
                fmt::format("at most one {} plugin (got {})", point_key(point), entries.size()));
  }
}

std::int64_t weight_of(const Entry& entry) { return entry.weight == 0 ? 1 : entry.weight; }

sched::Profile profile_from_yaml(const Reader& reader, const YAML::Node& node, const std::string& field,
                                 std::int32_t global_percentage, std::vector<std::string>& notes) {
  if (!node.IsMap()) reader.fail(node, field, "expected a profile mapping");
  reader.only(node, field, {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig", "tieBreak"});
  const std::string& source = reader.file();
  sched::Profile profile;
  profile.name = node["schedulerName"] ? reader.text(node["schedulerName"], field + ".schedulerName") : "default-scheduler";
  if (!sched::is_plain_name(profile.name)) {
    reader.fail(node["schedulerName"], field + ".schedulerName",
                fmt::format("'{}' must start with a letter or digit and hold only letters, digits, '.', '_' and '-' (it names "
                            "the output folder runs/<name>/)", profile.name));
  }
  profile.percentage_of_nodes_to_score = global_percentage;
  if (present(node["percentageOfNodesToScore"])) {
    profile.percentage_of_nodes_to_score =
        static_cast<std::int32_t>(reader.integer(node["percentageOfNodesToScore"], field + ".percentageOfNodesToScore", 0, 100));
  }
  if (const YAML::Node tie = node["tieBreak"]) {
    const std::string value = reader.text(tie, field + ".tieBreak");
    if (value == "SeededRank") profile.tie_break = sched::TieBreak::kSeededRank;
    else if (value == "NodeIndex") profile.tie_break = sched::TieBreak::kNodeIndex;
    else reader.fail(tie, field + ".tieBreak", fmt::format("'{}': expected SeededRank or NodeIndex", value));
  }
  const std::string plugins_field = field + ".plugins";
  const Expanded ex = expand_plugins(reader, node["plugins"], plugins_field);
  const auto at = [&](Point point) -> const std::vector<Entry>& { return ex.at[static_cast<std::size_t>(point)]; };
  const auto point_field = [&](Point point) { return fmt::format("{}.{}", plugins_field, point_key(point)); };
  const YAML::Node where = node["plugins"] ? node["plugins"] : node;
  const auto framework_name = [&](const Entry& entry) { return reader.registry().canonical(entry.name).value_or(entry.name); };
  const auto is_queueing = [&](const std::string& name) {
    const auto canonical = reader.registry().canonical(name);
    return canonical && reader.registry().kind(*canonical) == sched::PluginKind::kQueueing;
  };

  // Queue sort: exactly one, as kube-scheduler requires.
  if (at(Point::kQueueSort).size() != 1) {
    reader.fail(where, point_field(Point::kQueueSort),
                fmt::format("exactly one queueSort plugin is needed (got {})", at(Point::kQueueSort).size()));
  }
  const Entry& sort = at(Point::kQueueSort).front();
  // Coscheduling's order is priority, then the pod group's creation time: gpusim's gang workers
  // share their creation time, so it is the priority sort.
  profile.queue_sort = is(sort.name, "PrioritySort") || is(sort.name, "Coscheduling") ? "priority" : framework_name(sort);

  for (const Entry& entry : at(Point::kPreEnqueue)) {
    if (find_known_plugin(entry.name) == nullptr) reader.fail(entry.where, point_field(Point::kPreEnqueue), "gpusim has no preEnqueue plugins");
    add_unmodelled_note(source, entry.name, notes);
  }
  for (const Entry& entry : at(Point::kPreFilter)) {
    if (find_known_plugin(entry.name) == nullptr) profile.pre_filter.push_back(framework_name(entry));
  }
  profile.filter.clear();
  for (const Entry& entry : at(Point::kFilter)) {
    if (is(entry.name, "NodeResourcesFit")) {
      // gpusim splits it in two: CPU, memory and pods; GPUs and GPU devices.
      profile.filter.insert(profile.filter.end(), {"node-resources-fit", "gpu-fit"});
    } else if (is(entry.name, "NodeAffinity")) {
      profile.filter.push_back("node-affinity");
    } else if (is(entry.name, "TaintToleration")) {
      profile.filter.push_back("taint-toleration");
    } else if (is(entry.name, "NodeUnschedulable")) {
      // Cordoned nodes never reach gpusim's filters: the scheduler's cache holds them out.
    } else if (find_known_plugin(entry.name) != nullptr) {
      add_unmodelled_note(source, entry.name, notes);
    } else {
      profile.filter.push_back(framework_name(entry));
    }
  }
  if (std::find(profile.filter.begin(), profile.filter.end(), "node-resources-fit") == profile.filter.end()) {
    reader.fail(where, point_field(Point::kFilter),
                "NodeResourcesFit must be enabled: without it pods could be placed on nodes that cannot hold them");
  }
  for (const Entry& entry : at(Point::kPostFilter)) {
    if (is(entry.name, "DefaultPreemption")) {
      profile.preemption = sched::Preemption::kPriority;
      profile.job_rank_plugin = "default-preemption";
    }
    else if (is(entry.name, "Coscheduling")) continue;  // its PostFilter rejects a gang that cannot be whole
    else if (find_known_plugin(entry.name) != nullptr) add_unmodelled_note(source, entry.name, notes);
    else profile.post_filter.push_back(framework_name(entry));
  }
  profile.score.clear();
  for (const Entry& entry : at(Point::kScore)) {
    if (is(entry.name, "NodeResourcesFit")) {
      // Its default strategy (LeastAllocated over CPU and memory, weights 1) is gpusim's least-allocated.
      const bool scores = reader.registry().args_reader("node-resources-fit") != nullptr;
      profile.score.push_back({scores ? "node-resources-fit" : "least-allocated", weight_of(entry)});
    } else if (is(entry.name, "NodeResourcesBalancedAllocation")) {
      profile.score.push_back({"balanced-allocation", weight_of(entry)});
    } else if (find_known_plugin(entry.name) != nullptr) {
      add_unmodelled_note(source, entry.name, notes);
    } else {
      profile.score.push_back({framework_name(entry), weight_of(entry)});
    }
  }
  for (const Point point : {Point::kReserve, Point::kPermit, Point::kPreBind, Point::kPostBind}) {
    for (const Entry& entry : at(point)) {
      if (is(entry.name, "Coscheduling")) {
        if (point == Point::kPermit) {
          profile.gang_permit = true;
          profile.gang_permit_plugin = "coscheduling";
        }
      } else if (find_known_plugin(entry.name) != nullptr) {
        add_unmodelled_note(source, entry.name, notes);
      } else if (point == Point::kPermit && is_queueing(entry.name)) {
        profile.gang_permit_plugin = framework_name(entry);
      } else if (point == Point::kReserve) {
        profile.reserve.push_back(framework_name(entry));
      } else if (point == Point::kPermit) {
        profile.permit.push_back(framework_name(entry));
      } else {
        reader.fail(entry.where, point_field(point), fmt::format("gpusim has no {} plugins", point_key(point)));
      }
    }
  }
  if (at(Point::kBind).size() != 1) {
    reader.fail(where, point_field(Point::kBind), fmt::format("exactly one bind plugin is needed (got {})", at(Point::kBind).size()));
  }
  profile.bind = is(at(Point::kBind).front().name, "DefaultBinder") ? "default-binder" : framework_name(at(Point::kBind).front());

  // gpusim's points.
  for (const Point point : {Point::kGpuSelection, Point::kJobRank, Point::kRound, Point::kQueueAdmission}) {
    fail_at_most_one(reader, at(point), where, point_field(point), point);
  }
  // The kubelet's device manager takes the lowest free devices when the scheduler does not choose.
  profile.gpu_selection = at(Point::kGpuSelection).empty() ? "first-fit" : framework_name(at(Point::kGpuSelection).front());
  // A round plans who runs and places them itself: a queue admission or a gang's Permit wait would
  // have no cycle to act in (gpusim's rounds place gangs whole).
  if (!at(Point::kRound).empty()) {
    for (const Point other : {Point::kQueueAdmission, Point::kPermit}) {
      for (const Entry& entry : at(other)) {
        if (other == Point::kPermit && !is(entry.name, "Coscheduling") && !is_queueing(entry.name)) continue;
        reader.fail(entry.where, point_field(other),
                    fmt::format("'{}' cannot run with the round plugin '{}': a round plans and places the jobs of each "
                                "round itself", entry.name, at(Point::kRound).front().name));
      }
    }
  }
  // A queueing plugin registered beside the built-in ones (a later policy, or one a test defines)
  // is the plugin at its point, with no built-in setting.
  const auto custom = [&](Point point) {
    return !at(point).empty() && find_known_plugin(at(point).front().name) == nullptr;
  };
  if (custom(Point::kJobRank)) {
    profile.job_rank_plugin = framework_name(at(Point::kJobRank).front());
  } else if (!at(Point::kJobRank).empty()) {
    // A job ranking preempts by its rank: DefaultPreemption's priorities are not used then.
    const bool srtf = is(at(Point::kJobRank).front().name, "Srtf");
    profile.preemption = srtf ? sched::Preemption::kSrtf : sched::Preemption::kTiresias;
    profile.job_rank_plugin = srtf ? "srtf" : "tiresias";
  }
  if (custom(Point::kRound)) {
    profile.round_plugin = framework_name(at(Point::kRound).front());
  } else if (!at(Point::kRound).empty()) {
    const bool themis = is(at(Point::kRound).front().name, "Themis");
    profile.time_share = themis ? sched::TimeSharePolicy::kThemis : sched::TimeSharePolicy::kMaxMin;
    profile.round_plugin = themis ? "themis" : "gavel";
    profile.heterogeneity_aware = true;
  }
  if (custom(Point::kQueueAdmission)) {
    profile.queue_admission_plugin = framework_name(at(Point::kQueueAdmission).front());
  } else if (!at(Point::kQueueAdmission).empty()) {
    const std::string& name = at(Point::kQueueAdmission).front().name;
    if (is(name, "Strict")) profile.queue_mode = sched::QueueMode::kStrict;
    else if (is(name, "Backfill")) profile.queue_mode = sched::QueueMode::kBackfill;
    else if (is(name, "Drf")) profile.drf = true;
    else if (is(name, "Proportion")) profile.queue_quotas = sched::QueueQuotaMode::kProportion;
    else profile.queue_quotas = sched::QueueQuotaMode::kCapacity;
    profile.queue_admission_plugin = sched::name_key(name);
  }

  // pluginConfig: each enabled plugin's args, read by the plugin's own reader.
  if (const YAML::Node configs = node["pluginConfig"]; present(configs)) {
    const std::string config_field = field + ".pluginConfig";
    if (!configs.IsSequence()) reader.fail(configs, config_field, "expected a list of {name, args}");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const std::string item_field = fmt::format("{}[{}]", config_field, i);
      const YAML::Node item = configs[i];
      if (!item.IsMap()) reader.fail(item, item_field, "expected {name, args}");
      reader.only(item, item_field, {"name", "args"});
      if (!item["name"]) reader.fail(item, item_field + ".name", "missing");
      const std::string name = reader.text(item["name"], item_field + ".name");
      if (!seen.insert(same_name_key(name)).second) {
        reader.fail(item["name"], item_field + ".name", fmt::format("a second pluginConfig for '{}'", name));
      }
      if (!ex.enabled_keys.contains(same_name_key(name))) {
        reader.fail(item["name"], item_field + ".name",
                    fmt::format("'{}' is not enabled in this profile (its args would do nothing)", name));
      }
      const YAML::Node args = item["args"];
      const std::string args_field = item_field + ".args";
      if (is_policy_plugin_with_args(name)) {
        read_policy_args(reader, name, args, args_field, profile);
        continue;
      }
      // kube-scheduler's plugins that gpusim runs as its own framework plugins.
      std::string framework = reader.registry().canonical(name).value_or("");
      if (is(name, "NodeResourcesFit")) framework = "node-resources-fit";
      if (is(name, "NodeResourcesBalancedAllocation")) framework = "balanced-allocation";
      if (is(name, "DefaultPreemption")) framework = "default-preemption";
      const sched::ArgsReader* args_reader = framework.empty() ? nullptr : reader.registry().args_reader(framework);
      if (args_reader != nullptr) {
        profile.plugin_args[framework] = (*args_reader)(args, reader, args_field);
        if (const auto* fit = dynamic_cast<const policy::NodeResourcesFitArgs*>(profile.plugin_args[framework].get())) {
          for (const std::string& note : fit->notes()) notes.push_back(fmt::format("{}: {}", source, note));
        }
      } else if (is(name, "NodeAffinity") || is(name, "TaintToleration")) {
        // gpusim runs their filters as the pods ask, without args: NodeAffinity's addedAffinity
        // would restrict every pod's nodes, which gpusim does not model.
        reader.fail(item["name"], item_field + ".name",
                    fmt::format("gpusim runs {} without args (addedAffinity is not modelled); leave its pluginConfig out", name));
      } else if (find_known_plugin(name) != nullptr && *find_known_plugin(name)->not_modelled != '\0') {
        notes.push_back(fmt::format("{}: the args of {} are not read: gpusim does not run it", source, name));
      } else {
        reader.fail(item["name"], item_field + ".name", fmt::format("plugin '{}' takes no args in gpusim", name));
      }
    }
  }
  return profile;
}

}  // namespace

bool is_kube_scheduler_config(const YAML::Node& doc) {
  if (!doc.IsMap() || !doc["apiVersion"] || !doc["apiVersion"].IsScalar()) return false;
  return doc["apiVersion"].as<std::string>().starts_with(kGroup);
}

SchedulerConfiguration parse_kube_scheduler_config(const std::string& text, const std::string& source,
                                                   const sched::Registry& registry) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  const Reader reader(source, registry);
  SchedulerConfiguration out;
  try {
    if (!doc.IsMap()) throw core::InputError(fmt::format("{}:1: expected a KubeSchedulerConfiguration mapping", source));
    reader.only(doc, "", {"apiVersion", "kind", "parallelism", "leaderElection", "clientConnection", "healthzBindAddress",
                          "metricsBindAddress", "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
                          "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders",
                          "delayCacheUntilActive"});
    if (!doc["apiVersion"]) reader.fail(doc, "apiVersion", "missing (kubescheduler.config.k8s.io/v1)");
    const std::string version = reader.text(doc["apiVersion"], "apiVersion");
    if (version != kVersion) {
      reader.fail(doc["apiVersion"], "apiVersion",
                  fmt::format("'{}': gpusim reads {} (v1beta2 was removed from kube-scheduler in 1.28, v1beta3 in "
                              "1.29)", version, kVersion));
    }
    if (!doc["kind"] || reader.text(doc["kind"], "kind") != "KubeSchedulerConfiguration") {
      reader.fail(doc["kind"] ? doc["kind"] : doc, "kind", "expected KubeSchedulerConfiguration");
    }
    for (const char* key : {"parallelism", "leaderElection", "clientConnection", "healthzBindAddress", "metricsBindAddress",
                            "enableProfiling", "enableContentionProfiling", "delayCacheUntilActive"}) {
      if (doc[key]) out.notes.push_back(fmt::format("{}: {} does not change a simulation; ignored", source, key));
    }
    for (const char* key : {"podInitialBackoffSeconds", "podMaxBackoffSeconds"}) {
      if (doc[key]) {
        reader.integer(doc[key], key, 1, 1'000'000'000);
        out.notes.push_back(fmt::format("{}: {} is not modelled: gpusim tries an unschedulable pod again at every change "
                                        "of the cluster (kube-scheduler's queueing hints), without a backoff", source, key));
      }
    }
    if (present(doc["extenders"])) {
      reader.fail(doc["extenders"], "extenders",
                  "gpusim runs the extenders of the device plugins it models (HAMi's, gpushare's) on the nodes that use "
                  "them; other extenders cannot be simulated");
    }
    std::int32_t global_percentage = 0;
    if (present(doc["percentageOfNodesToScore"])) {
      global_percentage = static_cast<std::int32_t>(reader.integer(doc["percentageOfNodesToScore"], "percentageOfNodesToScore", 0, 100));
    }
    std::vector<YAML::Node> profiles;
    if (present(doc["profiles"])) {
      if (!doc["profiles"].IsSequence()) reader.fail(doc["profiles"], "profiles", "expected a list of profiles");
      for (const auto& p : doc["profiles"]) profiles.push_back(p);
    }
    // kube-scheduler defaults an absent or empty list to one profile (SetDefaults_KubeSchedulerConfiguration,
    // pkg/scheduler/apis/config/v1/defaults.go: `if len(obj.Profiles) == 0`).
    if (profiles.empty()) profiles.emplace_back(YAML::NodeType::Map);
    std::set<std::string> names;
    for (std::size_t i = 0; i < profiles.size(); ++i) {
      const std::string field = fmt::format("profiles[{}]", i);
      sched::Profile profile = profile_from_yaml(reader, profiles[i], field, global_percentage, out.notes);
      if (!names.insert(profile.name).second) {
        reader.fail(profiles[i]["schedulerName"] ? profiles[i]["schedulerName"] : profiles[i], field + ".schedulerName",
                    fmt::format("'{}' names another profile too", profile.name));
      }
      out.profiles.push_back(std::move(profile));
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
  std::sort(out.notes.begin(), out.notes.end());
  out.notes.erase(std::unique(out.notes.begin(), out.notes.end()), out.notes.end());
  return out;
}

SchedulerConfiguration read_kube_scheduler_config(const std::filesystem::path& path, const sched::Registry& registry) {
  return parse_kube_scheduler_config(io::read_file(path, "KubeSchedulerConfiguration"), path.string(), registry);
}

}  // namespace gpusim::config
