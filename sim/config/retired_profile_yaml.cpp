#include "sim/config/retired_profile_yaml.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "sim/config/kube_scheduler_config.hpp"
#include "sim/core/status.hpp"
#include "sim/sched/names.hpp"
#include "traces/k8s/object_fields.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::config {
namespace {

// As kube-scheduler's score weights: weighted totals stay far from int64 overflow.
constexpr std::int64_t kMaxScoreWeight = 1'000'000;
// The name a profile gets when neither its `name` nor its file name can name an output folder.
constexpr std::string_view kStandInName = "my-policy";
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

// One name as gpusim's framework knows the plugin (the older file may spell it any way names.hpp
// accepts, or give kube-scheduler's name of a plugin gpusim runs under its own).
std::string canonical(const sched::Registry& registry, const std::string& name) {
  for (const auto& [kube, own] : {std::pair{"PrioritySort", "priority"}, std::pair{"DefaultBinder", "default-binder"},
                                  std::pair{"NodeResourcesFit", "node-resources-fit"}, std::pair{"DefaultPreemption", "default-preemption"},
                                  std::pair{"Coscheduling", "coscheduling"}}) {
    if (same(name, kube) || same(name, own)) return own;
  }
  return registry.canonical(name).value_or(name);
}

std::vector<std::string> canonical(const sched::Registry& registry, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) out.push_back(canonical(registry, name));
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
  // A KubeSchedulerConfiguration runs DefaultPreemption and Coscheduling as settings of the profile,
  // not in its lists: they count where the older file listed them.
  std::vector<std::string> post_filter = read.post_filter, permit = read.permit;
  if (read.job_rank_plugin == "default-preemption") post_filter.emplace_back("default-preemption");
  if (!read.gang_permit_plugin.empty()) permit.push_back(read.gang_permit_plugin);
  compare("postFilter", older.post_filter, post_filter);
  std::vector<sched::WeightedPlugin> score_a = older.score, score_b = read.score;
  for (auto* list : {&score_a, &score_b}) {
    for (auto& p : *list) p.name = canonical(registry, p.name);
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
  compare("permit", older.permit, permit);
  compare("bind", one(older.bind), one(read.bind));
  if (older.tie_break != read.tie_break) out.emplace_back("tieBreak differs");
  return out;
}

}  // namespace

bool is_retired_profile_yaml(const YAML::Node& doc) {
  if (!doc.IsMap() || doc.size() == 0 || doc["apiVersion"] || doc["kind"]) return false;
  // At least half its keys the format's: a misspelt field still reads as the format, to be named.
  const auto known = std::count_if(doc.begin(), doc.end(), [](const auto& entry) {
    return entry.first.IsScalar() && std::find(std::begin(kFields), std::end(kFields), entry.first.Scalar()) != std::end(kFields);
  });
  return 2 * static_cast<std::size_t>(known) >= doc.size();
}

sched::Profile parse_retired_profile_yaml(const std::string& text, const std::string& path) {
  std::vector<YAML::Node> docs;
  for (const YAML::Node& doc : traces::load_yaml_documents(text, path)) {
    if (doc && !doc.IsNull()) docs.push_back(doc);
  }
  const traces::k8s::Where where(path);
  if (docs.empty()) throw core::InputError(fmt::format("{}:1: empty file (expected a profile)", path));
  if (docs.size() > 1) where.fail(docs[1], "document", "a profile YAML file holds one profile");
  const traces::k8s::Fields doc(where, docs.front(), "");  // a mapping, each key once
  for (const auto& entry : doc.node()) {
    if (std::find(std::begin(kFields), std::end(kFields), entry.first.Scalar()) == std::end(kFields)) {
      where.fail(entry.first, entry.first.Scalar(), "unknown field");
    }
  }
  const auto names = [&](const char* field) {
    std::vector<std::string> out;
    for (const auto& [item, at] : doc.list(field)) {
      if (!item.IsScalar() || item.Scalar().empty()) where.fail(item, at, "expected a plugin name");
      out.push_back(item.Scalar());
    }
    return out;
  };
  const auto name_of = [&](const char* field, const std::string& fallback) {
    if (!doc.get(field)) return fallback;
    const std::string value = doc.string(field).value_or("");
    if (value.empty()) doc.fail(field, "expected a plugin name");
    return value;
  };
  sched::Profile profile;
  // The older format's defaults: gpusim's best GPU choice, every node scored.
  profile.gpu_selection = name_of("gpuSelection", "best");
  profile.percentage_of_nodes_to_score = 100;
  if (doc.get("name")) {
    profile.name = doc.required_string("name");
    if (!sched::is_plain_name(profile.name)) {
      doc.fail("name", fmt::format("'{}' must start with a letter or digit and hold only letters, digits, '.', '_' and '-' "
                                   "(it names the output folder runs/<name>/)",
                                   profile.name));
    }
  } else {
    // The name was the file's; a file name that cannot name a folder gets a stand-in.
    const std::string stem = std::filesystem::path(path).stem().string();
    profile.name = sched::is_plain_name(stem) ? stem : std::string(kStandInName);
  }
  profile.queue_sort = name_of("queueSort", profile.queue_sort);
  profile.pre_filter = names("preFilter");
  profile.filter = names("filter");
  profile.post_filter = names("postFilter");
  profile.reserve = names("reserve");
  profile.permit = names("permit");
  profile.bind = name_of("bind", profile.bind);
  for (const auto& [item, at] : doc.list("score")) {
    const traces::k8s::Fields entry(where, item, at);
    for (const auto& key : entry.node()) {
      if (key.first.Scalar() != "name" && key.first.Scalar() != "weight") where.fail(key.first, entry.path(key.first.Scalar()), "unknown field");
    }
    const std::string plugin = entry.required_string("name");
    profile.score.push_back({plugin, entry.integer("weight", 1, kMaxScoreWeight).value_or(1)});
  }
  if (doc.get("tieBreak")) {
    const std::string value = doc.string("tieBreak").value_or("");
    if (value == "seeded-rank") profile.tie_break = sched::TieBreak::kSeededRank;
    else if (value == "node-index") profile.tie_break = sched::TieBreak::kNodeIndex;
    else doc.fail("tieBreak", "expected seeded-rank or node-index");
  }
  if (profile.filter.empty()) doc.fail("filter", "at least one filter plugin is required");
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
  // A configuration's profile may not pass for a built-in policy (reports compare those with
  // published figures), and needs a name where the file gave none a folder could take.
  if (sched::builtin_policy_name(older.name)) {
    verdict += fmt::format("; but give schedulerName a name of its own first: '{}' is a built-in policy's", older.name);
  } else if (older.name == kStandInName) {
    verdict += fmt::format("; schedulerName {} stands in for your file's name, which cannot name an output folder", kStandInName);
  }
  return fmt::format(
      "{}: gpusim's own profile YAML is retired: a policy is a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, "
      "as policies/profiles/ holds; `gpusim config show NAME` prints a built-in one). Your file as one ({}); save it and pass "
      "it to --policy or --policies:\n\n{}",
      path, verdict, replacement);
}

}  // namespace gpusim::config
