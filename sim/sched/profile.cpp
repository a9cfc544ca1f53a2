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

// The FGD artifact enables one score plugin with weight 1000; the same weight is kept so that
// totals read the same.
constexpr std::int64_t kArtifactWeight = 1000;
// Weighted totals (weight x score <= 100, summed over plugins) stay far from int64 overflow.
constexpr std::int64_t kMaxScoreWeight = 1'000'000;

Profile gpu_milli_profile(std::string name, std::string scorer, std::string gpu_selection) {
  Profile profile;
  profile.name = std::move(name);
  // kube-scheduler's NodeAffinity and TaintToleration pass at once for trace pods (no
  // constraints) on untainted nodes, so the FGD experiment is unchanged.
  profile.filter = {"node-resources-fit", "gpu-fit", "node-affinity", "taint-toleration"};
  profile.score = {{std::move(scorer), kArtifactWeight}};
  profile.gpu_selection = std::move(gpu_selection);
  return profile;
}

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
  if (policy == "capacity") return "Volcano-style queue quotas: deserved GPUs per queue (--queue-quotas), borrowing, reclaim; best fit";
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

Profile builtin_profile(const std::string& asked) {
  const std::string name = builtin_policy_name(asked).value_or(asked);
  if (name == "kube-default") {
    Profile profile = gpu_milli_profile(name, "least-allocated", "first-fit");
    profile.score = {{"least-allocated", 1}, {"balanced-allocation", 1}};
    return profile;
  }
  if (name == "binpack") {
    Profile profile = gpu_milli_profile(name, "most-allocated", "first-fit");
    profile.score = {{"most-allocated", 1}};
    return profile;
  }
  // The FGD paper's six policies with the artifact's GPU-selection methods.
  if (name == "random") return gpu_milli_profile(name, "random", "random");
  if (name == "dotprod") return gpu_milli_profile(name, "dot-product", "best");
  if (name == "gpu-clustering") {
    // Its per-node class counts are kept by its Reserve hook (and forgotten on release).
    Profile profile = gpu_milli_profile(name, "gpu-clustering", "best");
    profile.reserve = {"gpu-clustering"};
    return profile;
  }
  if (name == "gpu-packing") return gpu_milli_profile(name, "gpu-packing", "best");
  if (name == "bestfit") return gpu_milli_profile(name, "best-fit", "best");
  if (name == "fgd") return gpu_milli_profile(name, "fgd", "fgd");
  if (name == "topology-aware") {
    // Bin packing with HAMi-style topology-aware GPU choice (policies/score/topology_aware.cpp);
    // for scheduler-assigned nodes with a known topology.
    Profile profile = gpu_milli_profile(name, "topology-aware", "topology-aware");
    profile.score = {{"topology-aware", 2}, {"most-allocated", 1}};
    return profile;
  }
  // Deep-learning queue policies (policies/README.md): a job goes to the node it leaves with the
  // fewest free GPUs (best fit: consolidated, whole machines kept for large jobs), ties by node
  // index, so that only the queue order differs.
  if (name == "fifo" || name == "sjf" || name == "backfill" || name == "srtf" || name == "tiresias" || name == "preemption" ||
      name == "drf" || name == "gavel-maxmin" || name == "gavel-ftf" || name == "maxmin" || name == "ftf" || name == "themis" || name == "gang" ||
      name == "proportion" || name == "capacity") {
    Profile profile = gpu_milli_profile(name, "best-fit", "first-fit");
    profile.score = {{"best-fit", 1}};
    profile.tie_break = TieBreak::kNodeIndex;
    if (name == "fifo") {
      // Strict first come, first served: a job waits until every job submitted before it started.
      profile.queue_sort = "fifo";
      profile.queue_mode = QueueMode::kStrict;
    } else if (name == "backfill") {
      // FIFO with EASY backfilling: later jobs may start if they do not delay the first waiting one.
      profile.queue_sort = "fifo";
      profile.queue_mode = QueueMode::kBackfill;
    } else if (name == "sjf") {
      // Shortest job first by the trace's run time (an oracle), non-preemptive; a job that does not
      // fit lets shorter-queued ones behind it start.
      profile.queue_sort = "shortest-job";
    } else if (name == "srtf") {
      // Shortest remaining time first (oracle), preemptive: a waiting job preempts jobs with more
      // time left, which restart from their last checkpoint.
      profile.preemption = Preemption::kSrtf;
    } else if (name == "drf") {
      // Dominant resource fairness across queues (Ghodsi et al., NSDI'11), FIFO within a queue,
      // non-preemptive.
      profile.queue_sort = "fifo";
      profile.drf = true;
    } else if (name == "proportion" || name == "capacity") {
      // Volcano's proportion and capacity plugins (sim/k8s/queue_quotas.hpp): the queue with the
      // least held over deserved GPUs goes first, FIFO within a queue; a queue within its deserved
      // GPUs reclaims what others borrowed beyond theirs.
      profile.queue_sort = "fifo";
      profile.queue_quotas = name == "proportion" ? QueueQuotaMode::kProportion : QueueQuotaMode::kCapacity;
    } else if (name == "tiresias") {
      // Discretised 2D-LAS (Tiresias, NSDI'19): queues by attained GPU-time, FIFO within a queue;
      // a job in a higher queue preempts jobs in lower ones.
      profile.preemption = Preemption::kTiresias;
    } else if (name == "gang") {
      // Coscheduling (scheduler-plugins): arrival order, a job that does not fit waits aside, and a
      // gang's workers wait at Permit for the rest (sim/k8s/scheduler_gang_permit.cpp).
      profile.queue_sort = "fifo";
      profile.gang_permit = true;
    } else if (name == "themis") {
      // Themis (NSDI'20), approximated: rounds are leases, offered to the jobs furthest from
      // finish-time fairness first (sim/k8s/time_share_rounds.cpp, policies/README.md).
      profile.queue_sort = "fifo";
      profile.time_share = TimeSharePolicy::kThemis;
      profile.heterogeneity_aware = true;
    } else if (name == "gavel-maxmin" || name == "gavel-ftf" || name == "maxmin" || name == "ftf") {
      // Gavel (OSDI'20): an LP gives each job its share of time on each GPU type; rounds give the
      // GPUs to the jobs furthest below their shares (sim/k8s/scheduler_rounds.cpp).
      profile.queue_sort = "fifo";
      profile.time_share = name.ends_with("maxmin") ? TimeSharePolicy::kMaxMin : TimeSharePolicy::kFinishTimeFair;
      profile.heterogeneity_aware = name.starts_with("gavel-");
    } else {
      // kube-scheduler's priority queue and DefaultPreemption (pods of lower priority make room,
      // the victims and the node chosen as selectVictimsOnNode and pickOneNodeForPreemption do).
      profile.preemption = Preemption::kPriority;
    }
    return profile;
  }
  throw core::InputError(fmt::format("unknown policy '{}' (built-in: {}; or a profile YAML path)",
                                     name, fmt::join(builtin_profile_names(), ", ")));
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

Profile resolve_profile(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".yaml") ||
      name_or_path.ends_with(".yml")) {
    return load_profile(name_or_path);
  }
  return builtin_profile(name_or_path);
}

}  // namespace gpusim::sched
