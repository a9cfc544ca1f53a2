// Themis-style finish-time-fair leases (policy themis, policies/time_sharing/time_share_rounds.hpp): each round
// is a lease offered first to the jobs with the largest estimated rho = (time since arrival +
// remaining work at best speed) / (work at the equal-share speed x max(1, n x GPUs / cluster GPUs)).
// Schedules worked out by hand (seconds; rounds of 360 s; a suspended pod's owner recreates it
// after 10 s).
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

constexpr double kUs = 2e-6;

TEST(Themis, LeasesAlternateTwoEqualJobsOnOneGpu) {
  // One GPU; A and B (600 s) at 0, n = 2. Round 0: rho = 600 / (600 x 2) = 0.5 each, tie to the
  // lower row: A runs 0-360. Round 360: A's rho = (360 + 240) / 1200 = 0.5, B's (360 + 600) / 1200
  // = 0.8: B runs, A is suspended with 240 s left. Round 720: both (720 + 240) / 1200 = 0.8, A (the
  // lower row) runs 720-960; B, suspended, waits for the round at 1080 and runs 1080-1320.
  K8sScenario s;
  s.policy = "themis";
  s.node("n0", 1);
  s.pod("a", 1, 0, 600);
  s.pod("b", 1, 0, 600);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).first_start_us), 0);
  EXPECT_EQ(seconds(record(result, 0).start_us), 720);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 960, kUs);
  EXPECT_EQ(seconds(record(result, 1).first_start_us), 360);
  EXPECT_EQ(seconds(record(result, 1).start_us), 1080);
  EXPECT_NEAR(seconds(record(result, 1).end_us), 1320, kUs);
  EXPECT_EQ(metric(result, "preemptions"), 2);
  EXPECT_EQ(metric(result, "gpu_hours_lost_to_preemption"), 0);
  EXPECT_EQ(metric(result, "lp_solves"), 0);  // no LP: leases by rho
}

// One 4-GPU node; W (4 GPUs, 10,000 s) and A (4 GPUs, 100 s) at 0, B (1 GPU, 100 s) at 350.
// Round 0 (n = 2): rho 0.5 each, W (the lower row) runs. Round 360 (n = 3): W (360 + 9,640) /
// 30,000 = 0.33; A (360 + 100) / 300 = 1.53; B (10 + 100) / 100 = 1.1. W is suspended either way.
K8sScenario hog_and_two(double fairness) {
  K8sScenario s;
  s.policy = "themis";
  s.node("n0", 4);
  s.pod("w", 4, 0, 10'000);
  s.pod("a", 4, 0, 100);
  s.pod("b", 1, 350, 100);
  s.themis_fairness = fairness;
  return s;
}

TEST(Themis, WithTheDefaultKnobTheLeaseGoesToTheLargestRho) {
  // f = 0.8: ceil(0.2 x 3) = 1 job is offered the lease first, A (rho 1.53): A runs 360-460 and B,
  // with one GPU left but offered after A took all four, waits for the round at 720: 720-820.
  const auto result = hog_and_two(0.8).run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 360);
  EXPECT_EQ(seconds(record(result, 1).end_us), 460);
  EXPECT_EQ(seconds(record(result, 2).start_us), 720);
}

TEST(Themis, WithEveryJobInTheAuctionRhoPerGpuDecides) {
  // f = 0: all three are offered the lease, by rho per GPU asked: B 1.1, A 0.38, W 0.08. B takes a
  // GPU, A (four) no longer fits: B runs 360-460, A waits for the round at 720 (n = 2: A's rho per
  // GPU (720 + 100) / 200 / 4 = 1.03 beats W's): 720-820.
  const auto result = hog_and_two(0).run();
  EXPECT_EQ(seconds(record(result, 2).start_us), 360);
  EXPECT_EQ(seconds(record(result, 2).end_us), 460);
  EXPECT_EQ(seconds(record(result, 1).start_us), 720);
  EXPECT_EQ(seconds(record(result, 1).end_us), 820);
}

}  // namespace
}  // namespace gpusim::testing
