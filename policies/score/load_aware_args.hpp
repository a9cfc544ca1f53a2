#pragma once
// Koordinator's LoadAwareSchedulingArgs (kubescheduler.config.k8s.io/v1, kind
// LoadAwareSchedulingArgs), the args of load-aware (LoadAwareScheduling), for GPU usage. Fields,
// defaults and checks as koordinator-sh/koordinator at a7a1b76b (pkg/scheduler/apis/config/v1
// types.go, defaults.go; validation_pluginargs.go):
//
//   filterExpiredNodeMetrics: true            # an expired report fails the node ...
//   nodeMetricExpirationSeconds: 180          # ... this old or older (> 0)
//   enableScheduleWhenNodeMetricsExpired: false  # ... unless this lets it pass
//   resourceWeights: {koordinator.sh/gpu-core: 1, koordinator.sh/gpu-memory-ratio: 1}  # 1..100
//   dominantResourceWeight: 0                 # 0..100: weight of the lowest resource score
//   usageThresholds: {koordinator.sh/gpu-core: 65, koordinator.sh/gpu-memory-ratio: 95}  # %, 0: off
//   estimatedScalingFactors: {koordinator.sh/gpu-core: 85, koordinator.sh/gpu-memory-ratio: 70}  # 1..100
//   estimatedSecondsAfterPodScheduled: 0      # absent: none
//
// The resources are the GPU ones koordlet reports (koordinator.sh/gpu-core, the GPUs' busy
// share, and koordinator.sh/gpu-memory-ratio, their memory in use). Koordinator's defaults are for
// cpu (weight 1, threshold 65 %, estimate 85 % of the request) and memory (1, 95 %, 70 %); gpusim
// measures no CPU or memory use, so its defaults give those figures to the GPU's compute and
// memory, and cpu or memory are refused. Refused too, with a reason: the Prod-usage fields (gpusim's
// pods have no Koordinator priority class), `aggregated` (percentile windows), another
// estimator, estimatedSecondsAfterInitialized, allowCustomizeEstimation (no pod annotations).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/sched/plugin_args.hpp"

namespace gpusim::policy {

enum class UsageResource : std::uint8_t { kGpuCore, kGpuMemoryRatio };
inline constexpr std::size_t kUsageResources = 2;
const char* usage_resource_name(UsageResource resource);

class LoadAwareArgs final : public sched::PluginArgs {
 public:
  bool filter_expired_node_metrics = true;
  std::int64_t node_metric_expiration_seconds = 180;
  bool enable_schedule_when_node_metrics_expired = false;
  // Per resource (UsageResource order); a weight of 0: not scored.
  std::int64_t resource_weights[kUsageResources] = {1, 1};
  std::int64_t dominant_resource_weight = 0;
  std::int64_t usage_thresholds[kUsageResources] = {65, 95};
  std::int64_t estimated_scaling_factors[kUsageResources] = {85, 70};
  std::optional<std::int64_t> estimated_seconds_after_pod_scheduled;
  std::vector<std::string> given;  // the fields the file set, for describe()
  std::vector<sched::ArgLine> describe() const override;
};

// The ArgsReader of load-aware (sim/sched/plugin_args.hpp).
std::shared_ptr<const sched::PluginArgs> read_load_aware_args(const YAML::Node& args, const io::YamlFields& fields,
                                                              const std::string& field);

}  // namespace gpusim::policy
