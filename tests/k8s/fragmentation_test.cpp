// FGD fragmentation sampled over a replay (--fragmentation-every): which samples count and what
// they hold, worked out by hand.
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

// One node of 2 GPUs; the workload is one pod asking 0.7 of a GPU, 0..100 s, so the typical pod
// is that pod. While it runs GPU 0 has 300 milli free, which the typical pod cannot use: 300 of
// the 1,300 idle milli are fragmented (23.08 %). Samples at 30, 60 and 90 s fall within the
// makespan (0..100); the one at 120 s (the pod still ran at 90) does not count.
TEST(K8sFragmentation, SampledOnTheGridWithinTheMakespan) {
  K8sScenario s;
  s.node("n", 2);
  s.fragmentation_every_s = 30;
  s.pod("a", 1, 0, 100).gpu_milli = 700;
  const auto result = s.run();
  EXPECT_EQ(metric(result, "fragmentation_samples"), 3);
  EXPECT_NEAR(metric(result, "mean_fragmentation_pct"), 300.0 * 100 / 1300, 1e-9);
  EXPECT_NEAR(metric(result, "mean_fragmented_gpus"), 0.3, 1e-12);
}

// Samples before the first arrival are outside the makespan: the same pod arriving at 100 s is
// sampled at 120, 150 and 180 only (not at 30, 60, 90 on the empty cluster).
TEST(K8sFragmentation, SamplesBeforeTheFirstArrivalDoNotCount) {
  K8sScenario s;
  s.node("n", 2);
  s.fragmentation_every_s = 30;
  s.pod("a", 1, 100, 100).gpu_milli = 700;
  const auto result = s.run();
  EXPECT_EQ(metric(result, "fragmentation_samples"), 3);
  EXPECT_NEAR(metric(result, "mean_fragmentation_pct"), 300.0 * 100 / 1300, 1e-9);
}

// A pod asking 0.3 leaves 700 milli on its GPU, which the typical (0.3) pod can use: nothing is
// fragmented. Without the option nothing is sampled or reported.
TEST(K8sFragmentation, UsableIdleGpuIsNotFragmentAndOffByDefault) {
  K8sScenario s;
  s.node("n", 2);
  s.fragmentation_every_s = 30;
  s.pod("a", 1, 0, 100).gpu_milli = 300;
  EXPECT_EQ(metric(s.run(), "mean_fragmentation_pct"), 0);
  s.fragmentation_every_s = 0;
  EXPECT_FALSE(s.run().metric("mean_fragmentation_pct").has_value());
}

}  // namespace
}  // namespace gpusim::testing
