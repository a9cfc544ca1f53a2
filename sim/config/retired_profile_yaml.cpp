#include "sim/config/retired_profile_yaml.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/config/kube_scheduler_config.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "sim/sched/names.hpp"

namespace gpusim::config {
namespace {

// As kube-scheduler's score weights: weighted totals stay far from int64 overflow.
constexpr std::int64_t kMaxScoreWeight = 1'000'000;
constexpr const char* kFields[] = {"name",  "queueSort", "preFilter", "filter", "postFilter", "score",
                                   "gpuSelection", "reserve", "permit", "bind", "tieBreak"};

bool same(const std::string& name, std::string_view other) { return sched::name_key(name) == sched::name_key(other); }

bool contains(const std::vector<std::string>& names, std::string_view wanted) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return same(n, wanted); });
}

// One extension point, in flow style: `filter: {enabled: [{name: NodeAffinity}, ...]}`.
void emit_point(YAML::Emitter& out, const char* point, const std::vector<sched::WeightedPlugin>& plugins, bool weights) {
  if (plugins.empty()) return;
  out << YAML::Key << point << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "enabled" << YAML::Value
      << YAML::BeginSeq;
  for (const sched::WeightedPlugin& plugin : plugins) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << plugin.name;
    if (weights) out << YAML::Key << "weight" << YAML::Value << plugin.weight;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

std::vector<sched::WeightedPlugin> unweighted(const std::vector<std::string>& names) {
  std::vector<sched::WeightedPlugin> out;
  for (const std::string& name : names) out.push_back({name, 1});
  return out;
}

// kube-scheduler's name where gpusim's stands for one of its plugins, else gpusim's as written.
std::string kube_name(const std::string& name) {
  if (same(name, "priority")) return "PrioritySort";
  if (same(name, "default-binder")) return "DefaultBinder";
  if (same(name, "node-affinity")) return "NodeAffinity";
  if (same(name, "taint-toleration")) return "TaintToleration";
  return name;
}

// The older filter list at the filter point: kube-scheduler's NodeResourcesFit is gpusim's
// node-resources-fit and gpu-fit together, so it stands for both.
std::vector<std::string> filter_plugins(const std::vector<std::string>& filter) {
  const bool fit = contains(filter, "node-resources-fit");
  std::vector<std::string> out;
  for (const std::string& name : filter) {
    if (same(name, "node-resources-fit")) {
      if (!contains(out, "NodeResourcesFit")) out.emplace_back("NodeResourcesFit");
    } else if (!(fit && same(name, "gpu-fit"))) {
      out.push_back(kube_name(name));
    }
  }
  return out;
}

// A list as the registry names its plugins (the older file may spell them any way names.hpp accepts).
std::vector<std::string> canonical(const sched::Registry& registry, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) out.push_back(registry.canonical(name).value_or(name));
  return out;
}

std::string listed(const std::vector<std::string>& names) { return fmt::format("[{}]", fmt::join(names, ", ")); }

std::string listed(const std::vector<sched::WeightedPlugin>& plugins) {
  std::vector<std::string> items;
  for (const auto& p : plugins) items.push_back(fmt::format("{}:{}", p.name, p.weight));
  return listed(items);
}

// What differs between the older file's profile and the configuration's, field by field (none: empty).
std::vector<std::string> differences(const sched::Registry& registry, const sched::Profile& older, const sched::Profile& read) {
  std::vector<std::string> out;
  const auto compare = [&](const char* field, const std::vector<std::string>& a, const std::vector<std::string>& b) {
    const std::vector<std::string> ca = canonical(registry, a), cb = canonical(registry, b);
    if (ca != cb) out.push_back(fmt::format("{}: {} in your file, {} in the configuration", field, listed(ca), listed(cb)));
  };
  const auto one = [](const std::string& name) { return std::vector<std::string>{name}; };
  compare("queueSort", one(older.queue_sort), one(read.queue_sort));
  compare("preFilter", older.pre_filter, read.pre_filter);
  compare("filter", older.filter, read.filter);
  compare("postFilter", older.post_filter, read.post_filter);
  std::vector<sched::WeightedPlugin> score_a = older.score, score_b = read.score;
  for (auto* list : {&score_a, &score_b}) {
    for (auto& p : *list) p.name = registry.canonical(p.name).value_or(p.name);
  }
  const auto same_score = [](const std::vector<sched::WeightedPlugin>& a, const std::vector<sched::WeightedPlugin>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const auto& x, const auto& y) { return x.name == y.name && x.weight == y.weight; });
  };
  if (!same_score(score_a, score_b)) {
    out.push_back(fmt::format("score: {} in your file, {} in the configuration", listed(score_a), listed(score_b)));
  }
  compare("gpuSelection", one(older.gpu_selection), one(read.gpu_selection));
  compare("reserve", older.reserve, read.reserve);
  compare("permit", older.permit, read.permit);
  compare("bind", one(older.bind), one(read.bind));
  if (older.tie_break != read.tie_break) out.emplace_back("tieBreak differs");
  return out;
}

}  // namespace

bool is_retired_profile_yaml(const YAML::Node& doc) {
  return doc.IsMap() && doc["filter"] && !doc["apiVersion"] && !doc["kind"];
}

