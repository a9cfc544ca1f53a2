#include "sim/config/config_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <string_view>
#include <vector>

#include "policies/register_builtin.hpp"
#include "sim/config/kube_scheduler_config.hpp"
#include "sim/config/retired_profile_yaml.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "sim/k8s/kai_queues.hpp"
#include "sim/k8s/kueue_objects.hpp"
#include "sim/k8s/plugin_config_files.hpp"
#include "sim/k8s/volcano_queues.hpp"
#include "sim/k8s/volcano_scheduler_conf.hpp"
#include "traces/k8s/config_map.hpp"

namespace gpusim::config {
namespace {

std::string read_scheduler_config(const std::string& text, const std::string& source, RunConfiguration& into) {
  const sched::Registry registry = policy::builtin_registry();
  SchedulerConfiguration config = parse_kube_scheduler_config(text, source, registry);
  std::vector<std::string> names;
  for (sched::Profile& profile : config.profiles) {
    // A run refuses it too: reports compare the built-in policies with published figures.
    if (sched::builtin_policy_name(profile.name)) {
      throw core::InputError(fmt::format("{}: schedulerName '{}' is a built-in policy's; give the profile a name of its own",
                                         source, profile.name));
    }
    names.push_back(profile.name);
    into.profiles.push_back(std::move(profile));
    into.profile_sources.push_back(source);
  }
  into.notes.insert(into.notes.end(), config.notes.begin(), config.notes.end());
  return fmt::format("{} profile{}: {}", names.size(), names.size() == 1 ? "" : "s", fmt::join(names, ", "));
}

// The device plugins' files (sim/k8s/plugin_config_files.hpp) are checked alone: no cluster, so
// what depends on its nodes (labels, names) is checked when a run reads them.
template <k8s::PluginConfigKind kKind>
bool is_plugin_config(const YAML::Node& doc) {
  return k8s::plugin_config_kind(doc) == kKind;
}
template <k8s::PluginConfigKind kKind>
std::string read_plugin_config(const std::string& text, const std::string& source, RunConfiguration& into) {
  k8s::KubeSettings scratch;
  const std::vector<std::string> notes = k8s::read_plugin_config(kKind, text, source, {}, scratch);
  for (const std::string& note : notes) into.notes.push_back(fmt::format("{}: {}", source, note));
  return "read (its node selection is checked when a run applies it to a cluster)";
}

std::string read_volcano_conf(const std::string& text, const std::string& source, RunConfiguration& into) {
  const sched::Registry registry = policy::builtin_registry();
  k8s::VolcanoSchedulerConf conf = k8s::parse_volcano_scheduler_conf(text, source, &registry);
  for (const std::string& note : conf.notes) into.notes.push_back(fmt::format("{}: {}", source, note));
  const std::string account = fmt::format("policy {} (actions: {})", conf.profile.name, fmt::join(conf.actions, ", "));
  into.profiles.push_back(std::move(conf.profile));
  into.profile_sources.push_back(source);
  return account;
}

std::string read_volcano_queues(const std::string& text, const std::string& source, RunConfiguration& into) {
  const k8s::VolcanoQueueList queues = k8s::parse_volcano_queue_list(text, source);
  for (const std::string& note : queues.notes) into.notes.push_back(fmt::format("{}: {}", source, note));
  std::vector<std::string> names;
  for (const k8s::VolcanoQueue& queue : queues.queues) names.push_back(queue.name);
  return fmt::format("{} queue{}: {}", names.size(), names.size() == 1 ? "" : "s", fmt::join(names, ", "));
}

// Kueue's objects are checked one file at a time: what they name in other files (flavors,
// ClusterQueues, parent Cohorts) is checked when a run reads them all.
std::string read_kueue_objects(const std::string& text, const std::string& source, RunConfiguration& into) {
  k8s::kueue::Objects objects;
  k8s::kueue::parse_kueue_objects(text, source, objects);
  for (const std::string& note : objects.notes) into.notes.push_back(fmt::format("{}: {}", source, note));
  std::vector<std::string> counts;
  const auto count = [&](std::size_t n, const char* kind) {
    if (n > 0) counts.push_back(fmt::format("{} {}{}", n, kind, n == 1 ? "" : "s"));
  };
  count(objects.resource_flavors.size(), "ResourceFlavor");
  count(objects.cluster_queues.size(), "ClusterQueue");
  count(objects.cohorts.size(), "Cohort");
  count(objects.local_queues.size(), "LocalQueue");
  count(objects.priority_classes.size(), "WorkloadPriorityClass");
  if (objects.configuration) counts.emplace_back("the Configuration");
  return fmt::format("{} (what they name in other files is checked when a run reads them all)", fmt::join(counts, ", "));
}

// KAI's Queues are checked one file at a time: parents in other files are checked when a run reads
// them all.
std::string read_kai_queues(const std::string& text, const std::string& source, RunConfiguration& into) {
  k8s::kai::Queues queues;
  k8s::kai::parse_kai_queues(text, source, queues);
  k8s::kai::check_kai_parent_cycles(queues);
  for (const std::string& note : queues.notes) into.notes.push_back(fmt::format("{}: {}", source, note));
  std::vector<std::string> names;
  for (const k8s::kai::Queue& q : queues.queues) names.push_back(q.name);
  return fmt::format("{} queue{}: {} (parents in other files are checked when a run reads them all)", names.size(),
                     names.size() == 1 ? "" : "s", fmt::join(names, ", "));
}

// Volcano's recognisers look at the first document as it is; multi-document files (Queues) are
// recognised by it as well.
bool is_volcano_conf(const YAML::Node& doc) { return k8s::is_volcano_scheduler_conf(doc); }
bool is_volcano_queues(const YAML::Node& doc) { return k8s::is_volcano_queue_list(doc); }

constexpr ConfigKind kKinds[] = {
    {"KubeSchedulerConfiguration", is_kube_scheduler_config, read_scheduler_config},
    {"NVIDIA device-plugin config", is_plugin_config<k8s::PluginConfigKind::kNvidiaDevicePlugin>,
     read_plugin_config<k8s::PluginConfigKind::kNvidiaDevicePlugin>},
    {"NVIDIA mig-parted config", is_plugin_config<k8s::PluginConfigKind::kMigParted>,
     read_plugin_config<k8s::PluginConfigKind::kMigParted>},
    {"NVIDIA vGPU Device Manager config", is_plugin_config<k8s::PluginConfigKind::kVgpuDeviceManager>,
     read_plugin_config<k8s::PluginConfigKind::kVgpuDeviceManager>},
    {"HAMi Helm values", is_plugin_config<k8s::PluginConfigKind::kHamiValues>, read_plugin_config<k8s::PluginConfigKind::kHamiValues>},
    {"HAMi device config", is_plugin_config<k8s::PluginConfigKind::kHamiDeviceConfig>,
     read_plugin_config<k8s::PluginConfigKind::kHamiDeviceConfig>},
    {"Volcano scheduler configuration", is_volcano_conf, read_volcano_conf},
    {"Volcano Queues", is_volcano_queues, read_volcano_queues},
    {"Kueue objects", k8s::kueue::is_kueue_file, read_kueue_objects},
    {"KAI Queues", k8s::kai::is_kai_file, read_kai_queues},
};

// The formats told by their top-level keys alone, with those keys (their readers' own lists).
struct KeyedFormat {
  const char* name;
  std::initializer_list<const char*> fields;
};
constexpr KeyedFormat kKeyedFormats[] = {
    {"NVIDIA's device-plugin config", {"version", "flags", "resources", "sharing", "imex"}},
    {"NVIDIA's mig-parted config", {"version", "mig-configs"}},
    {"NVIDIA's vGPU Device Manager config", {"version", "vgpu-configs"}},
};

// Levenshtein distance, for telling which format a misspelt key was meant for.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// `doc`'s first key that its nearest keyed format lacks (see the header), as "line: key: why";
// `line_of` turns a key's mark into the file's line.
std::optional<std::string> nearest_kind_typo(const YAML::Node& doc, const std::string& prefix,
                                             const std::function<int(const YAML::Mark&)>& line_of) {
  if (!doc.IsMap() || doc.size() == 0) return std::nullopt;
  const auto known = [](const KeyedFormat& format, const std::string& key) {
    return std::any_of(format.fields.begin(), format.fields.end(), [&](const char* f) { return key == f; });
  };
  // The format that knows most keys; on a tie, the one whose fields the other keys are nearest to
  // (the least edit distance, summed), then the first.
  const KeyedFormat* nearest = nullptr;
  std::size_t best = 0;
  std::size_t best_distance = 0;
  for (const KeyedFormat& format : kKeyedFormats) {
    std::size_t matches = 0;
    std::size_t distance = 0;
    for (const auto& entry : doc) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
      if (known(format, key)) {
        ++matches;
        continue;
      }
      std::size_t nearest_field = key.size() + 32;
      for (const char* f : format.fields) nearest_field = std::min(nearest_field, edit_distance(key, f));
      distance += nearest_field;
    }
    if (matches > best || (matches == best && matches > 0 && distance < best_distance)) {
      best = matches;
      best_distance = distance;
      nearest = &format;
    }
  }
  // At least half its keys: a file that only shares `version` with them is something else.
  if (nearest == nullptr || 2 * best < doc.size()) return std::nullopt;
  for (const auto& entry : doc) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
    if (entry.first.IsScalar() && known(*nearest, key)) continue;
    return fmt::format("{}: {}{}: unknown field of {} (known: {}), so the file reads as none of the kinds gpusim reads",
                       line_of(entry.first.Mark()), prefix, key, nearest->name, fmt::join(nearest->fields, ", "));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> unknown_field_of_nearest_kind(const YAML::Node& doc, const std::string& path) {
  const auto plain_line = [](const YAML::Mark& mark) { return mark.line + 1; };
  if (auto typo = nearest_kind_typo(doc, "", plain_line)) return fmt::format("{}:{}", path, *typo);
  // The GPU Operator's form: a ConfigMap whose data entries are device-plugin configs, each a block
  // scalar whose text starts on the line after its key.
  if (!traces::k8s::is_config_map(doc) || !doc["data"] || !doc["data"].IsMap()) return std::nullopt;
  for (const auto& entry : doc["data"]) {
    if (!entry.first.IsScalar() || !entry.second.IsScalar()) continue;
    YAML::Node inner;
    try {
      inner = YAML::Load(entry.second.Scalar());
    } catch (const YAML::Exception&) {
      continue;
    }
    const int block = entry.second.Mark().line + 1;
    const auto in_block = [block](const YAML::Mark& mark) { return block + mark.line + 1; };
    if (auto typo = nearest_kind_typo(inner, "data." + entry.first.Scalar() + ".", in_block)) {
      return fmt::format("{}:{}", path, *typo);
    }
  }
  return std::nullopt;
}


std::span<const ConfigKind> config_kinds() { return kKinds; }

std::string read_config_file(const std::string& path, RunConfiguration& into) {
  const std::string text = io::read_file(path, "configuration file");
  YAML::Node first;
  try {
    first = YAML::Load(text);  // the first document: enough to tell the kind
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(path, text, e));
  }
  const ConfigKind* found = nullptr;
  std::vector<std::string> names;
  for (const ConfigKind& kind : kKinds) {
    names.emplace_back(kind.name);
    if (!kind.recognise(first)) continue;
    if (found != nullptr) {
      throw core::InputError(fmt::format("{}:1: reads as both a {} and a {}", path, found->name, kind.name));
    }
    found = &kind;
  }
  if (found == nullptr) {
    if (is_retired_profile_yaml(first)) throw core::InputError(retired_profile_yaml_message(text, path, policy::builtin_registry()));
    if (const auto typo = unknown_field_of_nearest_kind(first, path)) throw core::InputError(*typo);
    throw core::InputError(fmt::format("{}:1: not a configuration file gpusim reads (kinds: {})", path, fmt::join(names, ", ")));
  }
  return fmt::format("{}: {}", found->name, found->read(text, path, into));
}

bool is_kube_scheduler_config_file(const std::string& path) {
  std::string text;
  try {
    text = io::read_file(path, "configuration file");
    return is_kube_scheduler_config(YAML::Load(text));
  } catch (const YAML::Exception&) {
    return false;
  } catch (const core::InputError&) {
    return false;
  }
}

}  // namespace gpusim::config
