#pragma once
// Every plugin name a KubeSchedulerConfiguration may hold for gpusim, and where each may run:
// kube-scheduler's in-tree plugins (with what gpusim does with each), gpusim's placement plugins,
// and gpusim's policy plugins at the extension points kube-scheduler lacks.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpusim::config {

// kube-scheduler's extension points, then gpusim's own.
enum class Point : std::uint8_t {
  kPreEnqueue, kQueueSort, kPreFilter, kFilter, kPostFilter, kPreScore, kScore, kReserve, kPermit, kPreBind, kBind,
  kPostBind,
  // gpusim: which GPUs of the chosen node a pod gets (kube-scheduler leaves it to the kubelet).
  kGpuSelection,
  // gpusim: a job priority that changes with attained service; jobs of a higher rank preempt.
  kJobRank,
  // gpusim: a periodic round that plans time shares (Gavel, Themis).
  kRound,
  // gpusim: the order a cycle walks the queues and what it does at a pod that does not fit.
  kQueueAdmission,
};
inline constexpr std::size_t kPointCount = 16;

// The YAML key of a point under `plugins` ("queueSort", "gpuSelection", ...).
std::string_view point_key(Point point);
std::optional<Point> point_named(std::string_view key);

// What a plugin name stands for.
struct KnownPlugin {
  const char* name;  // as kube-scheduler or gpusim's documentation writes it
  // The points it implements (a bit per Point).
  std::uint32_t points;
  // Its weight in kube-scheduler's default multiPoint set (0: not there, or not a score plugin).
  std::int32_t default_weight;
  // Why gpusim does not run it, if it does not: the pods and nodes gpusim reads give it nothing to
  // decide (a note for the user), or "" when gpusim runs it.
  const char* not_modelled;
};

// kube-scheduler's in-tree plugins and gpusim's policy plugins (not the framework plugins in the
// registry, which are looked up there).
std::span<const KnownPlugin> known_plugins();
const KnownPlugin* find_known_plugin(std::string_view name);  // names match as sched/names.hpp says

inline constexpr std::uint32_t bit(Point point) { return 1U << static_cast<unsigned>(point); }

// The points where gpusim's built-in framework plugin `canonical` (a registry name) runs, or 0
// for a plugin this table does not know (one registered by a test or a later policy: it may be
// named at any point and the framework checks that it implements it, but not in multiPoint).
std::uint32_t builtin_framework_plugin_points(std::string_view canonical);
// Every point a framework plugin may be named at.
inline constexpr std::uint32_t kFrameworkPoints =
    bit(Point::kQueueSort) | bit(Point::kPreFilter) | bit(Point::kFilter) | bit(Point::kPostFilter) | bit(Point::kScore) |
    bit(Point::kReserve) | bit(Point::kPermit) | bit(Point::kBind) | bit(Point::kGpuSelection);

// Every point a queueing plugin (sim/k8s/queueing_plugin.hpp) may be named at.
inline constexpr std::uint32_t kQueueingPoints =
    bit(Point::kJobRank) | bit(Point::kRound) | bit(Point::kQueueAdmission) | bit(Point::kPermit);

}  // namespace gpusim::config
