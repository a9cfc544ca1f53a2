#include "sim/config/kube_plugin_catalog.hpp"

#include <array>

#include "sim/sched/names.hpp"

namespace gpusim::config {
namespace {

constexpr std::array<std::string_view, kPointCount> kPointKeys = {
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score", "reserve",
    "permit", "preBind", "bind", "postBind", "gpuSelection", "jobRank", "round", "queueAdmission"};

constexpr std::uint32_t kFilterPoints = bit(Point::kPreFilter) | bit(Point::kFilter);
constexpr std::uint32_t kScorePoints = bit(Point::kPreScore) | bit(Point::kScore);
constexpr const char* kNoVolumes = "gpusim's pods have no volumes";

// kube-scheduler's in-tree plugins, in the order of its default multiPoint set (pkg/scheduler/
// apis/config/v1/default_plugins.go, v1.31), then those it has outside the defaults; then gpusim's
// policy plugins. The notes say why a plugin gpusim does not run changes nothing for its inputs.
constexpr KnownPlugin kPlugins[] = {
    {"SchedulingGates", bit(Point::kPreEnqueue), 0, "gpusim's pods have no scheduling gates"},
    {"PrioritySort", bit(Point::kQueueSort), 0, ""},
    {"NodeUnschedulable", bit(Point::kFilter), 0, ""},
    {"NodeName", bit(Point::kFilter), 0, "gpusim's pods name no node (spec.nodeName)"},
    {"TaintToleration", bit(Point::kFilter) | kScorePoints, 3,
     "its score prefers nodes with fewer PreferNoSchedule taints, which gpusim does not score: the same for every "
     "node of a cluster without them"},
    {"NodeAffinity", kFilterPoints | kScorePoints, 2,
     "its score weighs preferred node-affinity terms, which gpusim does not score: the same for every node when pods "
     "have none"},
    {"NodePorts", kFilterPoints, 0, "gpusim's pods ask no host ports"},
    {"NodeResourcesFit", kFilterPoints | kScorePoints, 1, ""},
    {"VolumeRestrictions", kFilterPoints, 0, kNoVolumes},
    {"NodeVolumeLimits", kFilterPoints, 0, kNoVolumes},
    {"VolumeBinding", kFilterPoints | bit(Point::kReserve) | bit(Point::kPreBind) | kScorePoints, 0, kNoVolumes},
    {"VolumeZone", kFilterPoints, 0, kNoVolumes},
    {"PodTopologySpread", kFilterPoints | kScorePoints, 2,
     "gpusim's pods have no topology spread constraints (and the default constraints spread by zone and hostname "
     "over Services, which gpusim's workloads have none of)"},
    {"InterPodAffinity", kFilterPoints | kScorePoints, 2, "gpusim's pods have no pod affinity terms"},
    {"DefaultPreemption", bit(Point::kPostFilter), 0, ""},
    {"NodeResourcesBalancedAllocation", kScorePoints, 1, ""},
    {"ImageLocality", bit(Point::kScore), 1, "gpusim's nodes report no images"},
    {"DefaultBinder", bit(Point::kBind), 0, ""},
    {"EBSLimits", kFilterPoints, 0, kNoVolumes},
    {"GCEPDLimits", kFilterPoints, 0, kNoVolumes},
    {"AzureDiskLimits", kFilterPoints, 0, kNoVolumes},
    {"CinderLimits", kFilterPoints, 0, kNoVolumes},
    {"DynamicResources", kFilterPoints | bit(Point::kPostFilter) | bit(Point::kReserve) | bit(Point::kPreBind), 0,
     "gpusim's pods claim no dynamic resources"},
    // The coscheduling plugin of kubernetes-sigs/scheduler-plugins: gangs wait at Permit.
    {"Coscheduling", bit(Point::kQueueSort) | bit(Point::kPreFilter) | bit(Point::kPostFilter) | bit(Point::kPermit) |
                         bit(Point::kReserve),
     0, ""},
    // gpusim's policy plugins at the points kube-scheduler lacks.
    {"Srtf", bit(Point::kJobRank), 0, ""},
    {"Tiresias", bit(Point::kJobRank), 0, ""},
    {"Gavel", bit(Point::kRound), 0, ""},
    {"Themis", bit(Point::kRound), 0, ""},
    {"Strict", bit(Point::kQueueAdmission), 0, ""},
    {"Backfill", bit(Point::kQueueAdmission), 0, ""},
    {"Drf", bit(Point::kQueueAdmission), 0, ""},
    {"Proportion", bit(Point::kQueueAdmission), 0, ""},
    {"Capacity", bit(Point::kQueueAdmission), 0, ""},
};

struct BuiltinPoints {
  std::string_view name;
  std::uint32_t points;
};
constexpr std::uint32_t kScoreAndGpus = bit(Point::kScore) | bit(Point::kGpuSelection);
// policies/: which extension points each built-in plugin implements.
constexpr BuiltinPoints kBuiltin[] = {
    {"priority", bit(Point::kQueueSort)},  {"fifo", bit(Point::kQueueSort)},
    {"shortest-job", bit(Point::kQueueSort)}, {"node-resources-fit", bit(Point::kFilter) | bit(Point::kScore)},
    {"gpu-fit", bit(Point::kFilter)},      {"node-affinity", bit(Point::kFilter)},
    {"taint-toleration", bit(Point::kFilter)}, {"least-allocated", bit(Point::kScore)},
    {"most-allocated", bit(Point::kScore)}, {"balanced-allocation", bit(Point::kScore)},
    {"dot-product", bit(Point::kScore)},   {"gpu-packing", bit(Point::kScore)},
    {"best-fit", bit(Point::kScore)},      {"gpu-clustering", bit(Point::kScore) | bit(Point::kReserve)},
    {"random", kScoreAndGpus},             {"fgd", kScoreAndGpus},
    {"topology-aware", kScoreAndGpus},     {"best", bit(Point::kGpuSelection)},
    {"worst", bit(Point::kGpuSelection)},  {"first-fit", bit(Point::kGpuSelection)},
    {"default-binder", bit(Point::kBind)},
    {"load-aware", bit(Point::kFilter) | bit(Point::kScore) | bit(Point::kReserve)},
};

}  // namespace

std::uint32_t builtin_framework_plugin_points(std::string_view canonical) {
  for (const BuiltinPoints& b : kBuiltin) {
    if (b.name == canonical) return b.points;
  }
  return 0;
}

std::string_view point_key(Point point) { return kPointKeys[static_cast<std::size_t>(point)]; }

std::optional<Point> point_named(std::string_view key) {
  for (std::size_t i = 0; i < kPointKeys.size(); ++i) {
    if (kPointKeys[i] == key) return static_cast<Point>(i);
  }
  return std::nullopt;
}

std::span<const KnownPlugin> known_plugins() { return kPlugins; }

const KnownPlugin* find_known_plugin(std::string_view name) {
  const std::string key = sched::name_key(name);
  for (const KnownPlugin& plugin : kPlugins) {
    if (sched::name_key(plugin.name) == key) return &plugin;
  }
  return nullptr;
}

}  // namespace gpusim::config
