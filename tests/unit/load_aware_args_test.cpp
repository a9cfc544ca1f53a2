// The args reader of load-aware (Koordinator's LoadAwareSchedulingArgs): defaults as
// Koordinator's v1 defaulting (on the GPU resources), and errors naming file, line and field.
#include <gtest/gtest.h>

#include "policies/register_builtin.hpp"
#include "policies/score/load_aware_args.hpp"
#include "sim/core/status.hpp"

namespace gpusim {
namespace {

const sched::Registry& registry() {
  static const sched::Registry r = policy::builtin_registry();
  return r;
}

std::shared_ptr<const policy::LoadAwareArgs> read(const std::string& yaml) {
  return std::dynamic_pointer_cast<const policy::LoadAwareArgs>(
      (*registry().args_reader("load-aware"))(YAML::Load(yaml), io::YamlFields("sched.yaml"), "pluginConfig[0].args"));
}

std::string error_of(const std::string& yaml) {
  try {
    read(yaml);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(LoadAwareArgs, DefaultsAreKoordinatorsCpuAndMemoryFiguresOnTheGpu) {
  ASSERT_EQ(registry().canonical("LoadAwareScheduling"), "load-aware");
  const auto args = std::dynamic_pointer_cast<const policy::LoadAwareArgs>(registry().default_args("load-aware"));
  ASSERT_NE(args, nullptr);
  EXPECT_TRUE(args->filter_expired_node_metrics);
  EXPECT_EQ(args->node_metric_expiration_seconds, 180);
  EXPECT_FALSE(args->enable_schedule_when_node_metrics_expired);
  EXPECT_EQ(args->resource_weights[0], 1);
  EXPECT_EQ(args->resource_weights[1], 1);
  EXPECT_EQ(args->usage_thresholds[0], 65);
  EXPECT_EQ(args->usage_thresholds[1], 95);
  EXPECT_EQ(args->estimated_scaling_factors[0], 85);
  EXPECT_EQ(args->estimated_scaling_factors[1], 70);
  for (const auto& line : args->describe()) EXPECT_TRUE(line.is_default) << line.name;
}

TEST(LoadAwareArgs, GivenMapsReplaceTheDefaultsAndScalingFactorsMerge) {
  const auto args = read(
      "{apiVersion: kubescheduler.config.k8s.io/v1, kind: LoadAwareSchedulingArgs, "
      "resourceWeights: {koordinator.sh/gpu-core: 3}, usageThresholds: {koordinator.sh/gpu-memory-ratio: 80}, "
      "estimatedScalingFactors: {koordinator.sh/gpu-core: 100}, nodeMetricExpirationSeconds: 60}");
  EXPECT_EQ(args->resource_weights[0], 3);
  EXPECT_EQ(args->resource_weights[1], 0);
  EXPECT_EQ(args->usage_thresholds[0], 0);
  EXPECT_EQ(args->usage_thresholds[1], 80);
  EXPECT_EQ(args->estimated_scaling_factors[0], 100);
  EXPECT_EQ(args->estimated_scaling_factors[1], 70);
  EXPECT_EQ(args->node_metric_expiration_seconds, 60);
  // dominantResourceWeight alone: no per-resource weights (Koordinator defaults them only when it is 0).
  const auto dominant = read("{dominantResourceWeight: 2}");
  EXPECT_EQ(dominant->resource_weights[0], 0);
  EXPECT_EQ(dominant->dominant_resource_weight, 2);
}

TEST(LoadAwareArgs, ErrorsNameTheFieldAndWhatGpusimDoesNotModel) {
  EXPECT_NE(error_of("{resourceWeights: {cpu: 1}}").find("sched.yaml:1: pluginConfig[0].args.resourceWeights: 'cpu': gpusim "
                                                         "measures no CPU or memory use"),
            std::string::npos)
      << error_of("{resourceWeights: {cpu: 1}}");
  EXPECT_NE(error_of("{usageThresholds: {koordinator.sh/gpu-core: 101}}").find("usageThresholds.koordinator.sh/gpu-core"),
            std::string::npos);
  EXPECT_NE(error_of("{resourceWeights: {koordinator.sh/gpu-core: 0}}").find("resourceWeights.koordinator.sh/gpu-core"),
            std::string::npos);
  EXPECT_NE(error_of("{nodeMetricExpirationSeconds: 0}").find("nodeMetricExpirationSeconds"), std::string::npos);
  EXPECT_NE(error_of("{aggregated: {usageAggregationType: p95}}").find("percentile windows"), std::string::npos);
  EXPECT_NE(error_of("{scoreAccordingProdUsage: true}").find("priority class"), std::string::npos);
  EXPECT_NE(error_of("{estimator: Fancy}").find("unknown estimator 'Fancy'"), std::string::npos);
  EXPECT_NE(error_of("{usageThreshold: {}}").find("usageThreshold"), std::string::npos);
  EXPECT_EQ(error_of("{estimator: DefaultEstimator, scoreAccordingProdUsage: false}"), "");
}

}  // namespace
}  // namespace gpusim
