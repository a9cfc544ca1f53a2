// The defragmenting descheduler, on a scenario worked out by hand.
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;

// Two GPUs, each holding a 0.6 fraction (F1 on GPU 0, F2 on GPU 1, 1000 s each): W, asking a whole
// GPU at 10 s, cannot run. The descheduler ticks 60 s after W arrives (70 s) and evicts the pods of
// the GPU with the least in use (a tie: GPU 0, so F1). W runs on GPU 0 from 70 s to 1070 s. F1 had
// run 70 s; its last checkpoint (every 50 s) kept 50 s of work, 20 s x 0.6 GPU is lost. Its
// replacement (after the 10 s backoff) waits for GPU 1 until F2 ends at 1000 s and runs its
// remaining 950 s: it ends at 1950 s.
TEST(K8sDescheduler, EvictsAFragmentForAWholeGpuPodAndResumesFromTheCheckpoint) {
  K8sScenario s;
  s.node("n", 2);
  s.kube.descheduler = true;
  s.kube.descheduler_interval = s_(60);
  s.kube.checkpoint_interval = s_(50);
  s.pod("f1", 1, 0, 1000).gpu_milli = 600;
  s.pod("f2", 1, 0, 1000).gpu_milli = 600;
  s.pod("w", 1, 10, 1000);
  const auto result = s.run();
  EXPECT_EQ(record(result, 2).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 2).start_us), 70);
  EXPECT_EQ(seconds(record(result, 2).end_us), 1070);
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 0).attempts, 2U);
  EXPECT_EQ(seconds(record(result, 0).start_us), 1000);
  EXPECT_EQ(seconds(record(result, 0).end_us), 1950);
  EXPECT_EQ(metric(result, "descheduler_evictions"), 1);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_evictions"), 20 * 0.6 / 3600, 1e-12);
  EXPECT_EQ(metric(result, "pods_given_up"), 0);
}

// A GPU with more fractions than the budget allows is left alone; so is one whose pods have not run
// for minRunTime. Here both hold: W waits for F1 and F2 to end.
TEST(K8sDescheduler, RespectsTheBudgetAndMinRunTime) {
  for (const bool budget_binds : {true, false}) {
    K8sScenario s;
    s.node("n", 1);
    s.kube.descheduler = true;
    if (!budget_binds) {
      s.kube.descheduler_evictions_per_cycle = 2;
      s.kube.descheduler_min_run_time = s_(3600);
    }
    s.pod("f1", 1, 0, 1000).gpu_milli = 300;
    s.pod("f2", 1, 0, 1000).gpu_milli = 300;
    s.pod("w", 1, 10, 100);
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 2).start_us), 1000);
    EXPECT_EQ(metric(result, "descheduler_evictions"), 0);
  }
}

}  // namespace
}  // namespace gpusim::testing
