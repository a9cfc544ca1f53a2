#include "sim/sched/profile.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"
#include "sim/sched/names.hpp"

namespace gpusim::sched {
namespace {

// Weighted totals (weight x score <= 100, summed over plugins) stay far from int64 overflow.
constexpr std::int64_t kMaxScoreWeight = 1'000'000;

}  // namespace

bool is_plain_name(std::string_view name) {
  if (name.empty() || name.size() > 100 || !std::isalnum(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::vector<std::string> builtin_profile_names() {
  return {"kube-default", "binpack", "random", "dotprod", "gpu-clustering", "gpu-packing",
          "bestfit", "fgd", "topology-aware", "fifo", "sjf", "backfill", "srtf", "tiresias", "preemption", "drf",
          "gavel-maxmin", "gavel-ftf", "maxmin", "ftf", "themis", "gang", "proportion", "capacity"};
}

std::string paper_name(const std::string& policy) {
  if (policy == "random") return "Random";
  if (policy == "dotprod") return "DotProd";
  if (policy == "gpu-clustering") return "GpuClustering";
  if (policy == "gpu-packing") return "GpuPacking";
  if (policy == "bestfit") return "BestFit";
  if (policy == "fgd") return "FGD";
  return "";
}

std::string policy_summary(const std::string& policy) {
  if (policy == "kube-default") return "kube-scheduler's default scores (least-allocated, balanced allocation)";
  if (policy == "binpack") return "most-allocated: fills nodes before opening new ones";
  if (policy == "topology-aware") return "bin packing with HAMi-style topology-aware GPU choice";
  if (policy == "fifo") return "strict first come, first served (head-of-line blocking); best fit";
  if (policy == "sjf") return "shortest job first by the trace's run time (oracle), non-preemptive; best fit";
  if (policy == "backfill") return "FIFO with EASY backfilling; best fit";
  if (policy == "srtf") return "shortest remaining time first (oracle), preemptive, restarts from checkpoints; best fit";
  if (policy == "tiresias") return "Tiresias' 2D-LAS: queues by attained GPU-time, preemptive; best fit";
  if (policy == "preemption") return "kube-scheduler's priority queue with DefaultPreemption; best fit";
  if (policy == "drf") return "dominant resource fairness across the workload's queues, FIFO within one; best fit";
  if (policy == "gavel-maxmin") return "Gavel's heterogeneity-aware max-min fairness (LP, CLP), rounds of time shares; best fit";
  if (policy == "gavel-ftf") return "Gavel's heterogeneity-aware finish-time fairness (LP, CLP), rounds of time shares; best fit";
  if (policy == "maxmin") return "max-min fairness blind to GPU speed (Gavel's LAS), rounds of time shares; best fit";
  if (policy == "ftf") return "finish-time fairness blind to GPU speed, rounds of time shares; best fit";
  if (policy == "themis") return "Themis-style finish-time fairness: leases offered to the jobs with the largest rho (approximated); best fit";
  if (policy == "proportion") return "Volcano-style queue quotas: deserved GPUs by weight, guarantee, capability, reclaim; best fit";
  if (policy == "capacity") return "Volcano-style queue quotas: deserved GPUs per queue (Volcano Queues in --config), borrowing, reclaim; best fit";
  if (policy == "gang") return "coscheduling: gangs wait at Permit, holding what they reserved, until whole (timeout); FIFO, skipping; best fit";
  return "";
}

std::optional<std::string> builtin_policy_name(const std::string& asked) {
  const std::string key = name_key(asked);
  if (key == "dotproduct") return "dotprod";  // the score plugin's name
  for (const auto& name : builtin_profile_names()) {
    if (name_key(name) == key) return name;
  }
  return std::nullopt;
}

Profile load_profile(const std::filesystem::path& path) {
  return parse_profile(io::read_file(path, "profile YAML"), path);
}

Profile parse_profile(const std::string& text, const std::filesystem::path& path) {
  const std::string file = path.string();
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(file, text, e));
  }
  const auto fail = [&](const YAML::Node& node, const std::string& field, const std::string& why) {
    throw core::InputError(fmt::format("{}:{}: {}: {}", file, node.Mark().line + 1, field, why));
  };
  const auto string_list = [&](const char* field) {
    std::vector<std::string> out;
    const YAML::Node list = doc[field];
    if (!list) return out;
    if (!list.IsSequence()) fail(list, field, "expected a list of plugin names");
    for (const auto& item : list) out.push_back(item.as<std::string>());
    return out;
  };
  Profile profile;
  try {
    if (!doc.IsMap()) throw core::InputError(fmt::format("{}:1: expected a mapping", file));
    static constexpr const char* kKnown[] = {"name", "queueSort", "preFilter", "filter",
                                             "postFilter", "score", "gpuSelection", "reserve",
                                             "permit", "bind", "tieBreak"};
    for (const auto& entry : doc) {
      const auto key = entry.first.as<std::string>();
      if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) {
        fail(entry.first, key, "unknown field");
      }
    }
    profile.name = doc["name"] ? doc["name"].as<std::string>() : path.stem().string();
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
        if (weight <= 0 || weight > kMaxScoreWeight) {
          fail(item, "score.weight", fmt::format("must be an integer from 1 to {}", kMaxScoreWeight));
        }
        profile.score.push_back({item["name"].as<std::string>(), weight});
      }
    }
    if (const YAML::Node tie = doc["tieBreak"]) {
      const auto value = tie.as<std::string>();
      if (value == "seeded-rank") profile.tie_break = TieBreak::kSeededRank;
      else if (value == "node-index") profile.tie_break = TieBreak::kNodeIndex;
      else fail(tie, "tieBreak", "expected seeded-rank or node-index");
    }
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(file, text, e));
  }
  if (profile.filter.empty()) fail(doc, "filter", "at least one filter plugin is required");
  // The name becomes a folder of the output (runs/<name>/): a plain word, never a path.
  if (!is_plain_name(profile.name)) {
    fail(doc["name"] ? doc["name"] : doc, "name",
         fmt::format("'{}' must start with a letter or digit and hold only letters, digits, '.', '_' and '-' "
                     "(it names the output folder runs/<name>/)", profile.name));
  }
  return profile;
}

}  // namespace gpusim::sched