sched::Profile parse_retired_profile_yaml(const std::string& text, const std::string& path) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(path, text, e));
  }
  const auto fail = [&](const YAML::Node& node, const std::string& field, const std::string& why) {
    throw core::InputError(fmt::format("{}:{}: {}: {}", path, node.Mark().line + 1, field, why));
  };
  const auto string_list = [&](const char* field) {
    std::vector<std::string> out;
    const YAML::Node list = doc[field];
    if (!list) return out;
    if (!list.IsSequence()) fail(list, field, "expected a list of plugin names");
    for (const auto& item : list) out.push_back(item.as<std::string>());
    return out;
  };
  sched::Profile profile;
  try {
    if (!doc.IsMap()) throw core::InputError(fmt::format("{}:1: expected a mapping", path));
    for (const auto& entry : doc) {
      const auto key = entry.first.as<std::string>();
      if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields)) fail(entry.first, key, "unknown field");
    }
    // The older format's defaults: gpusim's best GPU choice, every node scored.
    profile.gpu_selection = "best";
    profile.percentage_of_nodes_to_score = 100;
    profile.name = doc["name"] ? doc["name"].as<std::string>() : std::filesystem::path(path).stem().string();
    if (doc["queueSort"]) profile.queue_sort = doc["queueSort"].as<std::string>();
    profile.pre_filter = string_list("preFilter");
    profile.filter = string_list("filter");
    profile.post_filter = string_list("postFilter");
    profile.reserve = string_list("reserve");
    profile.permit = string_list("permit");
    if (doc["bind"]) profile.bind = doc["bind"].as<std::string>();
    if (doc["gpuSelection"]) profile.gpu_selection = doc["gpuSelection"].as<std::string>();
    if (const YAML::Node score = doc["score"]) {
      if (!score.IsSequence()) fail(score, "score", "expected a list of {name, weight}");
      for (const auto& item : score) {
        if (!item["name"]) fail(item, "score.name", "missing");
        const std::int64_t weight = item["weight"] ? item["weight"].as<std::int64_t>() : 1;
        if (weight <= 0 || weight > kMaxScoreWeight) fail(item, "score.weight", fmt::format("must be an integer from 1 to {}", kMaxScoreWeight));
        profile.score.push_back({item["name"].as<std::string>(), weight});
      }
    }
    if (const YAML::Node tie = doc["tieBreak"]) {
      const auto value = tie.as<std::string>();
      if (value == "seeded-rank") profile.tie_break = sched::TieBreak::kSeededRank;
      else if (value == "node-index") profile.tie_break = sched::TieBreak::kNodeIndex;
      else fail(tie, "tieBreak", "expected seeded-rank or node-index");
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(path, text, e));
  }
  if (profile.filter.empty()) fail(doc, "filter", "at least one filter plugin is required");
  if (!sched::is_plain_name(profile.name)) {
    fail(doc["name"] ? doc["name"] : doc, "name",
         fmt::format("'{}' must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", profile.name));
  }
  return profile;
}

std::string kube_scheduler_config_for(const sched::Profile& profile) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "kubescheduler.config.k8s.io/v1";
  out << YAML::Key << "kind" << YAML::Value << "KubeSchedulerConfiguration";
  out << YAML::Key << "percentageOfNodesToScore" << YAML::Value << profile.percentage_of_nodes_to_score;
  out << YAML::Key << "profiles" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "schedulerName" << YAML::Value << profile.name;
  out << YAML::Key << "tieBreak" << YAML::Value
      << (profile.tie_break == sched::TieBreak::kNodeIndex ? "NodeIndex" : "SeededRank");
  out << YAML::Key << "plugins" << YAML::Value << YAML::BeginMap;
  // Every point is given in full: none of kube-scheduler's defaults is added to the profile.
  out << YAML::Key << "multiPoint" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "disabled"
      << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "*" << YAML::EndMap
      << YAML::EndSeq << YAML::EndMap;
  emit_point(out, "queueSort", unweighted({kube_name(profile.queue_sort)}), false);
  emit_point(out, "preFilter", unweighted(profile.pre_filter), false);
  emit_point(out, "filter", unweighted(filter_plugins(profile.filter)), false);
  emit_point(out, "postFilter", unweighted(profile.post_filter), false);
  emit_point(out, "score", profile.score, true);
  emit_point(out, "reserve", unweighted(profile.reserve), false);
  emit_point(out, "permit", unweighted(profile.permit), false);
  emit_point(out, "bind", unweighted({kube_name(profile.bind)}), false);
  emit_point(out, "gpuSelection", unweighted({profile.gpu_selection}), false);
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string retired_profile_yaml_message(const std::string& text, const std::string& path, const sched::Registry& registry) {
  const sched::Profile older = parse_retired_profile_yaml(text, path);
  const std::string replacement = kube_scheduler_config_for(older);
  std::string verdict;
  try {
    const SchedulerConfiguration read = parse_kube_scheduler_config(replacement, "the configuration below", registry);
    const std::vector<std::string> diff = differences(registry, older, read.profiles.at(0));
    verdict = diff.empty() ? "it gives the same profile"
                           : fmt::format("it differs from your file's profile, as gpusim's reader of that file builds it: {}",
                                         fmt::join(diff, "; "));
  } catch (const core::InputError& e) {
    verdict = fmt::format("gpusim refuses it as it stands, so edit it first: {}", e.what());
  }
  return fmt::format(
      "{}: gpusim's own profile YAML is retired: a policy is a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, "
      "as policies/profiles/ holds; `gpusim config show NAME` prints a built-in one). Your file as one ({}); save it and pass "
      "it to --policy or --policies:\n\n{}",
      path, verdict, replacement);
}

}  // namespace gpusim::config
