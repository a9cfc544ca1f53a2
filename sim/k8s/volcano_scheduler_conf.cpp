// Reads Volcano's scheduler configuration, bare or in its ConfigMap, into actions and plugin options
// (conf.SchedulerConfiguration and conf.PluginOption in volcano-sh/volcano
// pkg/scheduler/conf/scheduler_conf.go; the actions are split on ',' and trimmed as
// pkg/scheduler/util.go's UnmarshalSchedulerConf does). volcano_plugins.cpp maps them to a profile.
// Volcano decodes the file leniently (gopkg.in/yaml.v2 drops unknown keys); gpusim refuses them.
#include "sim/k8s/volcano_scheduler_conf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/k8s/volcano_conf_parts.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::k8s {
namespace {

using volcano::ParsedConf;
using volcano::PluginOption;

constexpr const char* kConfKey = "volcano-scheduler.conf";

// conf.PluginOption's enable flags, spelt as its yaml tags are (some "enabled...", most "enable...").
constexpr const char* kFlags[] = {
    "enableJobOrder",        "enableHierarchy",       "enableJobReady",         "enableJobPipelined",
    "enableTaskOrder",       "enablePreemptable",     "enableReclaimable",      "enablePreemptive",
    "enableQueueOrder",      "enabledClusterOrder",   "enablePredicate",        "enableBestNode",
    "enableNodeOrder",       "enableTargetJob",       "enableReservedNodes",    "enableJobEnqueued",
    "enabledVictim",         "enableJobStarving",     "enabledOverused",        "enabledAllocatable",
    "enabledHyperNodeOrder", "enabledSubJobReady",    "enabledSubJobPipelined", "enabledSubJobOrder",
    "enabledHyperNodeGradient"};

// The actions Volcano registers (pkg/scheduler/actions/factory.go).
constexpr const char* kActions[] = {"enqueue", "allocate", "backfill", "reclaim", "preempt", "gangpreempt", "gangreclaim",
                                    "shuffle"};

void keys_once(const io::YamlFields& r, const YAML::Node& map, const std::string& field) {
  std::map<std::string, int> seen;
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) r.fail(entry.first, field.empty() ? "object" : field, "expected a text key");
    const std::string key = entry.first.Scalar();
    const auto [it, fresh] = seen.emplace(key, entry.first.Mark().line + 1);
    if (!fresh) {
      r.fail(entry.first, field.empty() ? key : field + "." + key, fmt::format("given twice (first on line {})", it->second));
    }
  }
}

// A mapping whose keys are each one of `known`, given once.
void only_once(const io::YamlFields& r, const YAML::Node& map, const std::string& field,
               std::initializer_list<const char*> known) {
  if (!map.IsMap()) r.fail(map, field.empty() ? "conf" : field, "expected a mapping");
  keys_once(r, map, field);
  r.only(map, field, known);
}

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::vector<std::string> read_actions(const io::YamlFields& r, const YAML::Node& node) {
  const std::string text = r.text(node, "actions");
  std::vector<std::string> actions;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string name = trim(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (std::find(std::begin(kActions), std::end(kActions), name) == std::end(kActions)) {
      r.fail(node, "actions",
             name.empty() ? std::string("an empty action name (Volcano fails to find an action named '')")
                          : fmt::format("'{}' is not a Volcano action (actions: {})", name, fmt::join(kActions, ", ")));
    }
    if (std::find(actions.begin(), actions.end(), name) != actions.end()) {
      r.fail(node, "actions", fmt::format("'{}' is listed twice (Volcano would run it twice a session)", name));
    }
    actions.push_back(name);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return actions;
}

PluginOption read_plugin(const io::YamlFields& r, const YAML::Node& node, const std::string& field, std::size_t tier) {
  if (!node.IsMap()) r.fail(node, field, "expected a mapping with the plugin's name");
  keys_once(r, node, field);
  PluginOption option;
  option.field = field;
  option.tier = tier;
  option.node = node;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    const std::string path = field + "." + key;
    if (key == "name") {
      option.name = r.text(entry.second, path);
    } else if (key == "arguments") {
      if (!entry.second.IsNull() && !entry.second.IsMap()) r.fail(entry.second, path, "expected a mapping of arguments");
      if (entry.second.IsMap()) keys_once(r, entry.second, path);
      option.arguments = entry.second;
    } else if (std::find_if(std::begin(kFlags), std::end(kFlags), [&](const char* f) { return key == f; }) != std::end(kFlags)) {
      option.flags[key] = r.boolean(entry.second, path);
      option.flag_nodes[key] = entry.second;
    } else {
      r.fail(entry.first, path, fmt::format("unknown field (known: name, arguments, {})", fmt::join(kFlags, ", ")));
    }
  }
  if (!node["name"]) r.fail(node, field + ".name", "missing: the plugin's name");
  return option;
}

