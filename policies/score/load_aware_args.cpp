#include "policies/score/load_aware_args.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "policies/args_yaml.hpp"

namespace gpusim::policy {
namespace {

constexpr const char* kNames[kUsageResources] = {"koordinator.sh/gpu-core", "koordinator.sh/gpu-memory-ratio"};

UsageResource resource_named(const YAML::Node& key, const io::YamlFields& fields, const std::string& field) {
  const std::string name = fields.key(key, field);
  for (std::size_t i = 0; i < kUsageResources; ++i) {
    if (name == kNames[i]) return static_cast<UsageResource>(i);
  }
  const bool cpu_or_memory = name == "cpu" || name == "memory";
  fields.fail(key, field,
              fmt::format("'{}': {}the resources gpusim measures are koordinator.sh/gpu-core and "
                          "koordinator.sh/gpu-memory-ratio",
                          name, cpu_or_memory ? "gpusim measures no CPU or memory use; " : "unknown resource; "));
}

// A map of resource -> integer in [low, high]; `set` takes each entry.
template <typename Set>
void read_map(const YAML::Node& map, const io::YamlFields& fields, const std::string& field, std::int64_t low,
              std::int64_t high, Set set) {
  if (!given(map)) return;
  if (!map.IsMap()) fields.fail(map, field, "expected a mapping of resource names to integers");
  for (const auto& entry : map) {
    const UsageResource resource = resource_named(entry.first, fields, field);
    const std::string at = fmt::format("{}.{}", field, kNames[static_cast<std::size_t>(resource)]);
    set(resource, fields.integer(entry.second, at, low, high));
  }
}

std::string map_text(const std::int64_t (&values)[kUsageResources]) {
  std::string out = "{";
  for (std::size_t i = 0; i < kUsageResources; ++i) {
    out += fmt::format("{}{}: {}", out.size() > 1 ? ", " : "", kNames[i], values[i]);
  }
  return out + "}";
}

}  // namespace

const char* usage_resource_name(UsageResource resource) { return kNames[static_cast<std::size_t>(resource)]; }

std::vector<sched::ArgLine> LoadAwareArgs::describe() const {
  const auto is_default = [&](const char* name) { return std::find(given.begin(), given.end(), name) == given.end(); };
  std::vector<sched::ArgLine> lines = {
      {"filterExpiredNodeMetrics", filter_expired_node_metrics ? "true" : "false", is_default("filterExpiredNodeMetrics")},
      {"nodeMetricExpirationSeconds", std::to_string(node_metric_expiration_seconds), is_default("nodeMetricExpirationSeconds")},
      {"enableScheduleWhenNodeMetricsExpired", enable_schedule_when_node_metrics_expired ? "true" : "false",
       is_default("enableScheduleWhenNodeMetricsExpired")},
      {"resourceWeights", map_text(resource_weights), is_default("resourceWeights")},
      {"dominantResourceWeight", std::to_string(dominant_resource_weight), is_default("dominantResourceWeight")},
      {"usageThresholds", map_text(usage_thresholds), is_default("usageThresholds")},
      {"estimatedScalingFactors", map_text(estimated_scaling_factors), is_default("estimatedScalingFactors")},
  };
  if (estimated_seconds_after_pod_scheduled) {
    lines.push_back({"estimatedSecondsAfterPodScheduled", std::to_string(*estimated_seconds_after_pod_scheduled), false});
  }
  return lines;
}

std::shared_ptr<const sched::PluginArgs> read_load_aware_args(const YAML::Node& args, const io::YamlFields& fields,
                                                              const std::string& field) {
  auto out = std::make_shared<LoadAwareArgs>();
  if (!given(args)) return out;
  check_args_keys(args, fields, field, "LoadAwareSchedulingArgs",
                  {"filterExpiredNodeMetrics", "nodeMetricExpirationSeconds", "enableScheduleWhenNodeMetricsExpired",
                   "resourceWeights", "dominantResourceWeight", "usageThresholds", "prodUsageThresholds",
                   "prodUsageIncludeSys", "scoreAccordingProdUsage", "estimator", "estimatedScalingFactors",
                   "estimatedSecondsAfterPodScheduled", "estimatedSecondsAfterInitialized", "allowCustomizeEstimation",
                   "aggregated", "supportedResources"});
  const auto at = [&](const char* key) { return fmt::format("{}.{}", field, key); };
  const auto note = [&](const char* key) { out->given.emplace_back(key); };
  if (given(args["filterExpiredNodeMetrics"])) {
    out->filter_expired_node_metrics = fields.boolean(args["filterExpiredNodeMetrics"], at("filterExpiredNodeMetrics"));
    note("filterExpiredNodeMetrics");
  }
  if (given(args["nodeMetricExpirationSeconds"])) {
    out->node_metric_expiration_seconds =
        fields.integer(args["nodeMetricExpirationSeconds"], at("nodeMetricExpirationSeconds"), 1, std::int64_t{1} << 40);
    note("nodeMetricExpirationSeconds");
  }
  if (given(args["enableScheduleWhenNodeMetricsExpired"])) {
    out->enable_schedule_when_node_metrics_expired =
        fields.boolean(args["enableScheduleWhenNodeMetricsExpired"], at("enableScheduleWhenNodeMetricsExpired"));
    note("enableScheduleWhenNodeMetricsExpired");
  }
  if (given(args["dominantResourceWeight"])) {
    out->dominant_resource_weight = fields.integer(args["dominantResourceWeight"], at("dominantResourceWeight"), 0, 100);
    note("dominantResourceWeight");
  }
  // resourceWeights and usageThresholds: as given, the defaults only when the map is empty
  // (SetDefaults_LoadAwareSchedulingArgs); estimatedScalingFactors: merged into the defaults.
  if (given(args["resourceWeights"]) && args["resourceWeights"].size() > 0) {
    std::fill(std::begin(out->resource_weights), std::end(out->resource_weights), 0);
    read_map(args["resourceWeights"], fields, at("resourceWeights"), 1, 100,
             [&](UsageResource r, std::int64_t v) { out->resource_weights[static_cast<std::size_t>(r)] = v; });
    note("resourceWeights");
  } else if (out->dominant_resource_weight > 0) {
    // Koordinator defaults the weights only when dominantResourceWeight is 0 as well.
    std::fill(std::begin(out->resource_weights), std::end(out->resource_weights), 0);
  }
  if (given(args["usageThresholds"]) && args["usageThresholds"].size() > 0) {
    std::fill(std::begin(out->usage_thresholds), std::end(out->usage_thresholds), 0);
    read_map(args["usageThresholds"], fields, at("usageThresholds"), 0, 100,
             [&](UsageResource r, std::int64_t v) { out->usage_thresholds[static_cast<std::size_t>(r)] = v; });
    note("usageThresholds");
  }
  if (given(args["estimatedScalingFactors"])) {
    read_map(args["estimatedScalingFactors"], fields, at("estimatedScalingFactors"), 1, 100,
             [&](UsageResource r, std::int64_t v) { out->estimated_scaling_factors[static_cast<std::size_t>(r)] = v; });
    note("estimatedScalingFactors");
  }
  if (given(args["estimatedSecondsAfterPodScheduled"])) {
    out->estimated_seconds_after_pod_scheduled = fields.integer(args["estimatedSecondsAfterPodScheduled"],
                                                                at("estimatedSecondsAfterPodScheduled"), 0, std::int64_t{1} << 40);
  }
  // What gpusim does not model, refused where it would change a decision.
  const auto refuse = [&](const char* key, const char* why) {
    if (given(args[key])) fields.fail(args[key], at(key), why);
  };
  const auto refuse_true = [&](const char* key, const char* why) {
    if (given(args[key]) && fields.boolean(args[key], at(key))) fields.fail(args[key], at(key), why);
  };
  if (given(args["prodUsageThresholds"]) && args["prodUsageThresholds"].size() > 0) {
    fields.fail(args["prodUsageThresholds"], at("prodUsageThresholds"),
                "not modelled: gpusim's pods have no Koordinator priority class (koordinator-prod)");
  }
  refuse_true("prodUsageIncludeSys", "not modelled: gpusim's pods have no Koordinator priority class");
  refuse_true("scoreAccordingProdUsage", "not modelled: gpusim's pods have no Koordinator priority class");
  refuse_true("allowCustomizeEstimation", "not modelled: gpusim's pods carry no load-estimation annotations");
  refuse("aggregated", "not modelled: koordlet's percentile windows (gpusim reports the average only)");
  refuse("estimatedSecondsAfterInitialized", "not modelled: use estimatedSecondsAfterPodScheduled");
  refuse("supportedResources", "not modelled: the resources are koordinator.sh/gpu-core and koordinator.sh/gpu-memory-ratio");
  if (given(args["estimator"])) {
    const std::string estimator = fields.text(args["estimator"], at("estimator"));
    if (!estimator.empty() && estimator != "DefaultEstimator") {
      fields.fail(args["estimator"], at("estimator"), fmt::format("unknown estimator '{}': gpusim has DefaultEstimator", estimator));
    }
  }
  return out;
}

}  // namespace gpusim::policy