// The action arguments Volcano reads (framework.GetArgOfActionFromConf): predicateErrorCacheEnable
// (allocate, backfill, reclaim, preempt) caches filter results, which changes no decision.
void read_configurations(const io::YamlFields& r, const YAML::Node& list, const std::vector<std::string>& actions) {
  if (!list || list.IsNull()) return;
  if (!list.IsSequence()) r.fail(list, "configurations", "expected a list of {name, arguments}");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("configurations[{}]", i);
    const YAML::Node entry = list[i];
    only_once(r, entry, at, {"name", "arguments"});
    if (!entry["name"]) r.fail(entry, at + ".name", "missing: the action's name");
    const std::string name = r.text(entry["name"], at + ".name");
    if (std::find(actions.begin(), actions.end(), name) == actions.end()) {
      r.fail(entry["name"], at + ".name", fmt::format("'{}' is not among the actions ({})", name, fmt::join(actions, ", ")));
    }
    const YAML::Node arguments = entry["arguments"];
    if (!arguments || arguments.IsNull()) continue;
    if (!arguments.IsMap()) r.fail(arguments, at + ".arguments", "expected a mapping of arguments");
    keys_once(r, arguments, at + ".arguments");
    for (const auto& argument : arguments) {
      const std::string key = argument.first.as<std::string>();
      const std::string path = at + ".arguments." + key;
      if (key == "predicateErrorCacheEnable" && (name == "allocate" || name == "backfill" || name == "reclaim")) {
        r.boolean(argument.second, path);
        continue;
      }
      r.fail(argument.first, path,
             fmt::format("unknown argument of action {} (gpusim models {})", name,
                         name == "enqueue" ? "none" : "predicateErrorCacheEnable, which only caches filter results"));
    }
  }
}

ParsedConf read_conf(const io::YamlFields& r, const YAML::Node& root) {
  if (!root.IsMap()) r.fail(root, "conf", "expected a mapping with actions and tiers");
  only_once(r, root, "", {"actions", "tiers", "configurations", "metrics"});
  ParsedConf conf;
  conf.root = root;
  const YAML::Node actions = root["actions"];
  if (!actions) r.fail(root, "actions", "missing: a comma-separated list such as \"enqueue, allocate, backfill\"");
  conf.actions_node = actions;
  conf.actions = read_actions(r, actions);
  if (const YAML::Node tiers = root["tiers"]; tiers && !tiers.IsNull()) {
    if (!tiers.IsSequence()) r.fail(tiers, "tiers", "expected a list of tiers, each {plugins: [...]}");
    for (std::size_t t = 0; t < tiers.size(); ++t) {
      const std::string at = fmt::format("tiers[{}]", t);
      only_once(r, tiers[t], at, {"plugins"});
      const YAML::Node plugins = tiers[t]["plugins"];
      if (!plugins || plugins.IsNull()) continue;
      if (!plugins.IsSequence()) r.fail(plugins, at + ".plugins", "expected a list of plugins, each {name: ...}");
      for (std::size_t p = 0; p < plugins.size(); ++p) {
        conf.plugins.push_back(read_plugin(r, plugins[p], fmt::format("{}.plugins[{}]", at, p), t));
      }
    }
  }
  read_configurations(r, root["configurations"], conf.actions);
  // metrics: where Volcano's metrics go (a Prometheus address, ...); nothing gpusim schedules by.
  if (const YAML::Node metrics = root["metrics"]; metrics && !metrics.IsNull()) {
    if (!metrics.IsMap()) r.fail(metrics, "metrics", "expected a mapping of strings");
    keys_once(r, metrics, "metrics");
  }
  return conf;
}

// The profile's name for a bare configuration: the file's stem when it is a plain name.
std::string bare_name(const std::string& source) {
  const std::string stem = std::filesystem::path(source).stem().string();
  return sched::is_plain_name(stem) ? stem : "volcano";
}

// The first line (1-based) of a ConfigMap value's text: a block scalar ("|", ">") starts on the
// line after its indicator; any other scalar is on its own line (a quoted string's later lines
// then count from there: approximate).
int value_first_line(const std::string& text, const YAML::Node& value) {
  const YAML::Mark mark = value.Mark();
  std::size_t pos = 0;
  for (int line = 0; line < mark.line && pos != std::string::npos; ++line) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos != std::string::npos) pos += static_cast<std::size_t>(std::max(0, mark.column));
  const bool block = pos < text.size() && (text[pos] == '|' || text[pos] == '>');
  return mark.line + (block ? 2 : 1);
}

}  // namespace

bool is_volcano_scheduler_conf(const YAML::Node& doc) {
  try {
    if (!doc || !doc.IsMap()) return false;
    const YAML::Node kind = doc["kind"];
    if (kind) {
      const YAML::Node data = doc["data"];
      return kind.IsScalar() && kind.Scalar() == "ConfigMap" && data && data.IsMap() && data[kConfKey];
    }
    return static_cast<bool>(doc["actions"]) || static_cast<bool>(doc["tiers"]);
  } catch (const YAML::Exception&) {
    return false;
  }
}

VolcanoSchedulerConf load_volcano_scheduler_conf(const std::filesystem::path& path, const sched::Registry* registry) {
  return parse_volcano_scheduler_conf(io::read_file(path, "Volcano scheduler configuration"), path.string(), registry);
}

VolcanoSchedulerConf parse_volcano_scheduler_conf(const std::string& text, const std::string& source,
                                                  const sched::Registry* registry) {
  const io::YamlFields r(source);
  try {
    std::vector<YAML::Node> docs = traces::load_yaml_documents(text, source);
    docs.erase(std::remove_if(docs.begin(), docs.end(), [](const YAML::Node& d) { return !d || d.IsNull(); }), docs.end());
    if (docs.empty()) throw core::InputError(fmt::format("{}: empty file: expected Volcano's scheduler configuration", source));
    if (docs.size() > 1) {
      r.fail(docs[1], "yaml", "a second document: give the scheduler configuration (or its ConfigMap) alone in its file");
    }
    const YAML::Node& doc = docs.front();
    if (!doc.IsMap()) r.fail(doc, "conf", "expected a mapping with actions and tiers, or a ConfigMap");
    if (!doc["kind"]) return volcano::map_to_profile(r, read_conf(r, doc), bare_name(source), registry);
    // The ConfigMap form (the installer's volcano-scheduler-configmap).
    only_once(r, doc, "", {"apiVersion", "kind", "metadata", "data", "binaryData", "immutable"});
    if (r.text(doc["kind"], "kind") != "ConfigMap") {
      r.fail(doc["kind"], "kind", fmt::format("'{}': expected a ConfigMap holding {}, or the bare configuration",
                                              doc["kind"].Scalar(), kConfKey));
    }
    if (!doc["apiVersion"] || r.text(doc["apiVersion"], "apiVersion") != "v1") {
      r.fail(doc["apiVersion"] ? doc["apiVersion"] : doc, "apiVersion", "a ConfigMap's is v1");
    }
    const YAML::Node meta = doc["metadata"];
    if (!meta || !meta.IsMap() || !meta["name"]) r.fail(meta ? meta : doc, "metadata.name", "missing: the ConfigMap's name");
    const std::string name = r.text(meta["name"], "metadata.name");
    if (!sched::is_plain_name(name)) {
      r.fail(meta["name"], "metadata.name",
             fmt::format("'{}' must be a plain name (letters, digits, '.', '_', '-'): it names the output folder", name));
    }
    if (doc["immutable"]) r.boolean(doc["immutable"], "immutable");
    if (doc["binaryData"] && !doc["binaryData"].IsNull()) {
      r.fail(doc["binaryData"], "binaryData", "Volcano reads its configuration from data." + std::string(kConfKey));
    }
    const YAML::Node data = doc["data"];
    if (!data || !data.IsMap()) r.fail(data ? data : doc, "data", std::string("missing: expected data.") + kConfKey);
    keys_once(r, data, "data");
    for (const auto& entry : data) {
      const std::string key = entry.first.as<std::string>();
      if (key != kConfKey) {
        r.fail(entry.first, "data." + key,
               fmt::format("unknown key: the scheduler reads {} (its --scheduler-conf file)", kConfKey));
      }
    }
    const YAML::Node value = data[kConfKey];
    if (!value) r.fail(data, std::string("data.") + kConfKey, "missing");
    const std::string inner = r.text(value, std::string("data.") + kConfKey);
    const YAML::Node root = traces::load_yaml_at_line(inner, source, value_first_line(text, value));
    if (!root || root.IsNull()) r.fail(value, std::string("data.") + kConfKey, "empty: expected actions and tiers");
    return volcano::map_to_profile(r, read_conf(r, root), name, registry);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(source, text, e));
  }
}

}  // namespace gpusim::k8s
